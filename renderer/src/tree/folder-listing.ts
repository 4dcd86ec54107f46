import type { Entry, Listing } from '../../../shared/contract';
import { listedEntry } from '../../../shared/listing';
import { compareEntries } from '../../../shared/natural-sort';

/**
 * One folder's entries in display order, kept as they came over the wire (names and kind letters): an
 * Entry object is made only for a row that is shown or asked for, so a folder of 100,000 files costs two
 * arrays, not 100,000 objects, when its listing arrives. Immutable: a change makes a new listing.
 */
export class FolderListing {
  private readonly made: (Entry | undefined)[];
  private byName: Map<string, number> | undefined;
  /** Folders come first in the explorer's order; this many of the entries are folders. */
  readonly dirCount: number;
  private readonly prefix: string;

  private constructor(
    readonly path: string,
    private readonly names: string[],
    private readonly kinds: string,
  ) {
    this.prefix = path ? `${path}/` : '';
    this.made = new Array(names.length);
    let dirs = 0;
    while (dirs < kinds.length && (kinds[dirs] === 'd' || kinds[dirs] === 'D')) dirs++;
    this.dirCount = dirs;
  }

  static of(listing: Listing): FolderListing {
    return new FolderListing(listing.path, listing.names, listing.kinds);
  }

  get length(): number {
    return this.names.length;
  }

  entry(index: number): Entry {
    return (this.made[index] ??= listedEntry(this.prefix, this.names[index], this.kinds[index]));
  }

  /** Where an entry of this name sits, or -1. */
  indexOf(name: string): number {
    if (!this.byName) {
      this.byName = new Map();
      for (let i = 0; i < this.names.length; i++) this.byName.set(this.names[i], i);
    }
    return this.byName.get(name) ?? -1;
  }

  find(name: string): Entry | undefined {
    const index = this.indexOf(name);
    return index < 0 ? undefined : this.entry(index);
  }

  /** Every entry (makes them all: for small folders and operator actions, not for painting). */
  entries(): Entry[] {
    return Array.from({ length: this.length }, (_, i) => this.entry(i));
  }

  /** This listing followed by the next page of the same folder. */
  append(page: Listing): FolderListing {
    return new FolderListing(this.path, this.names.concat(page.names), this.kinds + page.kinds);
  }

  without(name: string): FolderListing {
    const index = this.indexOf(name);
    if (index < 0) return this;
    return new FolderListing(
      this.path,
      this.names.toSpliced(index, 1),
      this.kinds.slice(0, index) + this.kinds.slice(index + 1),
    );
  }

  /** This listing with an entry added in its place in the explorer's order (a binary search). */
  with(name: string, letter: string): FolderListing {
    if (this.indexOf(name) >= 0) return this;
    const added = listedEntry(this.prefix, name, letter);
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareEntries(this.entry(mid), added) < 0) low = mid + 1;
      else high = mid;
    }
    return new FolderListing(
      this.path,
      this.names.toSpliced(low, 0, name),
      this.kinds.slice(0, low) + letter + this.kinds.slice(low),
    );
  }
}
