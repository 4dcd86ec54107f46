/**
 * A key whose plain string order is the explorer's order: case- and accent-insensitive, with digit
 * runs compared as numbers ("file2" before "file10"). Sorting 100,000 names by precomputed keys is
 * clearly faster than Intl.Collator's compare, which matters for huge folders.
 */
export function naturalSortKey(name: string): string {
  // Plain ASCII names (the vast majority) skip Unicode normalization.
  let key = ASCII.test(name) ? name.toLowerCase() : name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  if (DIGIT.test(key)) key = key.replace(/\d+/g, (digits) => digits.replace(/^0+(?=\d)/, '').padStart(24, '0'));
  return key;
}

const ASCII = /^[\x20-\x7e]*$/;
const DIGIT = /\d/;

/** The explorer's order, shared by the service's listings and the tree's own inserts: folders first, then names. */
export function compareEntries(a: { kind: string; name: string }, b: { kind: string; name: string }): number {
  if (a.kind !== b.kind) return a.kind === 'dir' ? -1 : 1;
  const ka = naturalSortKey(a.name);
  const kb = naturalSortKey(b.name);
  return ka < kb ? -1 : ka > kb ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Sorts a whole listing in compareEntries' order, each key computed once (the fast path for huge folders). */
export function sortEntries<T extends { kind: string; name: string }>(entries: T[]): T[] {
  const keyed = entries.map((entry) => ({ entry, key: `${entry.kind === 'dir' ? 0 : 1}${naturalSortKey(entry.name)}` }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0));
  return keyed.map((k) => k.entry);
}
