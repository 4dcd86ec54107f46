import type { Entry } from '../../../shared/contract';
import type { FolderListing } from './folder-listing';
import { nameOf, parentOf } from './paths';

export interface TreeRow {
  entry: Entry;
  depth: number;
  expanded: boolean;
  /** True while a folder's listing is on its way (a huge folder's first page may already show). */
  loading: boolean;
}

/** A run of one folder's entries shown one after another, from row `start` on. */
interface Segment {
  folder: FolderListing;
  depth: number;
  from: number;
  to: number;
  start: number;
}

export interface RowSource {
  folder(path: string): FolderListing | undefined;
  isExpanded(path: string): boolean;
  isLoading(path: string): boolean;
}

/**
 * The tree's visible rows, in display order, without a row object per entry: a run of a folder's entries
 * up to the next open subfolder is one segment, and a row is found by a binary search over the segments.
 * Opening a folder of 100,000 files adds a segment, not 100,000 rows; building costs only the folders'
 * subfolders (folders come first in a listing).
 */
export class TreeRows {
  private readonly segments: Segment[] = [];
  readonly length: number;

  constructor(private readonly source: RowSource) {
    let start = 0;
    const visit = (folder: FolderListing, depth: number) => {
      let from = 0;
      for (let i = 0; i < folder.dirCount; i++) {
        const dir = folder.entry(i).path;
        const open = source.isExpanded(dir) ? source.folder(dir) : undefined;
        if (!open) continue;
        this.segments.push({ folder, depth, from, to: i + 1, start });
        start += i + 1 - from;
        visit(open, depth + 1);
        from = i + 1;
      }
      if (from < folder.length) {
        this.segments.push({ folder, depth, from, to: folder.length, start });
        start += folder.length - from;
      }
    };
    const root = source.folder('');
    if (root) visit(root, 0);
    this.length = start;
  }

  at(index: number): TreeRow | undefined {
    if (index < 0 || index >= this.length) return undefined;
    let low = 0;
    let high = this.segments.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.segments[mid].start <= index) low = mid;
      else high = mid - 1;
    }
    const segment = this.segments[low];
    const entry = segment.folder.entry(segment.from + index - segment.start);
    const expanded = entry.kind === 'dir' && this.source.isExpanded(entry.path);
    return { entry, depth: segment.depth, expanded, loading: expanded && this.source.isLoading(entry.path) };
  }

  /** The row of a path, or -1 when it is not shown. */
  indexOf(path: string | null): number {
    if (path === null) return -1;
    const folder = this.source.folder(parentOf(path));
    const at = folder ? folder.indexOf(nameOf(path)) : -1;
    if (at < 0) return -1;
    for (const segment of this.segments) {
      if (segment.folder === folder && at >= segment.from && at < segment.to) return segment.start + at - segment.from;
    }
    return -1;
  }

  /** The paths of rows `from` to `to` (inclusive, either order). */
  pathsBetween(from: number, to: number): string[] {
    const out: string[] = [];
    for (let i = Math.max(0, Math.min(from, to)); i <= Math.min(this.length - 1, Math.max(from, to)); i++)
      out.push(this.at(i)!.entry.path);
    return out;
  }
}
