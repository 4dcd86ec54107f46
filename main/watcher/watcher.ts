import { watch, type FSWatcher } from 'chokidar';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FsChange } from '../../shared/contract';
import type { OriginLedger } from '../workspace';

export interface WorkspaceWatcherOptions {
  root: string;
  ledger: OriginLedger;
  onChange: (change: FsChange) => void;
}

/** What another program did, as the feed names it; a rename by another program is `deleted` + `created`. */
type ObservedChange = Extract<FsChange, { type: 'created' | 'updated' | 'deleted' }>;
const CHOKIDAR_EVENTS: Record<string, Pick<ObservedChange, 'type' | 'isDir'>> = {
  add: { type: 'created', isDir: false },
  change: { type: 'updated', isDir: false },
  unlink: { type: 'deleted', isDir: false },
  addDir: { type: 'created', isDir: true },
  unlinkDir: { type: 'deleted', isDir: true },
};

// Kiln's own temp files, VCS internals and dependency trees are noise for the tree.
const IGNORED = /(^|[/\\])(\.kiln-(?:\d+-)?[0-9a-f]+\.tmp|\.git|node_modules|__pycache__|\.ipynb_checkpoints)([/\\]|$)/;
/** How long a reported creation suppresses a second report of the same path. */
const DEDUPE_MS = 2000;

/** Watches the workspace and reports every change with who made it. */
export class WorkspaceWatcher {
  private readonly watcher: FSWatcher;
  private readonly created = new Map<string, number>();
  private disposed = false;
  readonly ready: Promise<void>;

  constructor(private readonly options: WorkspaceWatcherOptions) {
    this.watcher = watch(options.root, {
      ignoreInitial: true,
      ignored: (p: string) => IGNORED.test(path.relative(options.root, p)),
      // Atomic saves (temp + rename) arrive as one change, not unlink + add.
      atomic: true,
    });
    this.watcher.on('all', (event: string, absPath: string) => this.report(event, absPath));
    this.ready = new Promise((resolve) => this.watcher.once('ready', () => resolve()));
  }

  /** Whether a workspace-relative path is outside what is watched (other indexes of the tree honour the same). */
  excludes(relPath: string): boolean {
    return IGNORED.test(relPath);
  }

  private report(event: string, absPath: string): void {
    const mapped = CHOKIDAR_EVENTS[event];
    if (!mapped || absPath === this.options.root || IGNORED.test(path.relative(this.options.root, absPath))) return;
    const { type, isDir } = mapped;
    if (type === 'created') {
      const now = Date.now();
      if (now - (this.created.get(absPath) ?? 0) < DEDUPE_MS) return;
      this.created.set(absPath, now);
      if (this.created.size > 4096) this.created.clear();
    } else if (type === 'deleted') {
      this.created.delete(absPath);
    }
    const rel = path.relative(this.options.root, absPath).split(path.sep).join('/');
    this.options.onChange({ ...mapped, path: rel, origin: this.options.ledger.originOf(absPath) } as ObservedChange);
    // A file written the instant its folder appears can land before the folder is watched; look once more.
    if (type === 'created' && isDir) setTimeout(() => void this.rescan(absPath), 150);
  }

  private async rescan(dir: string): Promise<void> {
    if (this.disposed) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const child = path.join(dir, entry.name);
      this.report(entry.isDirectory() ? 'addDir' : 'add', child);
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.watcher.close();
  }
}
