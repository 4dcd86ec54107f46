import type { EntryKind, Listing } from '../../shared/contract';
import { kindLetter } from '../../shared/listing';
import { SortableEntry } from '../../shared/natural-sort';

/** One entry as the folder was read; the listing sorts these themselves (one object per entry, not two). */
export class ReadEntry extends SortableEntry {
  constructor(
    name: string,
    kind: EntryKind,
    /** Its letter in a Listing's `kinds` (upper case for a link). */
    readonly letter: string,
  ) {
    super(name, kind);
  }
}

export function readEntry(name: string, kind: EntryKind, link: boolean): ReadEntry {
  return new ReadEntry(name, kind, kindLetter(kind, link));
}

/** Entries as the wire carries them: names and one kind letter each. */
export function toListing(path: string, total: number, offset: number, page: ReadEntry[]): Listing {
  const names = new Array<string>(page.length);
  const kinds = new Array<string>(page.length);
  for (let i = 0; i < page.length; i++) {
    names[i] = page[i].name;
    kinds[i] = page[i].letter;
  }
  return { path, total, offset, names, kinds: kinds.join('') };
}
