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

  /** This listing with an entry added in its place in the explorer's order. */
  with(name: string, letter: string): FolderListing {
    if (this.indexOf(name) >= 0) return this;
    const at = this.insertionPoint(listedEntry(this.prefix, name, letter));
    return new FolderListing(
      this.path,
      this.names.toSpliced(at, 0, name),
      this.kinds.slice(0, at) + letter + this.kinds.slice(at),
    );
  }

  /**
   * This listing with many changes at once (name to kind letter, or null for gone), in one copy: a burst of
   * thousands of changes to a folder of thousands of entries must not cost a copy per change.
   */
  withChanges(changes: ReadonlyMap<string, string | null>): FolderListing {
    const kept = [...changes.values()].includes(null) ? this.keeping((name) => changes.get(name) !== null) : this;
    const added: Array<{ entry: Entry; letter: string; at: number }> = [];
    for (const [name, letter] of changes) {
      if (letter === null || kept.indexOf(name) >= 0) continue;
      const entry = listedEntry(this.prefix, name, letter);
      added.push({ entry, letter, at: kept.insertionPoint(entry) });
    }
    if (!added.length) return kept;
    added.sort((a, b) => a.at - b.at || compareEntries(a.entry, b.entry));
    const names: string[] = [];
    const letters: string[] = [];
    let next = 0;
    for (let i = 0; i <= kept.length; i++) {
      for (; next < added.length && added[next].at === i; next++) {
        names.push(added[next].entry.name);
        letters.push(added[next].letter);
      }
      if (i < kept.length) {
        names.push(kept.names[i]);
        letters.push(kept.kinds[i]);
      }
    }
    return new FolderListing(this.path, names, letters.join(''));
  }

  private keeping(keep: (name: string) => boolean): FolderListing {
    const names: string[] = [];
    const letters: string[] = [];
    for (let i = 0; i < this.names.length; i++) {
      if (!keep(this.names[i])) continue;
      names.push(this.names[i]);
      letters.push(this.kinds[i]);
    }
    return new FolderListing(this.path, names, letters.join(''));
  }

  /** Where an entry goes in the explorer's order (a binary search). */
  private insertionPoint(added: Entry): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (compareEntries(this.entry(mid), added) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
