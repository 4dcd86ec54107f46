/**
 * A key whose plain string order is the explorer's order: case- and accent-insensitive, with digit
 * runs compared as numbers ("file2" before "file10"). Sorting 100,000 names by precomputed keys is
 * clearly faster than Intl.Collator's compare, which matters for huge folders.
 *
 * A digit run becomes its length (as one digit character, so a run still sorts against letters as a
 * digit does) followed by its digits without leading zeros: shorter numbers first, equal lengths by their
 * digits. Keys stay about as short as names, which is what a sort of 100,000 of them spends its time on.
 */
export function naturalSortKey(name: string): string {
  if (!ASCII.test(name)) return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(DIGITS, numberKey);
  const lower = name.toLowerCase();
  let key = '';
  let copied = 0;
  for (let i = 0; i < lower.length; i++) {
    if (!isDigit(lower.charCodeAt(i))) continue;
    const start = i;
    while (i + 1 < lower.length && isDigit(lower.charCodeAt(i + 1))) i++;
    key += lower.slice(copied, start) + numberKey(lower.slice(start, i + 1));
    copied = i + 1;
  }
  return copied === 0 ? lower : key + lower.slice(copied);
}

const ASCII = /^[\x20-\x7e]*$/;
const DIGITS = /\d+/g;
const ZEROS = '0'.repeat(24);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * A digit run as it sorts: runs of 1-9 significant digits are their length ('0'..'8') and the digits;
 * longer runs are '9' and the digits left-padded to 24 (no real name holds a longer number).
 */
function numberKey(digits: string): string {
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++;
  const bare = start ? digits.slice(start) : digits;
  if (bare.length <= 9) return String.fromCharCode(47 + bare.length) + bare;
  return `9${bare.length >= 24 ? bare : ZEROS.slice(bare.length) + bare}`;
}

type Named = { kind: string; name: string };

/**
 * An entry's place in the explorer's order as one string: folders first, then the natural key, then the
 * name itself (NUL-separated; no name holds a NUL), so two entries compare with a plain `<` and no two
 * names of one folder tie.
 */
export function entrySortKey(entry: Named): string {
  return `${entry.kind === 'dir' ? 0 : 1}${naturalSortKey(entry.name)}\0${entry.name}`;
}

/** The explorer's order, shared by the service's listings and the tree's own inserts: folders first, then names. */
export function compareEntries(a: Named, b: Named): number {
  const ka = entrySortKey(a);
  const kb = entrySortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** An entry with its sort key, computed once. */
export interface Keyed<T> {
  key: string;
  entry: T;
}

export function keyed<T extends Named>(entries: T[]): Keyed<T>[] {
  const out = new Array<Keyed<T>>(entries.length);
  for (let i = 0; i < entries.length; i++) out[i] = { key: entrySortKey(entries[i]), entry: entries[i] };
  return out;
}

function byKey<T>(a: Keyed<T>, b: Keyed<T>): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Sorts keyed entries in place, in compareEntries' order. */
export function sortKeyed<T>(items: Keyed<T>[]): Keyed<T>[] {
  return items.sort(byKey);
}

/** Sorts a whole listing in compareEntries' order, each key computed once (the fast path for huge folders). */
export function sortEntries<T extends Named>(entries: T[]): T[] {
  return sortKeyed(keyed(entries)).map((k) => k.entry);
}

/**
 * The first `count` keyed entries in order, without sorting the rest: one pass keeping the best so far in
 * a bounded max-heap, so a huge folder's first screen costs its keys and about one comparison per entry.
 */
export function firstKeyed<T>(items: Keyed<T>[], count: number): Keyed<T>[] {
  if (count >= items.length) return sortKeyed(items.slice());
  const heap: Keyed<T>[] = [];
  const swap = (x: number, y: number) => ([heap[x], heap[y]] = [heap[y], heap[x]]);
  for (const item of items) {
    if (heap.length < count) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0 && heap[(i - 1) >> 1].key < heap[i].key; i = (i - 1) >> 1)
        swap(i, (i - 1) >> 1);
    } else if (count > 0 && item.key < heap[0].key) {
      heap[0] = item;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        let top = i;
        if (left < count && heap[left].key > heap[top].key) top = left;
        if (left + 1 < count && heap[left + 1].key > heap[top].key) top = left + 1;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    }
  }
  return sortKeyed(heap);
}

/**
 * Merges keyed entries into a list already in order: the cost of a re-listing where a few entries came
 * or went is one walk of the list, not a sort.
 */
export function mergeKeyed<T>(sorted: Keyed<T>[], added: Keyed<T>[]): Keyed<T>[] {
  if (!added.length) return sorted;
  sortKeyed(added);
  const out = new Array<Keyed<T>>(sorted.length + added.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < sorted.length && j < added.length) out[k++] = sorted[i].key <= added[j].key ? sorted[i++] : added[j++];
  while (i < sorted.length) out[k++] = sorted[i++];
  while (j < added.length) out[k++] = added[j++];
  return out;
}
