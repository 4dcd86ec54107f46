import path from 'node:path';
import type { FileBreakpoints, FsChange } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { isWithin, pathAfterMove } from '../../shared/fs-change';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import type { KeyValueStore } from '../prefs';

/** The store key of every workspace's file breakpoints: { [workspace root]: { [relative path]: lines } }. */
const STORE_KEY = 'debuggerFileBreakpoints';

/** Where the kernel finds a workspace file: the realpath'd root (the kernel's `src/` on sys.path is under it). */
export function kernelPathOf(root: string, rel: string): string {
  return path.join(root, ...rel.split('/'));
}

/** The workspace-relative (POSIX) path of a file the kernel runs, or null when it lies outside the workspace. */
export function workspacePathOf(root: string, file: string): string | null {
  if (!path.isAbsolute(file)) return null;
  const rel = path.relative(root, path.normalize(file));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/**
 * Breakpoints in the workspace's `.py` files, kept in Kiln's state by workspace-relative path. They follow the
 * change feed: a rename or move carries them (a folder's move carries all inside it), a delete drops them.
 */
export class FileBreakpointStore implements IDisposable {
  private readonly changed = new Emitter<FileBreakpoints>({ onListenerError: logListenerError });
  /** Fires with every file's breakpoints after a set, a move or a delete changed them. */
  readonly onDidChange: Event<FileBreakpoints> = this.changed.event;

  constructor(
    private readonly root: string,
    private readonly store: KeyValueStore,
  ) {}

  all(): FileBreakpoints {
    const stored = this.store.get(STORE_KEY);
    const mine = stored && typeof stored === 'object' ? (stored as Record<string, FileBreakpoints>)[this.root] : null;
    return mine && typeof mine === 'object' ? { ...mine } : {};
  }

  set(rel: string, lines: number[]): FileBreakpoints {
    if (!rel.toLowerCase().endsWith('.py'))
      throw new KilnError('E_BAD_REQUEST', `Breakpoints are set in Python files (.py), not in "${rel}"`);
    const next = this.all();
    const sorted = [...new Set(lines)].sort((a, b) => a - b);
    if (sorted.length) next[rel] = sorted;
    else delete next[rel];
    return this.save(next);
  }

  /** Re-keys breakpoints after a move, drops them with a deleted file or folder; true when any changed. */
  applyChange(change: FsChange): boolean {
    if (change.type !== 'moved' && change.type !== 'deleted') return false;
    const before = this.all();
    const after: FileBreakpoints = {};
    let touched = false;
    for (const [rel, lines] of Object.entries(before)) {
      if (change.type === 'deleted') {
        if (isWithin(rel, change.path)) touched = true;
        else after[rel] = lines;
        continue;
      }
      const moved = pathAfterMove(rel, change.from, change.to);
      if (moved !== null) touched = true;
      // A file's breakpoints are its own: a move onto a path that had some replaces them, as the file does.
      after[moved ?? rel] = moved !== null ? lines : (after[rel] ?? lines);
    }
    if (touched) this.save(after);
    return touched;
  }

  dispose(): void {
    this.changed.dispose();
  }

  private save(next: FileBreakpoints): FileBreakpoints {
    const stored = this.store.get(STORE_KEY);
    const all = stored && typeof stored === 'object' ? { ...(stored as Record<string, FileBreakpoints>) } : {};
    all[this.root] = next;
    this.store.set(STORE_KEY, all);
    this.changed.fire(next);
    return next;
  }
}
