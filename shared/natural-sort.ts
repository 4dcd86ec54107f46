/**
 * A key whose plain string order is the explorer's order: case- and accent-insensitive, with digit
 * runs compared as numbers ("file2" before "file10"). Sorting 100,000 names by precomputed keys is
 * clearly faster than Intl.Collator's compare, which matters for huge folders.
 */
export function naturalSortKey(name: string): string {
  // Plain ASCII names (the vast majority) take one pass with no regex and no Unicode normalization.
  if (!ASCII.test(name)) {
    const key = name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    return DIGIT.test(key) ? key.replace(DIGITS, padDigits) : key;
  }
  let key = '';
  let runStart = -1;
  for (let i = 0; i <= name.length; i++) {
    const c = i < name.length ? name.charCodeAt(i) : -1;
    if (c >= 48 && c <= 57) {
      if (runStart < 0) runStart = i;
      continue;
    }
    if (runStart >= 0) {
      key += padDigits(name.slice(runStart, i));
      runStart = -1;
    }
    if (c >= 65 && c <= 90) key += String.fromCharCode(c + 32);
    else if (c >= 0) key += name[i];
  }
  return key;
}

const ASCII = /^[\x20-\x7e]*$/;
const DIGIT = /\d/;
const DIGITS = /\d+/g;
const ZEROS = '0'.repeat(24);

/** A run of digits without its leading zeros, left-padded to 24 so string order is number order. */
function padDigits(digits: string): string {
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++;
  const bare = start ? digits.slice(start) : digits;
  return bare.length >= 24 ? bare : ZEROS.slice(bare.length) + bare;
}

/** The explorer's order, shared by the service's listings and the tree's own inserts: folders first, then names. */
export function compareEntries(a: { kind: string; name: string }, b: { kind: string; name: string }): number {
  if (a.kind !== b.kind) return a.kind === 'dir' ? -1 : 1;
  const ka = naturalSortKey(a.name);
  const kb = naturalSortKey(b.name);
  return ka < kb ? -1 : ka > kb ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Sorts a whole listing in compareEntries' order, each key computed once (the fast path for huge folders).
 * Each entry becomes one string (folder flag, key, name, index; NUL-separated, and no name holds a NUL),
 * so the engine's native string sort does the work with no comparator call per comparison.
 */
export function sortEntries<T extends { kind: string; name: string }>(entries: T[]): T[] {
  const tagged = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    tagged[i] = `${entry.kind === 'dir' ? 0 : 1}${naturalSortKey(entry.name)}\0${entry.name}\0${i}`;
  }
  tagged.sort();
  return tagged.map((t) => entries[Number(t.slice(t.lastIndexOf('\0') + 1))]);
}
