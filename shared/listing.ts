import type { Entry, EntryKind, Listing } from './contract';

const KIND_LETTER: Record<EntryKind, string> = { dir: 'd', file: 'f', fifo: 'p', socket: 's', device: 'c' };
const LETTER_KIND: Record<string, EntryKind> = { d: 'dir', f: 'file', p: 'fifo', s: 'socket', c: 'device' };

/** One entry's letter in a Listing's `kinds`. */
export function kindLetter(kind: EntryKind, link: boolean): string {
  const letter = KIND_LETTER[kind];
  return link ? letter.toUpperCase() : letter;
}

/** The Entry a Listing's name and kind letter stand for, in the folder whose path prefix (`dir/` or '') is given. */
export function listedEntry(prefix: string, name: string, letter: string): Entry {
  const lower = letter.toLowerCase();
  const entry: Entry = { name, path: prefix + name, kind: LETTER_KIND[lower] ?? 'file', hidden: name.startsWith('.') };
  if (letter !== lower) entry.link = true;
  return entry;
}

/** Expands a Listing (or a page of one) into Entry objects, on whichever side needs them. */
export function listingEntries(listing: Listing): Entry[] {
  const prefix = listing.path ? `${listing.path}/` : '';
  const entries: Entry[] = new Array(listing.names.length);
  for (let i = 0; i < listing.names.length; i++) entries[i] = listedEntry(prefix, listing.names[i], listing.kinds[i]);
  return entries;
}
