import { watch, type FSWatcher } from 'chokidar';
import path from 'node:path';
import type { FsChange } from '../../shared/contract';
import type { OriginLedger } from '../workspace';

export interface WorkspaceWatcherOptions {
  root: string;
  ledger: OriginLedger;
  onChange: (change: FsChange) => void;
}

const CHOKIDAR_EVENTS: Record<string, FsChange['type']> = {
  add: 'file_created',
  change: 'file_updated',
  unlink: 'file_deleted',
  addDir: 'dir_created',
  unlinkDir: 'dir_deleted',
};

// Kiln's own temp files, VCS internals and dependency trees are noise for the tree.
const IGNORED = /(^|[/\\])(\.kiln-[0-9a-f]+\.tmp|\.git|node_modules|__pycache__|\.ipynb_checkpoints)([/\\]|$)/;

/** Watches the workspace and reports every change with who made it. */
export class WorkspaceWatcher {
  private readonly watcher: FSWatcher;
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

  private report(event: string, absPath: string): void {
    const type = CHOKIDAR_EVENTS[event];
    if (!type || absPath === this.options.root) return;
    const rel = path.relative(this.options.root, absPath).split(path.sep).join('/');
    this.options.onChange({ type, path: rel, origin: this.options.ledger.originOf(absPath) });
  }

  async dispose(): Promise<void> {
    await this.watcher.close();
  }
}
