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

/** Below this a plain comparison sort is as fast as packing. */
const PACKED_SORT_FROM = 512;

/**
 * Sorts keyed entries in place, in compareEntries' order (a big folder natively, see packedOrder).
 */
export function sortKeyed<T>(items: Keyed<T>[]): Keyed<T>[] {
  const n = items.length;
  if (n < PACKED_SORT_FROM) return items.sort(byKey);
  const order = packedOrder(
    n,
    (i, out, limit) => copyChars(items[i].key, out, limit),
    (i) => items[i].key,
  );
  const ordered = new Array<Keyed<T>>(n);
  for (let i = 0; i < n; i++) ordered[i] = items[order[i]];
  for (let i = 0; i < n; i++) items[i] = ordered[i];
  return items;
}

/**
 * A whole listing in compareEntries' order, as a new array. A big folder's keys are never built as
 * strings: each name's characters of its key are written straight into the packed sort (keys of 10,000
 * names were half a cold listing's sort, and garbage that outlived the request); only names whose packed
 * characters tie get their full key.
 */
export function sortEntries<T extends Named>(entries: T[]): T[] {
  const n = entries.length;
  if (n < PACKED_SORT_FROM)
    return keyed(entries)
      .sort(byKey)
      .map((k) => k.entry);
  // Names beyond printable ASCII take naturalSortKey's Unicode path: their key is built, once.
  const slowKeys = new Array<string | undefined>(n);
  const order = packedOrder(
    n,
    (i, out, limit) => {
      const entry = entries[i];
      if (slowKeys[i] === undefined && isPrintableAscii(entry.name)) return asciiKeyChars(entry, out, limit);
      return copyChars((slowKeys[i] ??= entrySortKey(entry)), out, limit);
    },
    (i) => entrySortKey(entries[i]),
  );
  const ordered = new Array<T>(n);
  for (let i = 0; i < n; i++) ordered[i] = entries[order[i]];
  return ordered;
}

function isPrintableAscii(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

function copyChars(key: string, out: Uint16Array, limit: number): number {
  const end = Math.min(limit, key.length);
  for (let i = 0; i < end; i++) out[i] = key.charCodeAt(i);
  return end;
}

/**
 * The first `limit` characters of entrySortKey(entry) for a printable-ASCII name, written into `out`
 * without building the key (the same steps as naturalSortKey's ASCII path); returns how many were written.
 */
function asciiKeyChars(entry: Named, out: Uint16Array, limit: number): number {
  const name = entry.name;
  const length = name.length;
  let n = 0;
  if (n < limit) out[n++] = entry.kind === 'dir' ? 48 : 49;
  for (let i = 0; i < length && n < limit; i++) {
    const c = name.charCodeAt(i);
    if (!isDigit(c)) {
      out[n++] = c >= 65 && c <= 90 ? c + 32 : c;
      continue;
    }
    let end = i + 1;
    while (end < length && isDigit(name.charCodeAt(end))) end++;
    let start = i;
    while (start < end - 1 && name.charCodeAt(start) === 48) start++;
    const digits = end - start;
    if (digits <= 9) out[n++] = 47 + digits;
    else {
      out[n++] = 57;
      for (let pad = digits; pad < 24 && n < limit; pad++) out[n++] = 48;
    }
    for (let k = start; k < end && n < limit; k++) out[n++] = name.charCodeAt(k);
    i = end - 1;
  }
  if (n < limit) out[n++] = 0;
  for (let i = 0; i < length && n < limit; i++) out[n++] = name.charCodeAt(i);
  return n;
}

/** How many key characters the shared-prefix scan looks at: a longer common prefix is rare and only costs ties. */
const SHARED_SCAN = 64;

/**
 * The order of n keys, sorted natively instead of with a JS comparator (whose ~130,000 calls for 10,000
 * names were most of a cold listing's sort): each key's first characters after the prefix all keys share
 * are packed with its index into one float, a Float64Array sorts those, and only runs whose packed
 * characters tie are then ordered by their full keys. `chars(i, out, limit)` writes key i's first
 * characters (at most limit) and returns how many it wrote.
 */
function packedOrder(
  n: number,
  chars: (i: number, out: Uint16Array, limit: number) => number,
  fullKey: (i: number) => string,
): Int32Array {
  const first = new Uint16Array(SHARED_SCAN);
  const scratch = new Uint16Array(SHARED_SCAN + 64);
  let shared = chars(0, first, SHARED_SCAN);
  for (let i = 1; i < n && shared > 0; i++) {
    const end = chars(i, scratch, shared);
    let j = 0;
    while (j < end && scratch[j] === first[j]) j++;
    shared = j;
  }
  // 53 exact bits per float: the index takes the low ones, characters (7 bits if all ASCII, else 16) the rest.
  const indexBits = 32 - Math.clz32(n - 1);
  const scale = 2 ** indexBits;
  const asciiWidth = Math.floor((53 - indexBits) / 7);
  // Each key's window of characters after the shared prefix; a key that ends inside it pads with 0, tying
  // with a NUL there (the full-key pass settles such ties).
  const windows = new Uint16Array(n * asciiWidth);
  let widest = 0;
  for (let i = 0; i < n; i++) {
    const end = chars(i, scratch, shared + asciiWidth);
    for (let j = shared; j < end; j++) {
      const c = scratch[j];
      windows[i * asciiWidth + j - shared] = c;
      if (c > widest) widest = c;
    }
  }
  const charBits = widest > 127 ? 16 : 7;
  const width = charBits === 7 ? asciiWidth : Math.floor((53 - indexBits) / 16);
  const base = 2 ** charBits;
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let prefix = 0;
    for (let j = 0; j < width; j++) prefix = prefix * base + windows[i * asciiWidth + j];
    packed[i] = prefix * scale + i;
  }
  packed.sort();
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = packed[i] % scale;
  for (let start = 0; start < n;) {
    const prefix = Math.floor(packed[start] / scale);
    let end = start + 1;
    while (end < n && Math.floor(packed[end] / scale) === prefix) end++;
    if (end - start > 1) {
      const run = Array.from(order.subarray(start, end), (index) => ({ index, key: fullKey(index) }));
      run.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (let i = 0; i < run.length; i++) order[start + i] = run[i].index;
    }
    start = end;
  }
  return order;
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
 * Merges new entries into a list already in compareEntries' order: the cost of a re-listing where a few
 * entries came is a copy of the list and, per new entry, the keys of a binary search, not a sort (the
 * list's own keys are never all built).
 */
export function mergeEntries<T extends Named>(sorted: T[], added: T[]): T[] {
  if (!added.length) return sorted;
  const adding = sortKeyed(keyed(added));
  const out: T[] = [];
  let from = 0;
  for (const { key, entry } of adding) {
    let low = from;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (entrySortKey(sorted[mid]) < key) low = mid + 1;
      else high = mid;
    }
    for (let i = from; i < low; i++) out.push(sorted[i]);
    out.push(entry);
    from = low;
  }
  for (let i = from; i < sorted.length; i++) out.push(sorted[i]);
  return out;
}
