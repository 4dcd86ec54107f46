import type { EntryKind, Listing } from '../../shared/contract';
import { kindLetter } from '../../shared/listing';
import { firstKeyed, keyed, mergeKeyed, sortKeyed, type Keyed } from '../../shared/natural-sort';

/** One entry as the folder was read, in the OS's order. */
export interface ReadEntry {
  name: string;
  kind: EntryKind;
  /** Its letter in a Listing's `kinds` (upper case for a link). */
  letter: string;
}

export function readEntry(name: string, kind: EntryKind, link: boolean): ReadEntry {
  return { name, kind, letter: kindLetter(kind, link) };
}

/** Folders smaller than this sort in about a millisecond; only bigger ones keep their order. */
const REMEMBER_FROM = 1000;
/** Beyond this share of changed entries a full sort is as cheap as a merge. */
const MERGE_UP_TO = 0.25;

/**
 * The display order of the few big folders listed last. Listing one again re-reads it and sorts only
 * what changed since (a folder of 100,000 files that gained one costs a walk, not a sort), and a first page
 * is cut from a partial sort so a huge folder's first screen never waits for the whole order.
 */
export class ListingOrders {
  private readonly folders = new Map<string, { sorted: Keyed<ReadEntry>[]; read: ReadEntry[] }>();

  constructor(private readonly capacity = 4) {}

  /** Every entry, in display order. */
  all(folderKey: string, read: ReadEntry[]): Keyed<ReadEntry>[] {
    if (read.length < REMEMBER_FROM) {
      this.folders.delete(folderKey);
      return sortKeyed(keyed(read));
    }
    const known = this.folders.get(folderKey);
    // The next page of the same read (a huge folder's rest, in pages) is the order already made.
    if (known?.read === read) return known.sorted;
    const sorted = (known && this.merged(known, read)) ?? sortKeyed(keyed(read));
    this.folders.delete(folderKey);
    this.folders.set(folderKey, { sorted, read });
    if (this.folders.size > this.capacity) this.folders.delete(this.folders.keys().next().value!);
    return sorted;
  }

  /** The first `count` entries in display order: from the known order when there is one, else a partial sort. */
  first(folderKey: string, read: ReadEntry[], count: number): Keyed<ReadEntry>[] {
    if (this.folders.has(folderKey) || read.length < REMEMBER_FROM) return this.all(folderKey, read).slice(0, count);
    return firstKeyed(keyed(read), count);
  }

  /** The known order with what changed since merged in, or undefined when so much changed that a sort is cheaper. */
  private merged(
    known: { sorted: Keyed<ReadEntry>[]; read: ReadEntry[] },
    read: ReadEntry[],
  ): Keyed<ReadEntry>[] | undefined {
    const before = letters(known.read);
    const added = read.filter((entry) => before.get(entry.name) !== entry.letter);
    if (added.length > read.length * MERGE_UP_TO) return undefined;
    // Every known entry is still there when the counts add up (names are unique); else drop those gone.
    let kept = known.sorted;
    if (kept.length + added.length !== read.length) {
      const now = letters(read);
      kept = kept.filter((k) => now.get(k.entry.name) === k.entry.letter);
    }
    return mergeKeyed(kept, keyed(added));
  }
}

function letters(read: ReadEntry[]): Map<string, string> {
  const byName = new Map<string, string>();
  for (const entry of read) byName.set(entry.name, entry.letter);
  return byName;
}

/** Entries as the wire carries them: names and one kind letter each. */
export function toListing(path: string, total: number, offset: number, page: Keyed<ReadEntry>[]): Listing {
  const names = new Array<string>(page.length);
  const kinds = new Array<string>(page.length);
  for (let i = 0; i < page.length; i++) {
    names[i] = page[i].entry.name;
    kinds[i] = page[i].entry.letter;
  }
  return { path, total, offset, names, kinds: kinds.join('') };
}
