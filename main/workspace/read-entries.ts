import type { EntryKind, Listing } from '../../shared/contract';
import { kindLetter } from '../../shared/listing';
import { NameColumns } from '../../shared/natural-sort';

/**
 * A folder as read: its entries as columns (names, which are folders) plus each one's letter in a Listing's
 * `kinds` (upper case for a link), as a character code. No object per entry.
 */
export class FolderRead extends NameColumns {
  constructor(
    names: string[],
    dirs: Uint8Array,
    readonly letters: Uint8Array,
  ) {
    super(names, dirs);
  }
}

/** Collects a folder's entries as they are read: at most as many as its read returned. */
export class FolderReadBuilder {
  private readonly names: string[] = [];
  private readonly dirs: Uint8Array;
  private readonly letters: Uint8Array;

  constructor(capacity: number) {
    this.dirs = new Uint8Array(capacity);
    this.letters = new Uint8Array(capacity);
  }

  add(name: string, kind: EntryKind, link: boolean): void {
    const i = this.names.length;
    this.names.push(name);
    this.dirs[i] = kind === 'dir' ? 1 : 0;
    this.letters[i] = LETTER_CODES[kind][link ? 1 : 0];
  }

  done(): FolderRead {
    const n = this.names.length;
    return new FolderRead(this.names, this.dirs.subarray(0, n), this.letters.subarray(0, n));
  }
}

const LETTER_CODES = Object.fromEntries(
  (['dir', 'file', 'fifo', 'socket', 'device'] as const).map((kind) => [
    kind,
    [kindLetter(kind, false).charCodeAt(0), kindLetter(kind, true).charCodeAt(0)],
  ]),
) as Record<EntryKind, [number, number]>;

/** Entries as the wire carries them: names and one kind letter each, for the entries at `order` (indices into `read`). */
export function toListing(path: string, total: number, offset: number, read: FolderRead, order: Int32Array): Listing {
  const names = new Array<string>(order.length);
  const letters = Buffer.allocUnsafe(order.length);
  for (let i = 0; i < order.length; i++) {
    names[i] = read.names[order[i]];
    letters[i] = read.letters[order[i]];
  }
  return { path, total, offset, names, kinds: letters.toString('latin1') };
}
