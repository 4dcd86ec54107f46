import type { FsChange, KilnBridge } from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { changeTouches, pathAfterMove, rekeyAfterMove } from '../../../shared/fs-change';
import { nameOf } from '../../../shared/paths';
import { Emitter, type Event } from '../../../shared/base/event';
import { Store, errorText, perBridge, useStore } from '../base';
import { showsOwningView } from './owning-views';

/** Over this many bytes a file opens with Monaco's large-file options (no minimap, no folding, plain text). */
export const LARGE_FILE_BYTES = 5 * 1024 * 1024;

const RECHECK_AFTER_SAVE_MS = 600;

export type DiskConflict = { kind: 'changed'; diskText: string; diskHash: string } | { kind: 'deleted' };

export interface OpenFile {
  /** Stays the same for the tab's whole life, across renames and moves of its file. */
  id: number;
  path: string;
  name: string;
  status: 'loading' | 'ready' | 'error';
  error?: string;
  binary: boolean;
  /** Only the head of a very large file was read; the editor is read-only. */
  truncated: boolean;
  size: number;
  large: boolean;
  /** What the editor shows (and what Save writes). */
  buffer: string;
  /** The text as last read from or written to disk. */
  diskText: string;
  diskHash: string;
  dirty: boolean;
  /** Set when the file changed or vanished on disk while the buffer had unsaved edits. */
  conflict: DiskConflict | null;
  /** Bumped whenever the buffer is replaced from outside the editor (reload), so views resync. */
  revision: number;
  /** The document view the operator chose for this tab ("Open as text"), instead of the one its path picks. */
  view: string | null;
}

export interface OpenFilesState {
  files: OpenFile[];
  active: string | null;
  /** The path whose disk-vs-buffer diff is shown in the centre, if any. */
  comparing: string | null;
}

// process-wide: ids only grow; unique across windows is all they need to be.
let tabIds = 0;

/** A view that keeps its own document (a notebook, held by the main process) and answers for its tab. */
export interface DocumentOwner {
  save(): Promise<void>;
  /** The tab closed, after the operator chose what to do with unsaved changes. */
  closed(): void;
}

/**
 * The open files: which is active, each buffer, its dirty flag and its disk state. Monaco-free so any
 * panel (notebook, agent edit panel) can read and drive it through `useOpenFiles()`.
 */
export class OpenFilesStore extends Store<OpenFilesState> {
  /** Paths with a save or disk check in flight; disk events for them are checked after it settles. */
  private readonly busy = new Map<string, Promise<unknown>>();
  /** Tabs opened in a view that keeps its document itself, whose text was not read (read when shown as text). */
  private readonly unread = new Set<string>();
  /** Tabs whose document a view keeps itself: saving, the dirty flag and disk changes are theirs. */
  private readonly owners = new Map<string, DocumentOwner>();
  /** Editors holding edits newer than their tab's `buffer`; each hands its text over when called. */
  private readonly pendingEdits = new Set<() => void>();
  private readonly edited = new Emitter<string>();
  /**
   * Every edit of a tab's text, with its path, even one whose text the editor has not handed over yet. Typing
   * notifies the state's subscribers only when the dirty flag flips: what restarts a pause per key (auto save,
   * backups, the change gutter) listens here, and no view re-renders for a key.
   */
  readonly onDidEdit: Event<string> = this.edited.event;

  constructor(private readonly bridge: KilnBridge) {
    super({ files: [], active: null, comparing: null });
    this.own(bridge.on('fs.change', (change) => this.handleFsChange(change)));
    this.own(() => this.edited.dispose());
  }

  get(path: string): OpenFile | undefined {
    return this.state.files.find((f) => f.path === path);
  }

  get activeFile(): OpenFile | undefined {
    return this.state.active ? this.get(this.state.active) : undefined;
  }

  /** Opens (or focuses) a file's tab and reads it. */
  async open(path: string): Promise<void> {
    if (this.get(path)) {
      this.set({ active: path });
      return;
    }
    const file: OpenFile = {
      id: ++tabIds,
      path,
      name: nameOf(path),
      status: 'loading',
      binary: false,
      truncated: false,
      size: 0,
      large: false,
      buffer: '',
      diskText: '',
      diskHash: '',
      dirty: false,
      conflict: null,
      revision: 0,
      view: null,
    };
    if (showsOwningView(path, null)) {
      this.unread.add(path);
      file.status = 'ready';
    }
    this.set({ files: [...this.state.files, file], active: path });
    if (!this.unread.has(path)) await this.load(path);
  }

  activate(path: string): void {
    if (this.get(path)) this.set({ active: path });
  }

  /** Shows the tab with another document view (null: the one its path picks); the view's owner, if any, lets go first. */
  setView(path: string, view: string | null): void {
    const readNow = this.unread.has(path) && !showsOwningView(path, view);
    this.patch(path, () => ({ view, ...(readNow ? { status: 'loading' as const } : {}) }));
    if (readNow) void this.load(path);
  }

  /** A view takes over a tab's document; the returned function gives it back. */
  claim(path: string, owner: DocumentOwner): () => void {
    this.owners.set(path, owner);
    return () => {
      // Wherever the tab has moved to since.
      const current = [...this.owners].find(([, o]) => o === owner)?.[0];
      if (current === undefined) return;
      this.owners.delete(current);
      this.patch(current, () => ({ dirty: false }));
    };
  }

  /** Whether a view keeps this tab's document itself (a notebook): its buffer here is not the document. */
  isOwned(path: string): boolean {
    return this.owners.has(path);
  }

  /**
   * Reopens a tab with unsaved text kept from an earlier run (hot exit): dirty, nothing written. If the disk
   * changed since the text was based on it (`baseHash`), the tab opens in the conflict state, both versions
   * reachable; a file that is gone opens as deleted, for Save As.
   */
  async restoreUnsaved(path: string, text: string, baseHash: string | null): Promise<void> {
    await this.open(path);
    if (this.unread.has(path)) await this.load(path);
    const file = this.get(path);
    if (!file || file.binary || file.truncated || this.owners.has(path)) return;
    if (file.status === 'error') {
      this.patch(path, (f) => ({
        status: 'ready',
        error: undefined,
        buffer: text,
        diskText: '',
        diskHash: '',
        dirty: true,
        conflict: { kind: 'deleted' },
        revision: f.revision + 1,
      }));
      return;
    }
    if (file.diskHash === baseHash) {
      this.patch(path, (f) => ({ buffer: text, dirty: text !== f.diskText, revision: f.revision + 1 }));
      return;
    }
    // The buffer stands on a version the disk no longer has: the usual check of the disk raises the conflict.
    this.patch(path, (f) => ({
      buffer: text,
      diskText: '',
      diskHash: baseHash ?? '',
      dirty: true,
      revision: f.revision + 1,
    }));
    await this.checkDisk(path);
  }

  /** An owning view reports whether its document has unsaved changes. */
  setDirty(path: string, dirty: boolean): void {
    if (this.owners.has(path) && this.get(path)?.dirty !== dirty) this.patch(path, () => ({ dirty }));
  }

  /** Closes a tab without asking; the UI asks about unsaved changes first. */
  close(path: string): void {
    const index = this.state.files.findIndex((f) => f.path === path);
    if (index < 0) return;
    const owner = this.owners.get(path);
    this.owners.delete(path);
    this.unread.delete(path);
    owner?.closed();
    const files = this.state.files.filter((f) => f.path !== path);
    const active = this.state.active === path ? ((files[index] ?? files[index - 1])?.path ?? null) : this.state.active;
    this.set({ files, active, comparing: this.state.comparing === path ? null : this.state.comparing });
  }

  /** Replace in Files edited a dirty tab's buffer (as VS Code edits the model): the editor shows it, unsaved. */
  replaceBuffer(path: string, text: string): void {
    this.patch(path, (f) => ({ buffer: text, dirty: text !== f.diskText, revision: f.revision + 1 }));
  }

  /** The editor reports an edit. */
  setBuffer(path: string, text: string): void {
    this.patch(path, (f) => ({ buffer: text, dirty: text !== f.diskText }));
    this.edited.fire(path);
  }

  /**
   * The editor reports an edit without its text (reading a large model's whole text costs milliseconds a key):
   * `dirty` is exact, `buffer` stays behind until the editor hands the text over with `setBuffer`, at the latest
   * when `flushEdits` calls `handOver`. O(1) and renderless a key: the state changes (and its subscribers hear)
   * only when the dirty flag flips; `onDidEdit` fires every time.
   */
  markEdited(path: string, dirty: boolean, handOver: () => void): void {
    this.pendingEdits.add(handOver);
    if (this.get(path)?.dirty !== dirty) this.patch(path, () => ({ dirty }));
    this.edited.fire(path);
  }

  /** An editor handed its text over (or dropped it): it owes nothing now. */
  editsHandedOver(handOver: () => void): void {
    this.pendingEdits.delete(handOver);
  }

  /** Every editor hands over its pending text now: whoever reads `buffer` to keep it (save, backup) calls this first. */
  flushEdits(): void {
    for (const handOver of [...this.pendingEdits]) handOver();
  }

  /** Writes the buffer through the main side's atomic write, refusing if the disk changed since it was read. */
  async save(path: string): Promise<void> {
    const owner = this.owners.get(path);
    if (owner) return owner.save();
    this.flushEdits();
    const file = this.get(path);
    if (!file || file.status !== 'ready' || file.binary || file.truncated) return;
    if (file.conflict) {
      throw new KilnError('E_CHANGED_ON_DISK', `${file.name} changed on disk; choose Overwrite or Reload`);
    }
    await this.write(path, file.buffer, file.diskHash || undefined);
  }

  /** Saves the buffer over whatever is on disk now, after the operator chose Overwrite. */
  async overwrite(path: string): Promise<void> {
    this.flushEdits();
    const file = this.get(path);
    if (!file) return;
    const expected = file.conflict?.kind === 'changed' ? file.conflict.diskHash : undefined;
    await this.write(path, file.buffer, expected);
  }

  /**
   * Writes the buffer to a new file (never over an existing one) and retargets the tab there: the way
   * out for a buffer whose file was deleted or renamed by another program.
   */
  async saveAs(path: string, target: string): Promise<void> {
    this.flushEdits();
    const file = this.get(path);
    if (!file || file.binary || file.truncated) return;
    const text = file.buffer;
    const result = await this.bridge.request('workspace.createFile', { path: target, text });
    this.flushEdits();
    this.retarget(path, result.path, (f) => ({
      diskText: text,
      diskHash: result.hash,
      size: result.size,
      dirty: f.buffer !== text,
    }));
  }

  /** The tab's document now lives at `to` (saved under a new name): the tab, its owner and its state go there. */
  retarget(from: string, to: string, change: (file: OpenFile) => Partial<OpenFile> = () => ({})): void {
    if (from === to || !this.get(from)) return;
    if (this.get(to)) this.close(to);
    const owner = this.owners.get(from);
    this.owners.delete(from);
    if (owner) this.owners.set(to, owner);
    this.set({
      files: this.state.files.map((f) =>
        f.path === from ? { ...f, ...change(f), path: to, name: nameOf(to), conflict: null } : f,
      ),
      active: this.state.active === from ? to : this.state.active,
      comparing: this.state.comparing === from ? null : this.state.comparing,
    });
  }

  /** Replaces the buffer with the disk's text, dropping unsaved edits. */
  async reload(path: string): Promise<void> {
    await this.load(path);
  }

  showCompare(path: string | null): void {
    this.flushEdits();
    this.set({ comparing: path });
  }

  /**
   * Follows the change feed. A move (of the file or a folder holding it) retargets the tab with its
   * buffer, owner and in-flight work; anything else that touches an open file is checked against the
   * disk: a clean buffer follows it silently, a dirty one gets a conflict.
   */
  private handleFsChange(change: FsChange): void {
    if (change.type === 'moved') {
      this.moved(change.from, change.to);
      return;
    }
    for (const file of this.state.files) {
      if (changeTouches(change, file.path)) void this.afterBusy(file.path, () => this.checkDisk(file.path));
    }
  }

  private moved(from: string, to: string): void {
    const map = (p: string) => pathAfterMove(p, from, to) ?? p;
    rekeyAfterMove(this.owners, from, to);
    rekeyAfterMove(this.busy, from, to);
    for (const unread of [...this.unread]) {
      const now = pathAfterMove(unread, from, to);
      if (now === null || now === unread) continue;
      this.unread.delete(unread);
      this.unread.add(now);
    }
    let changed = false;
    const files = this.state.files.map((f) => {
      const path = map(f.path);
      if (path === f.path) return f;
      changed = true;
      return { ...f, path, name: nameOf(path) };
    });
    if (!changed) return;
    this.set({
      files,
      active: this.state.active && map(this.state.active),
      comparing: this.state.comparing && map(this.state.comparing),
    });
  }

  /** Re-reads every open file (e.g. when the window regains focus), in case a watcher event was missed. */
  recheckAll(): void {
    for (const file of this.state.files) void this.afterBusy(file.path, () => this.checkDisk(file.path));
  }

  // ---- internals ----

  private async write(path: string, text: string, expectedHash: string | undefined): Promise<void> {
    const job = this.bridge.request('workspace.write', { path, text, expectedHash });
    const settled = job.then(
      () => undefined,
      () => undefined,
    );
    this.busy.set(path, settled);
    // Where the tab is now: a move the feed reports while the write is out rekeys `busy` with the tab.
    const pathNow = () => [...this.busy].find(([, pending]) => pending === settled)?.[0] ?? path;
    try {
      const result = await job;
      // Typed while the write was out: the buffer must have those keys to say whether the tab is still dirty.
      this.flushEdits();
      const at = pathNow();
      this.patch(at, (f) => ({
        diskText: text,
        diskHash: result.hash,
        size: result.size,
        conflict: null,
        dirty: f.buffer !== text,
      }));
      // The watcher folds changes landing right after our own atomic rename into it; look once more.
      setTimeout(() => void this.afterBusy(at, () => this.checkDisk(at)), RECHECK_AFTER_SAVE_MS);
    } catch (err) {
      if (!(err instanceof KilnError && err.code === 'E_CHANGED_ON_DISK')) throw err;
      const at = pathNow();
      // Kiln moved the file between the write's sending and its arrival: the file is the same, now at `at`.
      if (at !== path) {
        this.busy.delete(at);
        return await this.write(at, text, expectedHash);
      }
      await this.checkDisk(path, true);
      throw err;
    } finally {
      const at = pathNow();
      if (this.busy.get(at) === settled) this.busy.delete(at);
    }
  }

  private async afterBusy(path: string, run: () => Promise<void>): Promise<void> {
    await this.busy.get(path);
    await run();
  }

  private async load(path: string): Promise<void> {
    this.unread.delete(path);
    try {
      const content = await this.bridge.request('workspace.read', { path });
      const text = content.text ?? '';
      this.patch(path, (f) => ({
        status: 'ready',
        error: undefined,
        binary: content.binary,
        truncated: content.truncated,
        size: content.size,
        large: content.size > LARGE_FILE_BYTES,
        buffer: text,
        diskText: text,
        diskHash: content.hash,
        dirty: false,
        conflict: null,
        revision: f.revision + 1,
      }));
    } catch (err) {
      this.patch(path, () => ({ status: 'error', error: errorText(err) }));
    }
  }

  private async checkDisk(path: string, forceConflict = false): Promise<void> {
    const file = this.get(path);
    if (!file || file.status !== 'ready' || this.owners.has(path)) return;
    let content;
    try {
      content = await this.bridge.request('workspace.read', { path });
    } catch (err) {
      if (!(err instanceof KilnError && err.code === 'E_NOT_FOUND')) return;
      // The tab stays, clean or dirty, and says so: a rename by another program looks exactly like this.
      if (this.get(path)) this.patch(path, () => ({ conflict: { kind: 'deleted' } }));
      return;
    }
    // The editor's unsent keys belong to the buffer this compares with the disk.
    this.flushEdits();
    const now = this.get(path);
    if (!now || content.hash === now.diskHash) {
      if (now?.conflict && !forceConflict) this.patch(path, () => ({ conflict: null }));
      return;
    }
    const text = content.text ?? '';
    if (text === now.buffer) {
      // The disk already holds what the buffer has: nothing to decide.
      this.patch(path, () => ({
        diskText: text,
        diskHash: content.hash,
        dirty: false,
        conflict: null,
        size: content.size,
      }));
    } else if (!now.dirty && !forceConflict) {
      this.patch(path, (f) => ({
        buffer: text,
        diskText: text,
        diskHash: content.hash,
        size: content.size,
        binary: content.binary,
        conflict: null,
        revision: f.revision + 1,
      }));
    } else {
      this.patch(path, () => ({ conflict: { kind: 'changed', diskText: text, diskHash: content.hash } }));
    }
  }

  private patch(path: string, change: (file: OpenFile) => Partial<OpenFile>): void {
    const files = this.state.files.map((f) => (f.path === path ? { ...f, ...change(f) } : f));
    this.set({ files });
  }
}

export const useOpenFilesStore = perBridge((bridge) => new OpenFilesStore(bridge));

/** The open files' state, re-rendering on every change (a hand-over of typed text included, not each key). */
export function useOpenFiles(): OpenFilesState {
  return useStore(useOpenFilesStore());
}

/** One open file, re-rendering only when it changes. */
export function useOpenFile(path: string): OpenFile | undefined {
  return useStore(useOpenFilesStore(), (state) => state.files.find((f) => f.path === path));
}
