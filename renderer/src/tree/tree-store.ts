import type { Entry, FsChange, KilnBridge } from '../../../shared/contract';
import { kindLetter } from '../../../shared/listing';
import { Store, errorText } from '../base';
import { ChangeMarks } from './change-marks';
import { FolderListing } from './folder-listing';
import { isWithin, nameOf, parentOf } from './paths';
import { TreeRows } from './tree-rows';

export type { TreeRow } from './tree-rows';

export interface TreeState {
  /** The visible rows; a new object whenever anything shown changed. */
  rows: TreeRows;
  /** The root's listing has arrived (an empty folder says so). */
  rootListed: boolean;
  hiddenShown: boolean;
}

const plainLetter = (isDir: boolean) => kindLetter(isDir ? 'dir' : 'file', false);

const PINNED_OPEN: ReadonlySet<string> = new Set(['src']);

/** Entries in a folder's first page: more than a tall window shows. */
const FIRST_PAGE = 200;
/** Entries per later page of a huge folder: one reply parsed and shown well within a frame's budget. */
const REST_PAGE = 20_000;

/**
 * The tree's data outside React: loaded folder listings, which folders are open, and recent
 * changes to flash. Folders load lazily on first expand; change-feed events reload only loaded folders.
 */
export class TreeStore extends Store<TreeState> {
  private children = new Map<string, FolderListing>();
  private expanded = new Set<string>(['']);
  /** Pinned folders already opened once; the operator may close them after that. */
  private readonly pinnedSeen = new Set<string>();
  private loading = new Set<string>();
  /** Flashes for recent changes and "new" badges for files an agent created. */
  readonly marks = new ChangeMarks(() => this.rowsChanged());
  private readonly pendingReloads = new Map<string, ReturnType<typeof setTimeout>>();
  /** The latest listing request per folder; an older reply arriving late must not overwrite a newer one. */
  private readonly loadSeq = new Map<string, number>();
  private seq = 0;
  /**
   * Folders being read, and those changed meanwhile: read again once the read under way has shown. What the
   * feed said of their entries meanwhile (name to kind letter, or null for gone) is newer than the reply, so it
   * wins over it: a file moved out during the read must not show in both folders until the next read.
   */
  private readonly reading = new Set<string>();
  private readonly changedWhileReading = new Map<string, Map<string, string | null>>();
  /** Called when a listing could not be read (e.g. permission denied). */
  onError: (message: string) => void = () => undefined;

  constructor(private readonly bridge: KilnBridge) {
    super({
      rows: new TreeRows({ folder: () => undefined, isExpanded: () => false, isLoading: () => false }),
      rootListed: false,
      hiddenShown: false,
    });
    this.own(bridge.on('fs.change', (change) => this.handleFsChange(change)));
    this.own(() => {
      this.marks.dispose();
      for (const timer of this.pendingReloads.values()) clearTimeout(timer);
    });
  }

  /** The visible rows, in display order. */
  rows(): TreeRows {
    return this.state.rows;
  }

  isExpanded(dir: string): boolean {
    return this.expanded.has(dir);
  }

  listing(dir: string): FolderListing | undefined {
    return this.children.get(dir);
  }

  /** A listed entry by its path. */
  entry(path: string): Entry | undefined {
    return this.children.get(parentOf(path))?.find(nameOf(path));
  }

  get hiddenShown(): boolean {
    return this.state.hiddenShown;
  }

  async setShowHidden(show: boolean): Promise<void> {
    if (show === this.state.hiddenShown) return;
    this.set({ hiddenShown: show });
    await Promise.all([...this.children.keys()].map((dir) => this.load(dir)));
  }

  /** Lists a folder; `firstShown` resolves once its first page is in the rows (the rest of a huge folder may follow). */
  async load(dir: string, firstShown?: () => void): Promise<void> {
    // A folder read again keeps its rows until the new listing is whole: a huge folder cut back to its first
    // page for a moment would move every row under the operator's keys and pointer.
    const shown = this.children.has(dir);
    if (!shown) {
      this.loading.add(dir);
      this.rowsChanged();
    }
    const mine = ++this.seq;
    this.loadSeq.set(dir, mine);
    this.reading.add(dir);
    try {
      const args = { path: dir, showHidden: this.state.hiddenShown };
      const first = await this.bridge.request('workspace.list', { ...args, limit: FIRST_PAGE });
      if (this.loadSeq.get(dir) !== mine) return;
      let listing = FolderListing.of(first);
      // The root paints with its pinned folders already open: rows that jump under the pointer a moment
      // after they appear send a click or a drag to the wrong entry.
      if (dir === '') {
        await this.openPinnedFolders(listing);
        if (this.loadSeq.get(dir) !== mine) return;
      }
      if (first.total > first.names.length) {
        // A huge folder paints its first screen now (still busy); the rest follows in pages, which main
        // answers from the folder it just read, each small enough to take in while the operator scrolls.
        if (!shown) {
          this.children.set(dir, this.withFeedSinceRead(dir, listing));
          this.rowsChanged();
        }
        firstShown?.();
        while (listing.length < first.total) {
          const page = await this.bridge.request('workspace.list', {
            ...args,
            offset: listing.length,
            limit: REST_PAGE,
          });
          if (this.loadSeq.get(dir) !== mine) return;
          if (!page.names.length) break;
          listing = listing.append(page);
          if (!shown && listing.length < first.total) {
            this.children.set(dir, this.withFeedSinceRead(dir, listing));
            this.rowsChanged();
          }
        }
      }
      this.children.set(dir, this.withFeedSinceRead(dir, listing));
      if (dir === '') void this.openPinnedFolders(listing);
    } catch (err) {
      if (this.loadSeq.get(dir) !== mine) return;
      // A folder that vanished or can't be read closes; its parent's reload will drop it.
      this.children.delete(dir);
      this.expanded.delete(dir);
      if (dir === '' || this.expanded.has(parentOf(dir))) this.onError(errorText(err));
    } finally {
      if (this.loadSeq.get(dir) === mine) {
        this.loading.delete(dir);
        this.reading.delete(dir);
        if (this.changedWhileReading.delete(dir)) this.scheduleReload(dir, 40);
      }
      this.rowsChanged();
      firstShown?.();
    }
  }

  /** `src/` (where agents keep reusable modules) opens by itself the first time it appears; `scripts/` stays closed. */
  private async openPinnedFolders(root: FolderListing): Promise<void> {
    const opening: Promise<void>[] = [];
    for (let i = 0; i < root.dirCount; i++) {
      const entry = root.entry(i);
      if (!PINNED_OPEN.has(entry.name) || this.pinnedSeen.has(entry.path)) continue;
      this.pinnedSeen.add(entry.path);
      this.expanded.add(entry.path);
      opening.push(new Promise((shown) => void this.load(entry.path, shown)));
    }
    await Promise.all(opening);
  }

  async expand(dir: string): Promise<void> {
    if (this.expanded.has(dir) && this.children.has(dir)) return;
    this.expanded.add(dir);
    this.rowsChanged();
    if (!this.children.has(dir)) await this.load(dir);
  }

  collapse(dir: string): void {
    if (dir === '' || !this.expanded.delete(dir)) return;
    this.rowsChanged();
  }

  collapseAll(): void {
    this.expanded = new Set(['']);
    this.rowsChanged();
  }

  /** Opens every folder above a path so it can be shown. */
  async reveal(path: string): Promise<void> {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) await this.expand(parts.slice(0, i).join('/'));
  }

  /**
   * A move or rename: shows the entry in its new place at once (both listings in one render),
   * keeps open folders open, and lets the next listing confirm it.
   */
  private moved(from: string, to: string, isDir: boolean): void {
    const source = this.children.get(parentOf(from));
    const entry = source?.find(nameOf(from));
    const letter = entry ? kindLetter(entry.kind, Boolean(entry.link)) : plainLetter(isDir);
    this.noteWhileReading(parentOf(from), nameOf(from), null);
    this.noteWhileReading(parentOf(to), nameOf(to), letter);
    if (source) this.children.set(parentOf(from), source.without(nameOf(from)));
    const target = this.children.get(parentOf(to));
    if (entry && target) this.children.set(parentOf(to), target.with(nameOf(to), letter));
    const next = new Set<string>();
    for (const dir of this.expanded) next.add(isWithin(dir, from) && from !== '' ? to + dir.slice(from.length) : dir);
    this.expanded = next;
    for (const key of [...this.children.keys()]) if (from !== '' && isWithin(key, from)) this.children.delete(key);
    for (const dir of this.expanded) if (!this.children.has(dir) && dir !== '') void this.load(dir);
    this.rowsChanged();
  }

  /** Drops a deleted entry at once; the next listing confirms it. */
  private removed(path: string): void {
    const list = this.children.get(parentOf(path));
    if (list) this.children.set(parentOf(path), list.without(nameOf(path)));
    for (const key of [...this.children.keys()]) if (isWithin(key, path)) this.children.delete(key);
    this.expanded.delete(path);
    this.rowsChanged();
  }

  /** Re-reads the folders that hold these paths (after an operation, before the watcher says so). */
  refresh(paths: string[]): void {
    for (const dir of new Set(paths.map(parentOf))) if (this.isListed(dir)) this.scheduleReload(dir, 0);
  }

  /** Listed or being listed: a change in a folder whose listing is on its way may have come after main read it. */
  private isListed(dir: string): boolean {
    return this.children.has(dir) || this.loading.has(dir);
  }

  /** Follows the change feed: a move is applied whole (one event for a folder and all it holds). */
  private handleFsChange(change: FsChange): void {
    this.marks.apply(change);
    if (change.type === 'moved') {
      this.moved(change.from, change.to, change.isDir);
      for (const dir of new Set([parentOf(change.from), parentOf(change.to)]))
        if (this.isListed(dir)) this.scheduleReload(dir, 40);
      return;
    }
    if (change.type === 'createdFiles') {
      // One reload of the folder for the whole batch.
      for (const name of change.names) this.noteWhileReading(change.dir, name, plainLetter(false));
      if (this.isListed(change.dir)) this.scheduleReload(change.dir, 40);
      return;
    }
    const dir = parentOf(change.path);
    if (change.type !== 'updated')
      this.noteWhileReading(dir, nameOf(change.path), change.type === 'deleted' ? null : plainLetter(change.isDir));
    if (change.type === 'deleted') this.removed(change.path);
    if (this.isListed(dir)) this.scheduleReload(dir, 40);
  }

  /** Keeps what the feed says of a folder being read (or only that it changed) for when its reply comes. */
  private noteWhileReading(dir: string, name?: string, letter?: string | null): void {
    if (!this.reading.has(dir)) return;
    let said = this.changedWhileReading.get(dir);
    if (!said) this.changedWhileReading.set(dir, (said = new Map()));
    if (name === undefined || letter === undefined) return;
    // A hidden name the listing leaves out stays out.
    if (letter !== null && name.startsWith('.') && !this.state.hiddenShown) return;
    said.set(name, letter);
  }

  /** A folder's reply with what the feed said of it since the read began. */
  private withFeedSinceRead(dir: string, listing: FolderListing): FolderListing {
    const said = this.changedWhileReading.get(dir);
    return said ? listing.withChanges(said) : listing;
  }

  /** Bursts of events (a copied folder, a git checkout) coalesce into one listing per folder. */
  private scheduleReload(dir: string, delayMs: number): void {
    if (this.pendingReloads.has(dir)) return;
    this.pendingReloads.set(
      dir,
      setTimeout(() => {
        this.pendingReloads.delete(dir);
        // Not a new read over one under way: a steady stream of changes would restart it for ever.
        if (this.reading.has(dir)) this.noteWhileReading(dir);
        else void this.load(dir);
      }, delayMs),
    );
  }

  /** Something shown changed: new rows (built lazily, see TreeRows) for the next render. */
  private rowsChanged(): void {
    const rows = new TreeRows({
      folder: (path) => this.children.get(path),
      isExpanded: (path) => this.expanded.has(path),
      isLoading: (path) => this.loading.has(path),
    });
    this.set({ rows, rootListed: this.children.has('') });
  }
}
