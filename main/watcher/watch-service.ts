import path from 'node:path';
import type { FsChange, WatchDegraded } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import { DisposableStore, type IDisposable } from '../../shared/base/lifecycle';
import type { OriginLedger } from '../workspace';
import type { FolderWatchFactory } from './folder-watch';
import { WorkspaceWatcher } from './watcher';

export interface WatchServiceOptions {
  root: string;
  ledger: OriginLedger;
  /** The configured `watchExclude` (null: the defaults), read again on every configuration change. */
  exclude(): readonly string[] | null;
  /** The configuration changed: the watcher restarts when its excludes did. */
  onDidChangeConfig: Event<unknown>;
  /** What the operator is shown (a folder listed, a file opened): it stays live even where no watch could be placed. */
  onDidShow?: Event<{ path: string; kind: 'dir' | 'file' }>;
  /** Tests inject an OS that refuses watches. */
  watchFolder?: FolderWatchFactory;
}

/**
 * The workspace's watch for the app: one WorkspaceWatcher at a time, replaced when `watchExclude` changes, its
 * observations and state as events. Start-up never waits for the walk; its end is reported (`onDidWalk`), so
 * whoever waits for it (the scale bench, a status line) needs no quiet window.
 */
export class WatchService implements IDisposable {
  private readonly disposables = new DisposableStore();
  private watcher: WorkspaceWatcher;
  /** The listeners of the current watcher, released when it is replaced. */
  private following: IDisposable[] = [];
  private exclude: readonly string[] | null;
  private walked = false;
  /** Files whose owners keep state for them (see keepIdentities), learned again by a restarted watcher. */
  private kept: readonly string[] = [];
  /** The operator is told once per session, even if the watcher restarts with new excludes. */
  private degradationTold = false;
  private readonly changeEmitter = this.disposables.add(new Emitter<FsChange>());
  private readonly degradeEmitter = this.disposables.add(new Emitter<WatchDegraded>());
  private readonly walkEmitter = this.disposables.add(new Emitter<{ watchedFolders: number }>());
  /** What another program changed (Kiln's own operations reach the change feed from the workspace). */
  readonly onDidChange: Event<FsChange> = this.changeEmitter.event;
  /** Part of the workspace fell back to polling; fired once per session. */
  readonly onDidDegrade: Event<WatchDegraded> = this.degradeEmitter.event;
  /** The background walk finished (again after a restart with new excludes). */
  readonly onDidWalk: Event<{ watchedFolders: number }> = this.walkEmitter.event;

  constructor(private readonly options: WatchServiceOptions) {
    this.exclude = options.exclude();
    this.watcher = this.start();
    if (options.onDidShow) this.disposables.add(options.onDidShow(({ path, kind }) => void this.noteShown(path, kind)));
    this.disposables.add(
      options.onDidChangeConfig(() => {
        const next = options.exclude();
        if (JSON.stringify(next) === JSON.stringify(this.exclude)) return;
        this.exclude = next;
        this.stopCurrent();
        this.watcher = this.start();
      }),
    );
  }

  private start(): WorkspaceWatcher {
    this.walked = false;
    const watcher = new WorkspaceWatcher({
      root: this.options.root,
      ledger: this.options.ledger,
      exclude: this.exclude ?? undefined,
      watchFolder: this.options.watchFolder,
    });
    this.following = [
      watcher.onDidChange((change) => this.changeEmitter.fire(change)),
      watcher.onDidDegrade((status) => {
        if (this.degradationTold) return;
        this.degradationTold = true;
        this.degradeEmitter.fire(status);
      }),
    ];
    for (const rel of this.kept) void watcher.learnIdentity(path.join(this.options.root, rel));
    void watcher.ready.then(() => {
      // A replaced watcher's walk is no news.
      if (watcher !== this.watcher) return;
      this.walked = true;
      this.walkEmitter.fire({ watchedFolders: watcher.watchCount });
    });
    return watcher;
  }

  private stopCurrent(): Promise<void> {
    for (const listener of this.following) listener.dispose();
    this.following = [];
    return this.watcher.dispose();
  }

  /** Resolves when the current watcher's first walk is done (tests and benches). */
  get ready(): Promise<void> {
    return this.watcher.ready;
  }

  /** What `watch.status` answers. */
  status(): { degraded: WatchDegraded | null; watchedFolders: number; walked: boolean } {
    return { degraded: this.watcher.degraded, watchedFolders: this.watcher.watchCount, walked: this.walked };
  }

  /**
   * The watcher when every change on disk reaches the feed (walked, not degraded): search keeps its lists only
   * then. A new object after a restart, so what was kept under the old one is let go.
   */
  coverage(): object | null {
    return this.walked && !this.watcher.degraded ? this.watcher : null;
  }

  /** Whether a workspace-relative path is outside what is watched (other indexes of the tree honour the same). */
  excludes(rel: string): boolean {
    return this.watcher.excludes(rel);
  }

  excludesEntry(rel: string, name: string): boolean {
    return this.watcher.excludesEntry(rel, name);
  }

  /** The operator listed a folder or opened a file: it stays live even where no watch could be placed (polled). */
  noteShown(rel: string, kind: 'dir' | 'file'): Promise<void> {
    return this.watcher.noteShown(path.join(this.options.root, rel), kind);
  }

  /**
   * Owners keep state for these files (breakpoints): their identities are known, so another program's rename or
   * move of one reaches the feed as `moved` and the state follows it. Replaces the files kept before.
   */
  async keepIdentities(rels: readonly string[]): Promise<void> {
    this.kept = rels;
    await Promise.all(rels.map((rel) => this.watcher.learnIdentity(path.join(this.options.root, rel))));
  }

  async dispose(): Promise<void> {
    await this.disposables.dispose();
    await this.stopCurrent();
  }
}
