import type { FsChange } from '../../shared/contract';
import { changedPaths } from '../../shared/fs-change';

/** A kept list is walked again after this long, whatever the feed said (it cannot see excluded folders). */
export const KEEP_NOTEBOOK_LIST_MS = 10_000;

/** Files whose change can change which notebooks ripgrep lists. */
const IGNORE_FILES = new Set(['.gitignore', '.ignore', '.rgignore']);

/** A listing of the notebooks a query covers; `complete` is false when it was cut short (cancelled, failed). */
export interface NotebookListing {
  paths: string[];
  complete: boolean;
}

/**
 * The notebooks each set of globs covers, kept between searches. Find in Files runs a search per pause in typing,
 * and listing the notebooks walks the tree a second time beside the text search (on two cores, about a tenth of a
 * frequent search's time). A kept list stands only while the change feed vouches for it: the same watcher has
 * covered the tree since the list was walked (`coverage` names it: its walk done, no watch refused; a watcher
 * restarted for new excludes missed what happened in between), and no notebook, folder or ignore file was created,
 * moved or deleted since. It is walked again after KEEP_NOTEBOOK_LIST_MS in any case, for what the watcher does
 * not see (its excluded folders).
 */
export class KeptNotebookLists {
  private readonly kept = new Map<string, { at: number; coverage: object; paths: string[] }>();
  /** Bumped by every change that can alter a listing; a walk that saw one begin under it is not kept. */
  private generation = 0;

  constructor(
    /** The watcher whose feed covers the whole tree now, or null. */
    private readonly coverage: () => object | null,
    private readonly now: () => number = Date.now,
  ) {}

  async get(globs: { include: string[]; exclude: string[] }, walk: () => Promise<NotebookListing>): Promise<string[]> {
    const key = JSON.stringify([globs.include, globs.exclude]);
    const kept = this.kept.get(key);
    if (kept && this.now() - kept.at < KEEP_NOTEBOOK_LIST_MS && kept.coverage === this.coverage()) return kept.paths;
    this.kept.delete(key);
    const generation = this.generation;
    const coverage = this.coverage();
    const at = this.now();
    const listing = await walk();
    if (coverage && listing.complete && generation === this.generation && coverage === this.coverage()) {
      this.kept.set(key, { at, coverage, paths: listing.paths });
    }
    return listing.paths;
  }

  applyChange(change: FsChange): void {
    if (!changesListings(change)) return;
    this.generation++;
    this.kept.clear();
  }
}

function changesListings(change: FsChange): boolean {
  if (change.isDir) return true;
  const paths = changedPaths(change);
  return paths.some((p) => {
    const name = p.slice(p.lastIndexOf('/') + 1);
    return IGNORE_FILES.has(name) || (change.type !== 'updated' && name.endsWith('.ipynb'));
  });
}
