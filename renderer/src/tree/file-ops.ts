import type { KilnBridge } from '../../../shared/contract';
import { isKilnError, KilnError } from '../../../shared/errors';
import type { OpenFilesStore } from '../editor';
import type { DialogRequest, Toasts } from '../ui';
import { errorText } from '../base';
import { isWithin, joinPath, nameOf, parentOf, topMost } from './paths';
import type { TreeStore } from './tree-store';

type Ask = <V extends string>(request: DialogRequest<V>) => Promise<V>;

/** One step an undo reverses: a move (rename, drag, cut/paste) or something created (paste copy, new file). */
type Step = { kind: 'move'; from: string; to: string } | { kind: 'created'; path: string };

interface UndoEntry {
  label: string;
  steps: Step[];
  /** Settles when the operation that makes the steps has finished. */
  settled: Promise<void>;
}

export interface FileOpsDeps {
  bridge: KilnBridge;
  ask: Ask;
  toasts: Toasts;
  tree: TreeStore;
  openFiles: OpenFilesStore;
  /** Selects these paths in the tree after an operation. */
  select: (paths: string[]) => void;
}

const PROGRESS_DELAY_MS = 300;

/**
 * Every file operation the explorer offers, on the workspace's one `move` primitive plus copy, create
 * and delete; asks on conflicts, reports failures, shows progress for long jobs and keeps an undo stack.
 * What an operation changed reaches the tree, tabs and editors through the change feed, not from here.
 */
export class FileOps {
  private readonly undoStack: UndoEntry[] = [];

  constructor(private readonly deps: FileOpsDeps) {}

  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  /** Moves entries into a folder (drag-and-drop, cut/paste). Folders into themselves are refused. */
  async moveInto(paths: string[], dir: string): Promise<void> {
    const sources = topMost(paths).filter((p) => parentOf(p) !== dir);
    const intoSelf = sources.find((p) => isWithin(dir, p));
    if (intoSelf) {
      this.deps.toasts.error(`Cannot move "${nameOf(intoSelf)}" into itself`);
      return;
    }
    const { steps, end } = this.begin();
    for (const from of sources) {
      const to = await this.moveOne(from, joinPath(dir, nameOf(from)));
      if (to === 'cancel') break;
      if (to) steps.push({ kind: 'move', from, to });
    }
    end(sources.length > 1 ? `Move ${steps.length} items` : 'Move');
    this.deps.tree.refresh([...sources, joinPath(dir, 'x')]);
    if (steps.length) {
      await this.deps.tree.expand(dir);
      this.deps.select(steps.map((s) => (s.kind === 'move' ? s.to : s.path)));
    }
  }

  /** Renames in place; the same move primitive. */
  async rename(path: string, newName: string): Promise<boolean> {
    const name = newName.trim();
    if (!name || name === nameOf(path)) return false;
    if (name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
      this.deps.toasts.error(`"${name}" is not a valid name`);
      return false;
    }
    const to = joinPath(parentOf(path), name);
    const { steps, end } = this.begin();
    try {
      await this.deps.bridge.request('workspace.move', { from: path, to });
      steps.push({ kind: 'move', from: path, to });
    } catch (err) {
      this.deps.toasts.error(errorText(err, `Could not rename "${nameOf(path)}"`));
      return false;
    } finally {
      end('Rename');
    }
    this.deps.tree.refresh([path]);
    this.deps.select([to]);
    return true;
  }

  /** Duplicates into a folder; a clash becomes "name copy.ext". */
  async copyInto(paths: string[], dir: string): Promise<void> {
    const { steps, end } = this.begin();
    for (const from of topMost(paths)) {
      if (isWithin(dir, from) && dir !== parentOf(from)) {
        this.deps.toasts.error(`Cannot copy "${nameOf(from)}" into itself`);
        continue;
      }
      try {
        const result = await this.withProgress(`Copying ${nameOf(from)}`, (jobId) =>
          this.deps.bridge.request('workspace.copy', { from, toDir: dir, jobId }),
        );
        steps.push({ kind: 'created', path: result.path });
      } catch (err) {
        this.reportJobError(`Could not copy "${nameOf(from)}"`, err);
        break;
      }
    }
    end(steps.length > 1 ? `Paste ${steps.length} items` : 'Paste');
    this.deps.tree.refresh([joinPath(dir, 'x')]);
    if (steps.length) {
      await this.deps.tree.expand(dir);
      this.deps.select(steps.map((s) => (s.kind === 'created' ? s.path : s.to)));
    }
  }

  async create(dir: string, name: string, kind: 'file' | 'dir'): Promise<string | null> {
    const clean = name.trim();
    if (!clean) return null;
    if (clean.includes('\\') || clean === '.' || clean === '..' || clean.split('/').some((part) => !part)) {
      this.deps.toasts.error(`"${clean}" is not a valid name`);
      return null;
    }
    const path = joinPath(dir, clean);
    const { steps, end } = this.begin();
    try {
      if (kind === 'file') await this.deps.bridge.request('workspace.createFile', { path, text: '' });
      else await this.deps.bridge.request('workspace.createDir', { path });
      steps.push({ kind: 'created', path });
    } catch (err) {
      this.deps.toasts.error(errorText(err, `Could not create "${clean}"`));
      return null;
    } finally {
      end(kind === 'file' ? 'New File' : 'New Folder');
    }
    this.deps.tree.refresh([path]);
    this.deps.select([path]);
    return path;
  }

  /** Asks first, naming what goes and how much a folder holds; then to the trash. */
  async delete(paths: string[]): Promise<void> {
    const targets = topMost(paths).filter((p) => p !== '');
    if (!targets.length) return;
    const counts = await Promise.all(
      targets.map((p) => this.deps.bridge.request('workspace.count', { path: p }).catch(() => ({ files: 1, dirs: 0 }))),
    );
    const isDir = (p: string) => this.deps.tree.entry(p)?.kind === 'dir';
    let title: string;
    let message: string;
    if (targets.length === 1) {
      const [{ files, dirs }] = counts;
      title = `Delete "${nameOf(targets[0])}"?`;
      message = isDir(targets[0])
        ? `The folder "${nameOf(targets[0])}" and the ${plural(files, 'file')} and ${plural(dirs, 'folder')} inside it will be moved to the trash.`
        : `"${targets[0]}" will be moved to the trash.`;
    } else {
      const files = counts.reduce((n, c) => n + c.files, 0);
      const dirs = counts.reduce((n, c) => n + c.dirs, 0) + targets.filter(isDir).length;
      title = `Delete ${targets.length} items?`;
      message = `${targets
        .slice(0, 8)
        .map((p) => `"${nameOf(p)}"`)
        .join(
          ', ',
        )}${targets.length > 8 ? ', …' : ''} (${plural(files, 'file')}, ${plural(dirs, 'folder')} in all) will be moved to the trash.`;
    }
    const answer = await this.deps.ask({
      title,
      message,
      buttons: [
        { label: 'Delete', value: 'delete', primary: true, danger: true },
        { label: 'Cancel', value: 'cancel' },
      ],
      cancelValue: 'cancel',
    });
    if (answer !== 'delete') return;
    for (const path of targets) {
      try {
        await this.deps.bridge.request('workspace.delete', { path });
      } catch (err) {
        if (isNoTrash(err)) {
          const permanent = await this.deps.ask({
            title: 'Delete permanently?',
            message: `There is no trash here. "${nameOf(path)}" would be deleted permanently and cannot be restored.`,
            buttons: [
              { label: 'Delete Permanently', value: 'yes', danger: true },
              { label: 'Cancel', value: 'cancel', primary: true },
            ],
            cancelValue: 'cancel',
          });
          if (permanent !== 'yes') break;
          await this.deps.bridge
            .request('workspace.delete', { path, permanent: true })
            .catch((e: unknown) => this.deps.toasts.error(errorText(e, `Could not delete "${nameOf(path)}"`)));
          continue;
        }
        this.deps.toasts.error(errorText(err, `Could not delete "${nameOf(path)}"`));
        break;
      }
      for (const file of this.deps.openFiles.getState().files) {
        if (isWithin(file.path, path) && !file.dirty) this.deps.openFiles.close(file.path);
      }
    }
    this.deps.tree.refresh(targets);
  }

  /** Reverses the last move, rename, paste or create. */
  async undo(): Promise<void> {
    const entry = this.undoStack.pop();
    if (!entry) {
      this.deps.toasts.show({ kind: 'info', message: 'Nothing to undo' });
      return;
    }
    await entry.settled;
    // The operation changed nothing after all (refused, cancelled): undo the one before it.
    if (!entry.steps.length) return this.undo();
    const touched: string[] = [];
    try {
      for (const step of [...entry.steps].reverse()) {
        if (step.kind === 'move') {
          await this.deps.bridge.request('workspace.move', { from: step.to, to: step.from });
          touched.push(step.to, step.from);
        } else {
          await this.deps.bridge.request('workspace.delete', { path: step.path }).catch(async (err: unknown) => {
            // What undo removes was made moments ago by Kiln; without a trash it goes for good.
            if (isNoTrash(err)) {
              await this.deps.bridge.request('workspace.delete', { path: step.path, permanent: true });
            } else throw err;
          });
          touched.push(step.path);
        }
      }
      this.deps.toasts.show({ kind: 'info', message: `Undid: ${entry.label}` });
    } catch (err) {
      this.deps.toasts.error(errorText(err, `Could not undo ${entry.label.toLowerCase()}`));
    }
    this.deps.tree.refresh(touched);
    const restored = entry.steps
      .filter((s): s is Extract<Step, { kind: 'move' }> => s.kind === 'move')
      .map((s) => s.from);
    if (restored.length) this.deps.select(restored);
  }

  // ---- internals ----

  /** One move with the conflict prompt; resolves the final path, null when skipped, 'cancel' to stop. */
  private async moveOne(from: string, to: string): Promise<string | null | 'cancel'> {
    const attempt = (target: string, onConflict: 'reject' | 'overwrite') =>
      this.withProgress(`Moving ${nameOf(from)}`, (jobId) =>
        this.deps.bridge.request('workspace.move', { from, to: target, onConflict, jobId }),
      );
    try {
      await attempt(to, 'reject');
      return to;
    } catch (err) {
      if (!(err instanceof KilnError && err.code === 'E_EXISTS')) {
        this.reportJobError(`Could not move "${nameOf(from)}"`, err);
        return 'cancel';
      }
    }
    const answer = await this.deps.ask({
      title: `"${nameOf(to)}" already exists`,
      message: `A file or folder named "${nameOf(to)}" already exists in ${parentOf(to) ? `"${parentOf(to)}"` : 'the workspace root'}. Replace it, keep both, or cancel the move?`,
      buttons: [
        { label: 'Replace', value: 'replace', danger: true },
        { label: 'Keep both', value: 'keep', primary: true },
        { label: 'Cancel', value: 'cancel' },
      ],
      cancelValue: 'cancel',
    });
    if (answer === 'cancel') return 'cancel';
    try {
      let target = to;
      if (answer === 'keep')
        target = (await this.deps.bridge.request('workspace.nextFreeName', { dir: parentOf(to), name: nameOf(to) }))
          .path;
      await attempt(target, answer === 'replace' ? 'overwrite' : 'reject');
      return target;
    } catch (err) {
      this.reportJobError(`Could not move "${nameOf(from)}"`, err);
      return 'cancel';
    }
  }

  /**
   * Opens the undo entry of an operation before it runs. Main announces a change on the feed before it
   * answers the request, so the tree can show a rename before the request resolves; an undo pressed then
   * must find the entry, and it waits for the operation to finish. `end` names the entry and drops it if
   * nothing was done.
   */
  private begin(): { steps: Step[]; end: (label: string) => void } {
    let settle = () => {};
    const entry: UndoEntry = { label: '', steps: [], settled: new Promise<void>((resolve) => (settle = resolve)) };
    this.undoStack.push(entry);
    if (this.undoStack.length > 50) this.undoStack.shift();
    return {
      steps: entry.steps,
      end: (label) => {
        entry.label = label;
        if (!entry.steps.length) {
          const at = this.undoStack.indexOf(entry);
          if (at >= 0) this.undoStack.splice(at, 1);
        }
        settle();
      },
    };
  }

  private reportJobError(prefix: string, err: unknown): void {
    if (err instanceof KilnError && err.code === 'E_CANCELLED') {
      this.deps.toasts.show({
        kind: 'info',
        message: `${prefix.replace('Could not ', '').replace(/^./, (c) => c.toUpperCase())} was cancelled; nothing was left behind.`,
      });
    } else {
      this.deps.toasts.error(errorText(err, prefix));
    }
  }

  /** Runs a copy or move with a job id; if it takes a moment, a progress toast with Cancel appears. */
  private async withProgress<T>(label: string, run: (jobId: string) => Promise<T>): Promise<T> {
    const jobId = crypto.randomUUID();
    let toastId: number | null = null;
    let latest = { done: 0, total: 0 };
    const cancel = () => void this.deps.bridge.request('workspace.cancelJob', { jobId });
    const showToast = () => {
      toastId = this.deps.toasts.show({
        kind: 'progress',
        message: progressText(label, latest.done, latest.total),
        progress: latest.total ? latest.done / latest.total : 0,
        actions: [{ label: 'Cancel', run: cancel }],
      });
    };
    const timer = setTimeout(showToast, PROGRESS_DELAY_MS);
    const off = this.deps.bridge.on('fs.progress', (p) => {
      if (p.jobId !== jobId || p.finished) return;
      latest = p;
      if (toastId !== null)
        this.deps.toasts.update(toastId, {
          message: progressText(label, p.done, p.total),
          progress: p.total ? p.done / p.total : 0,
        });
    });
    try {
      return await run(jobId);
    } finally {
      clearTimeout(timer);
      off();
      if (toastId !== null) this.deps.toasts.close(toastId);
    }
  }
}

function progressText(label: string, done: number, total: number): string {
  return total > 1 ? `${label}… ${done.toLocaleString()} of ${total.toLocaleString()} files` : `${label}…`;
}

/** The delete failed only because this filesystem has no trash. */
function isNoTrash(err: unknown): boolean {
  return isKilnError(err, 'E_PERMISSION') && err.details?.noTrash === true;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;
}
