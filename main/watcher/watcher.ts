import type { FSWatcher, Stats } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FsChange, WatchDegraded } from '../../shared/contract';
import type { OriginLedger } from '../workspace';
import { DEFAULT_WATCH_EXCLUDES, ExcludeMatcher } from './excludes';
import { createLogger } from '../log';
import { Emitter, type Event } from '../../shared/base/event';
import { defaultWatchFolder, degradedStatus, type Folder, type FolderWatchFactory } from './folder-watch';
import { FileMoves, fileIdentity } from './file-identities';

const log = createLogger('watcher');
// Made once: they sit on the watcher's busiest paths. A folder or entry that went away between its event and the
// look at it is the race every watcher lives with: the event that removed it is reported by its parent.
const folderGone = log.caught('a folder went away or became unreadable before it was read; its parent reports it', []);
const entryGone = log.caught('an entry went away before it was examined; its removal is reported instead', null);
const folderGoneNull = log.caught('a folder went away or became unreadable before it was rescanned', null);

export interface WorkspaceWatcherOptions {
  root: string;
  ledger: OriginLedger;
  /** Exclude patterns (see ExcludeMatcher); default DEFAULT_WATCH_EXCLUDES. */
  exclude?: readonly string[];
  /** How often folders shown without a watch are re-read (default 2000 ms). */
  pollMs?: number;
  /** Tests inject an OS that refuses watches. */
  watchFolder?: FolderWatchFactory;
}

type ObservedChange = Extract<FsChange, { type: 'created' | 'updated' | 'deleted' }>;

/** How long events gather before they are compared with the disk. */
const SETTLE_MS = 100;

/** How many unwatched folders and files are polled at most (the most recently shown ones). */
const MAX_POLLED = 64;

/** Watches the workspace folder by folder and reports every change with who made it. */
export class WorkspaceWatcher {
  private readonly folders = new Map<string, Folder>();
  /** Every folder walked, by inode, until its watch is closed (a detached folder stays until its drain ends). */
  private readonly byInode = new Map<string, Folder>();
  private readonly matcher: ExcludeMatcher;
  private readonly watchFolder: FolderWatchFactory;
  /**
   * Children with pending events, handled one at a time so a create-then-delete never reorders. Held by
   * folder, not path: a folder renamed before its events settle takes them along to its new place.
   */
  private readonly pending = new Map<string, { folder: Folder; name: string }>();
  private nextFolderId = 0;
  /** Watched folders that vanished in this drain, by inode: one that reappears elsewhere was moved. */
  private readonly detached = new Map<string, Folder[]>();
  /** Early watches still walking, so a folder settles only once its walk is complete. */
  private readonly early = new Map<string, Promise<void>>();
  /** New names still being looked at, any of which may be a watched folder renamed: nothing settles before they are. */
  private readonly recognizing = new Set<Promise<unknown>>();
  /** Old path → new path of watched folders seen renamed before their events settled. */
  private readonly renamed = new Map<string, string>();
  /** Another program's rename of a file whose identity is known is reported as its move. */
  private readonly moves = new FileMoves();
  private draining = false;
  private degradedStatus: WatchDegraded | null = null;
  /** Folders and files the operator is looking at that have no watch: polled, newest last. */
  private readonly polled = new Map<string, { kind: 'dir' | 'file'; mtimeMs: number }>();
  private pollTimer?: NodeJS.Timeout;
  private disposed = false;
  private readonly changeEmitter = new Emitter<FsChange>();
  private readonly degradedEmitter = new Emitter<WatchDegraded>();
  /** What another program changed, with its origin from the ledger. */
  readonly onDidChange: Event<FsChange> = this.changeEmitter.event;
  /** Fired once, when the OS refuses more watches and part of the workspace falls back to polling. */
  readonly onDidDegrade: Event<WatchDegraded> = this.degradedEmitter.event;
  /** Resolves when the first walk has finished (tests; nothing in start-up waits for it). */
  readonly ready: Promise<void>;

  constructor(private readonly options: WorkspaceWatcherOptions) {
    this.matcher = new ExcludeMatcher(options.exclude ?? DEFAULT_WATCH_EXCLUDES);
    this.watchFolder = options.watchFolder ?? defaultWatchFolder;
    this.ready = this.addTree(options.root, false);
  }

  /** Null while every folder is watched; else what degraded and how to raise the limit. */
  get degraded(): WatchDegraded | null {
    return this.degradedStatus;
  }

  /** Whether a workspace-relative path is outside what is watched (other indexes of the tree honour the same). */
  excludes(relPath: string): boolean {
    return this.matcher.excludesPath(relPath);
  }

  /**
   * Whether one entry is excluded by its own path and name, its folders not considered: for a walk that
   * never enters an excluded folder, so each entry costs one check instead of one per ancestor.
   */
  excludesEntry(relPath: string, name: string): boolean {
    return this.matcher.excludes(relPath, name);
  }

  /** How many folders hold a watch (one inotify watch each). */
  get watchCount(): number {
    let count = 0;
    for (const folder of this.folders.values()) if (folder.watcher) count++;
    return count;
  }

  /**
   * The operator is looking at this folder (listed) or file (opened). Watched ones need nothing; without a
   * watch (the OS refused one, or the path is excluded) it is polled while it stays among the recent ones.
   * Resolves once what the folder holds now is known, so only what comes after is reported.
   */
  async noteShown(absPath: string, kind: 'dir' | 'file'): Promise<void> {
    if (this.disposed) return;
    if (this.folders.get(kind === 'dir' ? absPath : path.dirname(absPath))?.watcher) return;
    // Not degraded and not excluded: the walk has yet to reach it and will watch it.
    if (!this.degradedStatus && !this.isUnderExcluded(absPath)) return;
    const previous = this.polled.get(absPath);
    this.polled.delete(absPath);
    this.polled.set(absPath, previous ?? { kind, mtimeMs: -1 });
    if (this.polled.size > MAX_POLLED) {
      const oldest = this.polled.keys().next().value!;
      this.polled.delete(oldest);
      if (!this.folders.get(oldest)?.watcher) this.folders.delete(oldest);
    }
    if (previous) return;
    this.pollTimer ??= setInterval(() => void this.pollAll(), this.options.pollMs ?? 2000).unref();
    if (kind === 'file') return this.pollOnce(absPath);
    if (this.folders.has(absPath)) return;
    // Its children as they are now are not news: learn them silently.
    const folder: Folder = { id: this.nextFolderId++, path: absPath, inode: '', watcher: null, names: new Set() };
    this.folders.set(absPath, folder);
    const names = await readdir(absPath).catch(folderGone);
    for (const name of names) if (!this.isExcluded(path.join(absPath, name))) folder.names.add(name);
  }

  /** An owner keeps state for this file (breakpoints): its identity is learned, so another program's rename is a move. */
  async learnIdentity(absPath: string): Promise<void> {
    const info = await lstat(absPath).catch(entryGone);
    if (info?.isFile() && !this.disposed) this.moves.remember(absPath, fileIdentity(info));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.pollTimer);
    this.closeDetached();
    for (const folder of this.folders.values()) folder.watcher?.close();
    this.folders.clear();
    this.changeEmitter.dispose();
    this.degradedEmitter.dispose();
  }

  // ---- the walk ----

  /**
   * Watches a folder and every real folder under it, breadth-first. `report` says whether what is found is
   * news (a folder that appeared while Kiln ran) or the state at start-up.
   */
  private async addTree(absDir: string, report: boolean): Promise<void> {
    const queue = [absDir];
    while (queue.length && !this.disposed) {
      const dir = queue.shift()!;
      // Once the OS has refused a watch, the rest of the walk would only cost memory: folders are polled when shown.
      if (this.degradedStatus) return;
      queue.push(...(await this.addFolder(dir, report)));
    }
  }

  /** Watches one folder, records its children, and returns its real subfolders to walk. */
  private async addFolder(dir: string, report: boolean): Promise<string[]> {
    if (this.folders.has(dir)) return [];
    const info = await lstat(dir).catch(entryGone);
    if (!info?.isDirectory()) return [];
    // A bind mount can make a folder its own descendant; each inode is walked once.
    const inode = `${info.dev}:${info.ino}`;
    if (this.byInode.has(inode)) return [];
    const folder: Folder = { id: this.nextFolderId++, path: dir, inode, watcher: null, names: new Set() };
    folder.watcher = this.startWatch(folder);
    if (this.degradedStatus && !folder.watcher) return [];
    this.byInode.set(inode, folder);
    this.folders.set(dir, folder);
    // Watch first, then read: a child created in between is seen by one or the other.
    const entries = await readdir(dir, { withFileTypes: true }).catch(folderGone);
    const subdirs: string[] = [];
    const relDir = this.relativeOf(dir);
    for (const entry of entries) {
      const child = dir + path.sep + entry.name;
      if (this.matcher.excludes(relDir ? `${relDir}/${entry.name}` : entry.name, entry.name)) continue;
      if (folder.names.has(entry.name)) continue;
      folder.names.add(entry.name);
      const isDir = entry.isDirectory();
      if (isDir) subdirs.push(child);
      if (report) this.emit('created', child, isDir);
    }
    return subdirs;
  }

  private startWatch(folder: Folder): FSWatcher | null {
    if (this.degradedStatus || this.disposed) return null;
    try {
      // Events go to the folder, not its path: inotify follows a renamed folder, and so do they.
      const watcher = this.watchFolder(folder.path, (_event, name) => this.onEvent(folder, name));
      folder.selfName = path.basename(folder.path);
      // A watch that fails later (its folder removed, the OS out of resources) closes quietly: the parent's
      // watch reports the removal, and a resource error degrades once.
      watcher.on('error', (err: NodeJS.ErrnoException) => {
        watcher.close();
        if (folder.watcher === watcher) folder.watcher = null;
        if (err.code === 'ENOSPC' || err.code === 'EMFILE') this.degrade(err.code);
      });
      return watcher;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EMFILE') this.degrade(code);
      return null;
    }
  }

  private degrade(code: 'ENOSPC' | 'EMFILE'): void {
    if (this.degradedStatus) return;
    this.degradedStatus = degradedStatus(code, this.watchCount);
    this.degradedEmitter.fire(this.degradedStatus);
  }

  // ---- events ----

  private onEvent(folder: Folder, name: string | null): void {
    if (this.disposed) return;
    if (name === null) {
      // The OS lost track of what changed (queue overflow): re-read the folder.
      void this.pollOnce(folder.path);
      return;
    }
    const child = path.join(folder.path, name);
    if (this.isExcluded(child)) return;
    this.queue(folder, name);
    if (!folder.names.has(name) && !this.early.has(child)) this.watchEarly(child);
  }

  private queue(folder: Folder, name: string): void {
    this.pending.set(`${folder.id}/${name}`, { folder, name });
    this.scheduleDrain();
  }

  /**
   * A new folder is watched at once, silently, so what happens in it during the settle window is seen; its
   * contents are reported when it settles. A watched folder found under a new name was renamed: its watch
   * (which inotify keeps on the folder) now stands for the new name.
   */
  private watchEarly(child: string): void {
    const recognized = this.followRename(child);
    this.recognizing.add(recognized);
    const early = recognized
      .finally(() => this.recognizing.delete(recognized))
      .then((isNew) => (isNew ? this.addTree(child, false) : undefined))
      .finally(() => this.early.delete(child));
    this.early.set(child, early);
  }

  /** Follows a watched folder renamed to `child`; resolves true when `child` is instead a new folder to walk. */
  private async followRename(child: string): Promise<boolean> {
    const info = await lstat(child).catch(entryGone);
    if (!info?.isDirectory() || this.disposed || this.folders.has(child)) return false;
    const parent = this.folders.get(path.dirname(child));
    if (!parent?.watcher) return false;
    const inode = `${info.dev}:${info.ino}`;
    const existing = this.byInode.get(inode);
    if (existing && this.folders.get(existing.path) === existing) {
      if (
        await lstat(existing.path).then(
          () => true,
          () => false,
        )
      )
        return false;
      const oldTop = existing.path;
      for (const [dir, folder] of [...this.folders]) {
        if (dir !== oldTop && !dir.startsWith(oldTop + path.sep)) continue;
        this.folders.delete(dir);
        folder.path = child + dir.slice(oldTop.length);
        this.folders.set(folder.path, folder);
      }
      this.renamed.set(oldTop, child);
      for (const [from, to] of this.moves.moveTree(oldTop, child)) this.emitMove(from, to);
      return false;
    }
    return true;
  }

  /**
   * Events settle after a short quiet spell: a save's truncate-and-write is one change, not two, and Kiln's
   * own operation has reported itself to the feed before the watcher's echo of it arrives.
   */
  private scheduleDrain(): void {
    if (this.draining) return;
    this.draining = true;
    setTimeout(() => void this.drain(), SETTLE_MS);
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size && !this.disposed) {
        // An event in a renamed folder can come before the rename is recognized: settle it at the new place.
        if (this.recognizing.size) await Promise.all(this.recognizing);
        const [key, { folder, name }] = this.pending.entries().next().value!;
        this.pending.delete(key);
        await this.settle(folder, name);
      }
    } finally {
      this.draining = false;
      for (const file of this.moves.takeUnmatched()) this.emit('deleted', file, false);
      this.closeDetached();
    }
  }

  /** Compares one child with what was known of it and reports the difference. */
  private async settle(folder: Folder, name: string): Promise<void> {
    // Gone or detached: the event of its parent reports it, and a reattach re-reads it.
    if (this.folders.get(folder.path) !== folder) return;
    const child = path.join(folder.path, name);
    await this.early.get(child);
    const info = await this.lookBetweenOwnOperations(child);
    const known = folder.names.has(name);
    if (!info) {
      // The folder's own event (see selfName): its parent's watch reports what became of it.
      if (!known && name === folder.selfName) return;
      // Unknown and gone: it came and went between two looks. Say so anyway: an owner may have read it meanwhile.
      folder.names.delete(name);
      const renamed = this.renamed.delete(child);
      const wasDir = renamed || this.folders.has(child);
      if (this.folders.has(child)) this.detach(child);
      // A known file may turn up under another name in this drain (a rename): said when the drain ends.
      if (wasDir || !this.moves.vanish(child)) this.emit('deleted', child, wasDir);
      return;
    }
    if (info.isDirectory()) {
      if (known) return;
      folder.names.add(name);
      this.emit('created', child, true);
      // Watched early (or renamed here): what it holds is news now.
      if (this.folders.has(child)) return this.reportContents(child);
      const moved = this.detached.get(`${info.dev}:${info.ino}`);
      if (moved) return this.reattach(moved, child);
      // Files written the instant their folder appears land before its watch exists: the walk reports them.
      // Under a polled folder (excluded, or the OS refused watches) nothing new is watched.
      if (folder.watcher) await this.addTree(child, true);
      return;
    }
    folder.names.add(name);
    const from = this.moves.arrived(child, fileIdentity(info), !known);
    if (from !== undefined) this.emitMove(from, child);
    else this.emit(known ? 'updated' : 'created', child, false);
  }

  /**
   * The child as it is on disk, looked at while none of Kiln's own operations is half done: what one did
   * reaches the feed from its own report first, so that the watcher's report of it is known as its echo.
   */
  private async lookBetweenOwnOperations(child: string): Promise<Stats | null> {
    const ledger = this.options.ledger;
    for (;;) {
      await ledger.whenIdle();
      const started = ledger.operationsStarted;
      const info = await lstat(child).catch(entryGone);
      if (ledger.operationsStarted === started) return info;
    }
  }

  /**
   * Reports everything known under a folder that has just been reported created, through its recorded
   * names: a subfolder not yet among them is reported (with what it holds) when its own event settles.
   */
  private reportContents(absDir: string): void {
    for (const name of this.folders.get(absDir)?.names ?? []) {
      const child = path.join(absDir, name);
      const isDir = this.folders.has(child);
      this.emit('created', child, isDir);
      if (isDir) this.reportContents(child);
    }
  }

  /** Takes a vanished folder and those under it off the map; closed after this drain unless it turns up elsewhere. */
  private detach(absDir: string): void {
    const subtree: Folder[] = [];
    for (const [dir, folder] of this.folders) {
      if (dir !== absDir && !dir.startsWith(absDir + path.sep)) continue;
      subtree.push(folder);
      this.folders.delete(dir);
    }
    if (subtree.length) this.detached.set(subtree[0].inode, subtree);
  }

  private closeDetached(): void {
    for (const subtree of this.detached.values()) {
      for (const folder of subtree) {
        folder.watcher?.close();
        if (this.byInode.get(folder.inode) === folder) this.byInode.delete(folder.inode);
      }
    }
    this.detached.clear();
  }

  /**
   * A watched folder moved here (same inode): its watches come along. What it holds is news at the new
   * place, and what went from it meanwhile (its events named the old place) is reported gone.
   */
  private async reattach(subtree: Folder[], newTop: string): Promise<void> {
    const oldTop = subtree[0].path;
    this.detached.delete(subtree[0].inode);
    this.moves.moveTree(oldTop, newTop);
    // What was pending in it is in the re-read below.
    const moved = new Set(subtree);
    for (const [key, { folder }] of this.pending) if (moved.has(folder)) this.pending.delete(key);
    for (const folder of subtree) {
      folder.path = newTop + folder.path.slice(oldTop.length);
      this.folders.set(folder.path, folder);
    }
    const appeared: string[] = [];
    for (const folder of subtree) {
      if (this.folders.get(folder.path) !== folder) continue;
      const entries = await readdir(folder.path, { withFileTypes: true }).catch(folderGone);
      const before = folder.names;
      folder.names = new Set();
      for (const entry of entries) {
        const child = path.join(folder.path, entry.name);
        if (this.isExcluded(child)) continue;
        folder.names.add(entry.name);
        const isDir = entry.isDirectory();
        if (isDir && !this.folders.has(child)) appeared.push(child);
        this.emit('created', child, isDir);
      }
      for (const name of before) {
        if (folder.names.has(name)) continue;
        const child = path.join(folder.path, name);
        const wasDir = this.folders.has(child);
        if (wasDir) this.detach(child);
        this.emit('deleted', child, wasDir);
      }
    }
    for (const dir of appeared) await this.addTree(dir, true);
  }

  // ---- polling (degraded or excluded folders the operator is looking at) ----

  private async pollAll(): Promise<void> {
    for (const absPath of [...this.polled.keys()]) await this.pollOnce(absPath);
  }

  private async pollOnce(absPath: string): Promise<void> {
    if (this.disposed) return;
    const polled = this.polled.get(absPath);
    if (polled?.kind === 'file') {
      const mtimeMs = (await stat(absPath).catch(entryGone))?.mtimeMs ?? -1;
      if (polled.mtimeMs !== -1 && mtimeMs !== -1 && mtimeMs !== polled.mtimeMs) this.emit('updated', absPath, false);
      polled.mtimeMs = mtimeMs;
      return;
    }
    const folder = this.folders.get(absPath);
    if (!folder) return;
    const names = await readdir(absPath).catch(folderGoneNull);
    if (!names) return;
    const now = new Set(names.filter((n) => !this.isExcluded(path.join(absPath, n))));
    for (const name of now) if (!folder.names.has(name)) this.queue(folder, name);
    for (const name of folder.names) if (!now.has(name)) this.queue(folder, name);
  }

  /** The path or one of its folders is excluded (the walk never went there). */
  private isUnderExcluded(absPath: string): boolean {
    return this.excludes(this.relativeOf(absPath));
  }

  private isExcluded(absPath: string): boolean {
    if (absPath === this.options.root) return false;
    return this.matcher.excludes(this.relativeOf(absPath), path.basename(absPath));
  }

  /** Workspace-relative, POSIX-separated; every path here lies under the root. */
  private relativeOf(absPath: string): string {
    if (absPath === this.options.root) return '';
    const rel = absPath.startsWith(this.options.root + path.sep)
      ? absPath.slice(this.options.root.length + 1)
      : path.relative(this.options.root, absPath);
    return path.sep === '/' ? rel : rel.split(path.sep).join('/');
  }

  /** What another program did: a rename of a known file (or its folder's, said first) is a move; else delete + create. */
  private emitMove(from: string, to: string): void {
    const [relFrom, relTo] = [this.relativeOf(from), this.relativeOf(to)];
    const origin = this.options.ledger.originOf(to);
    if (!this.disposed) this.changeEmitter.fire({ type: 'moved', from: relFrom, to: relTo, isDir: false, origin });
  }

  private emit(type: ObservedChange['type'], absPath: string, isDir: boolean): void {
    if (this.disposed) return;
    const rel = this.relativeOf(absPath);
    const origin = this.options.ledger.originOf(absPath);
    this.changeEmitter.fire(
      type === 'updated' ? { type, path: rel, isDir: false, origin } : { type, path: rel, isDir, origin },
    );
  }
}
