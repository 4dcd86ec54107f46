import {
  UPLOAD_ENDPOINT,
  type Envelope,
  type KilnBridge,
  type UploadConflict,
  type UploadResult,
} from '../../../shared/contract';
import { SerialQueue } from '../../../shared/base/serial-queue';
import { fromWireError, isKilnError, KilnError } from '../../../shared/errors';
import { bearer } from '../../../shared/web-auth';
import { errorText, perBridge, Store } from '../base';
import { webHostToken } from '../bridge';
import type { DialogRequest, Toasts } from '../ui';
import { joinPath, nameOf } from '../../../shared/paths';
import { renameIncoming, type IncomingItem } from './incoming';
import { cancelledText, type TransferCounts } from './transfer-text';

type Ask = <V extends string>(request: DialogRequest<V>) => Promise<V>;

export interface UploadJob extends TransferCounts {
  /** The folder the items land in ('' = root). */
  dir: string;
  /** The workspace path being written now, and how far it is (0..1). */
  current: string | null;
  currentFraction: number;
}

interface Planned {
  item: IncomingItem;
  /** Web: how each file meets one already there. Electron: passed to copyIn. */
  conflict: 'reject' | 'overwrite' | 'keepBoth';
  /** Web: Replace where a folder is involved (either side): the item replaces what is there whole, never merged. */
  replaceWhole?: boolean;
}

type ClashAnswer = 'replace' | 'keep' | 'replaceAll' | 'keepAll' | 'cancel';

/**
 * Brings the operator's files into a workspace folder, one job at a time: asks about name clashes first (Replace /
 * Keep both / Cancel, with "for all" when more items follow), then writes. The web host streams each file to the
 * upload endpoint; Electron copies by real path in main. What arrives reaches tabs, badges and search through the
 * change feed, as created by the operator.
 */
export class UploadStore extends Store<{ job: UploadJob | null }> {
  private abortCurrent: (() => void) | null = null;
  private cancelled = false;
  /** A second drop while one is coming in waits its turn: one job (and one clash dialog) at a time. */
  private readonly jobs = new SerialQueue();

  constructor(private readonly bridge: KilnBridge) {
    super({ job: null });
  }

  /** Stops the job: the file being written is removed, whole files already written stay. */
  cancel(): void {
    this.cancelled = true;
    this.abortCurrent?.();
  }

  /** Resolves the top-level paths written (empty when cancelled before anything was), after earlier jobs. */
  bringIn(items: IncomingItem[], dir: string, ui: { ask: Ask; toasts: Toasts; move?: boolean }): Promise<string[]> {
    return items.length ? this.jobs.run(() => this.runJob(items, dir, ui)) : Promise.resolve([]);
  }

  private async runJob(
    items: IncomingItem[],
    dir: string,
    ui: { ask: Ask; toasts: Toasts; move?: boolean },
  ): Promise<string[]> {
    const plan = await this.resolveClashes(items, dir, ui.ask);
    if (!plan) return [];
    this.cancelled = false;
    const files = plan.flatMap((p) => p.item.files);
    this.set({
      job: {
        dir,
        filesDone: 0,
        filesTotal: plan.some((p) => p.item.source) ? plan.length : files.length,
        bytesDone: 0,
        bytesTotal: files.reduce((sum, f) => sum + f.file.size, 0),
        current: null,
        currentFraction: 0,
      },
    });
    const written: string[] = [];
    let partial: string | null = null;
    try {
      for (const planned of plan) {
        if (this.cancelled) break;
        const top = planned.item.source
          ? await this.copyByPath(planned, dir, Boolean(ui.move))
          : planned.replaceWhole
            ? await this.uploadReplacing(planned.item, dir)
            : await this.upload(planned, dir);
        written.push(top);
      }
    } catch (err) {
      if (isKilnError(err, 'E_CANCELLED') || this.cancelled) partial = this.state.job?.current ?? null;
      else ui.toasts.error(errorText(err, `Could not bring "${nameOf(this.state.job?.current ?? dir)}" in`));
    } finally {
      let kept = this.state.job?.filesDone ?? 0;
      // A cancel that came after the last byte went may have lost the race with the rename: then the file is whole.
      if (partial && (this.state.job?.currentFraction ?? 0) >= 1) {
        const landed = await this.bridge.request('workspace.stat', { path: partial }).then(
          () => true,
          () => false,
        );
        if (landed) {
          kept++;
          partial = null;
        }
      }
      this.abortCurrent = null;
      this.set({ job: null });
      if (this.cancelled)
        ui.toasts.show({ kind: 'info', message: cancelledText(kept, partial ? nameOf(partial) : null) });
    }
    return written;
  }

  private async resolveClashes(items: IncomingItem[], dir: string, ask: Ask): Promise<Planned[] | null> {
    const plan: Planned[] = [];
    let always: 'replace' | 'keep' | null = null;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const target = joinPath(dir, item.name);
      const taken = await this.bridge.request('workspace.stat', { path: target }).then(
        (entry) => entry,
        () => null,
      );
      if (!taken) {
        plan.push({ item, conflict: 'reject' });
        continue;
      }
      const more = items.length - i - 1;
      const answer: ClashAnswer = always ?? (await ask(clashQuestion(item.name, dir, more)));
      if (answer === 'cancel') return null;
      if (answer === 'replaceAll') always = 'replace';
      if (answer === 'keepAll') always = 'keep';
      if (answer === 'replace' || answer === 'replaceAll')
        plan.push({ item, conflict: 'overwrite', replaceWhole: !item.source && (item.isDir || taken.kind === 'dir') });
      else if (item.source) plan.push({ item, conflict: 'keepBoth' });
      else {
        const free = await this.bridge.request('workspace.nextFreeName', { dir, name: item.name });
        plan.push({ item: renameIncoming(item, nameOf(free.path)), conflict: 'reject' });
      }
    }
    return plan;
  }

  /** Web host: folders first (empty ones too), then each file streamed to the upload endpoint. */
  private async upload({ item, conflict }: Planned, dir: string): Promise<string> {
    for (const folder of item.dirs) {
      await this.bridge.request('workspace.createDir', { path: joinPath(dir, folder) }).catch((err: unknown) => {
        if (!isKilnError(err, 'E_EXISTS')) throw err;
      });
    }
    for (const { rel, file } of item.files) {
      if (this.cancelled) throw new KilnError('E_CANCELLED', 'Upload cancelled');
      const path = joinPath(dir, rel);
      const before = this.state.job!.bytesDone;
      this.patchJob({ current: path, currentFraction: 0 });
      const put = putFile(path, conflict === 'overwrite' ? 'overwrite' : 'reject', file, (loaded) =>
        this.patchJob({ bytesDone: before + loaded, currentFraction: file.size ? loaded / file.size : 1 }, 'frame'),
      );
      this.abortCurrent = put.abort;
      await put.done;
      const job = this.state.job!;
      this.patchJob({ filesDone: job.filesDone + 1, bytesDone: before + file.size, current: null });
    }
    return joinPath(dir, item.name);
  }

  /**
   * Web host, Replace where a folder is involved: as in the desktop app (and VS Code), the folder becomes what was
   * dropped, never a merge of the two. The item comes in under a free name beside the old one and is moved over it
   * only when whole, so a cancel or a failure leaves the old one as it was and nothing of the new one.
   */
  private async uploadReplacing(item: IncomingItem, dir: string): Promise<string> {
    const target = joinPath(dir, item.name);
    const staged = await this.bridge.request('workspace.nextFreeName', { dir, name: item.name });
    const filesBefore = this.state.job!.filesDone;
    try {
      await this.upload({ item: renameIncoming(item, nameOf(staged.path)), conflict: 'reject' }, dir);
    } catch (err) {
      await this.bridge.request('workspace.delete', { path: staged.path, permanent: true }).catch(() => undefined);
      // Nothing of the item stays, its whole files neither: the cancel names the staged copy as removed.
      this.patchJob({ filesDone: filesBefore, current: staged.path, currentFraction: 0 });
      throw err;
    }
    await this.bridge.request('workspace.move', { from: staged.path, to: target, onConflict: 'overwrite' });
    return target;
  }

  /** Electron: main copies (or moves) the item on the filesystem, links as links. */
  private async copyByPath({ item, conflict }: Planned, dir: string, move: boolean): Promise<string> {
    const jobId = crypto.randomUUID();
    this.patchJob({ current: joinPath(dir, item.name), currentFraction: 0 });
    this.abortCurrent = () => void this.bridge.request('workspace.cancelJob', { jobId });
    const off = this.bridge.on('fs.progress', (p) => {
      if (p.jobId === jobId && !p.finished && p.total) this.patchJob({ currentFraction: p.done / p.total }, 'frame');
    });
    try {
      const { path } = await this.bridge.request('upload.copyIn', {
        source: item.source!,
        toDir: dir,
        onConflict: conflict,
        move,
        jobId,
      });
      this.patchJob({ filesDone: this.state.job!.filesDone + 1, current: null });
      return path;
    } finally {
      off();
    }
  }

  private patchJob(patch: Partial<UploadJob>, notify: 'now' | 'frame' = 'now'): void {
    if (this.state.job) this.set({ job: { ...this.state.job, ...patch } }, notify);
  }
}

function clashQuestion(name: string, dir: string, more: number): DialogRequest<ClashAnswer> {
  return {
    title: `"${name}" already exists`,
    message: `A file or folder named "${name}" already exists in ${dir ? `"${dir}"` : 'the workspace root'}. Replace it, keep both, or cancel?${more ? ` ${more} more item${more === 1 ? '' : 's'} follow${more === 1 ? 's' : ''}.` : ''}`,
    buttons: [
      { label: 'Replace', value: 'replace', danger: true },
      { label: 'Keep both', value: 'keep', primary: true },
      ...(more
        ? [
            { label: 'Replace all', value: 'replaceAll' as const, danger: true },
            { label: 'Keep both for all', value: 'keepAll' as const },
          ]
        : []),
      { label: 'Cancel', value: 'cancel' },
    ],
    cancelValue: 'cancel',
  };
}

/**
 * One file to the web host's upload endpoint. XHR rather than fetch: it reports how much of the body has gone
 * (the progress bar) and streams a File from disk without reading it into memory. The token goes in the
 * Authorization header (shared/web-auth.ts), never a cookie.
 */
function putFile(
  path: string,
  conflict: UploadConflict,
  file: File,
  onLoaded: (bytes: number) => void,
): { done: Promise<UploadResult>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<UploadResult>((resolve, reject) => {
    xhr.open('PUT', `${UPLOAD_ENDPOINT}?path=${encodeURIComponent(path)}&conflict=${conflict}`);
    xhr.setRequestHeader('Authorization', bearer(webHostToken() ?? ''));
    xhr.upload.onprogress = (event) => onLoaded(event.loaded);
    xhr.onload = () => {
      let envelope: Envelope<UploadResult>;
      try {
        envelope = JSON.parse(String(xhr.responseText)) as Envelope<UploadResult>;
      } catch {
        reject(new KilnError('E_INTERNAL', `The upload of "${nameOf(path)}" got no answer (HTTP ${xhr.status})`));
        return;
      }
      if (envelope.ok) resolve(envelope.value);
      else reject(fromWireError(envelope.error));
    };
    xhr.onerror = () =>
      reject(new KilnError('E_INTERNAL', `The connection to Kiln broke while "${nameOf(path)}" was uploading`));
    xhr.onabort = () => reject(new KilnError('E_CANCELLED', 'Upload cancelled'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}

/** The window's one upload job: the tree, the editor area and the status bar share it. */
export const useUploads = perBridge((bridge) => new UploadStore(bridge));
