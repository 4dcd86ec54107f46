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
/** A digit run of up to this many significant digits is keyed by its length; a longer one is padded. */
const SHORT_RUN = 9;
/** The width a long digit run is padded to (no real name holds a longer number). */
const PADDED_RUN = 24;
const ZEROS = '0'.repeat(PADDED_RUN);

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
  if (bare.length <= SHORT_RUN) return String.fromCharCode(47 + bare.length) + bare;
  return `9${bare.length >= PADDED_RUN ? bare : ZEROS.slice(bare.length) + bare}`;
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

/**
 * A named entry whose sort key is built when first compared: a big folder's sort reads only a few
 * characters of most keys, straight from the names (see sortKeyed), so most keys are never built.
 */
export class SortableEntry implements Named {
  private sortKey: string | undefined;

  constructor(
    readonly name: string,
    readonly kind: string,
  ) {}

  get key(): string {
    return (this.sortKey ??= entrySortKey(this));
  }
}

/** Any entry, made sortable. */
export class Keyed<T extends Named> extends SortableEntry {
  constructor(readonly entry: T) {
    super(entry.name, entry.kind);
  }
}

export function keyed<T extends Named>(entries: T[]): Keyed<T>[] {
  const out = new Array<Keyed<T>>(entries.length);
  for (let i = 0; i < entries.length; i++) out[i] = new Keyed(entries[i]);
  return out;
}

function byKey(a: SortableEntry, b: SortableEntry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * Writes the entry's sort-key character codes from key position `from` up to `to` into `out` from `at`,
 * without building the key; where the key ends sooner, `out` keeps what it held (zeros). Mirrors entrySortKey and
 * naturalSortKey: up to a name's first non-ASCII character its key is the ASCII rule's (lower case, digit
 * runs as numberKey gives them), so only from there is the real key built and read.
 */
function writeKeyCodes(item: SortableEntry, from: number, to: number, out: Uint16Array, at: number): void {
  const { name, kind } = item;
  const length = name.length;
  const base = at - from;
  let n = 0;
  if (from === 0) out[base] = kind === 'dir' ? 48 : 49;
  n++;
  for (let i = 0; i < length && n < to;) {
    const c = name.charCodeAt(i);
    if (c > 127) {
      const key = item.key;
      for (const end = Math.min(to, key.length); n < end; n++) if (n >= from) out[base + n] = key.charCodeAt(n);
      return;
    }
    if (!isDigit(c)) {
      if (n >= from) out[base + n] = lowerAscii(c);
      n++;
      i++;
      continue;
    }
    let end = i + 1;
    while (end < length && isDigit(name.charCodeAt(end))) end++;
    let start = i;
    while (start < end - 1 && name.charCodeAt(start) === 48) start++;
    const digits = end - start;
    // numberKey: the run's length as one digit, or '9' and the run padded with zeros.
    if (n >= from) out[base + n] = digits <= SHORT_RUN ? 47 + digits : 57;
    n++;
    for (let zero = digits; digits > SHORT_RUN && zero < PADDED_RUN && n < to; zero++, n++) {
      if (n >= from) out[base + n] = 48;
    }
    for (let d = start; d < end && n < to; d++, n++) if (n >= from) out[base + n] = name.charCodeAt(d);
    i = end;
  }
  if (n < to) {
    if (n >= from) out[base + n] = 0;
    n++;
  }
  for (let i = 0; i < length && n < to; i++, n++) if (n >= from) out[base + n] = name.charCodeAt(i);
}

/**
 * How many leading key characters every entry shares, at least: the kind's, and the names' common
 * prefix (case-insensitive) up to its first digit or non-ASCII character, where keys and names part ways.
 */
function sharedKeyPrefix(items: SortableEntry[]): number {
  const first = items[0];
  const isDir = first.kind === 'dir';
  let shared = 0;
  while (shared < first.name.length && !isDigit(first.name.charCodeAt(shared)) && first.name.charCodeAt(shared) < 128) {
    shared++;
  }
  for (let i = 1; i < items.length; i++) {
    const { name, kind } = items[i];
    if ((kind === 'dir') !== isDir) return 0;
    const end = Math.min(shared, name.length);
    let j = 0;
    while (j < end && lowerAscii(name.charCodeAt(j)) === lowerAscii(first.name.charCodeAt(j))) j++;
    shared = j;
  }
  return 1 + shared;
}

function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/** Below this a plain comparison sort is as fast as packing. */
const PACKED_SORT_FROM = 512;

/** Past this key position a run still tied is ordered by its full keys (only names this alike get there). */
const PACKED_UP_TO = 1024;

/**
 * Sorts keyed entries in place, in compareEntries' order. A big folder is sorted natively, not with a JS
 * comparator (whose ~130,000 calls for 10,000 names were most of a cold listing's sort): the key's first
 * characters after the prefix all keys share are packed with the entry's index into one float, and a
 * Float64Array sorts those; runs that tie there are sorted the same way on the characters that follow. The
 * characters are read from the names directly, so no key is built.
 */
export function sortKeyed<S extends SortableEntry>(items: S[]): S[] {
  if (items.length < PACKED_SORT_FROM) return items.sort(byKey);
  sortPacked(items, sharedKeyPrefix(items));
  return items;
}

/** Scratch for sortPacked, grown as needed and shared by its nested calls (each is done with it before they run). */
let scratchWindows = new Uint16Array(0);
let scratchPacked = new Float64Array(0);

/**
 * Each entry's key characters from `from` (all keys alike before it), as many as fit, packed with its index
 * into one float: `packed[i]` orders as entry i's window, then i. The result lives in shared scratch,
 * read before the next packing.
 */
function packWindows(run: SortableEntry[], from: number): { packed: Float64Array; scale: number; width: number } {
  const n = run.length;
  // 53 exact bits per float: the index takes the low ones, characters (7 bits if all ASCII, else 16) the rest.
  const indexBits = Math.max(1, 32 - Math.clz32(n - 1));
  const scale = 2 ** indexBits;
  const asciiWidth = Math.floor((53 - indexBits) / 7);
  if (scratchWindows.length < n * asciiWidth) scratchWindows = new Uint16Array(n * asciiWidth);
  if (scratchPacked.length < n) scratchPacked = new Float64Array(n);
  // Each key's window; a key that ends inside it pads with 0, which no later character of another key is.
  const windows = scratchWindows;
  windows.fill(0, 0, n * asciiWidth);
  for (let i = 0; i < n; i++) writeKeyCodes(run[i], from, from + asciiWidth, windows, i * asciiWidth);
  let highest = 0;
  for (let i = 0; i < n * asciiWidth; i++) if (windows[i] > highest) highest = windows[i];
  const charBits = highest > 127 ? 16 : 7;
  const width = charBits === 7 ? asciiWidth : Math.floor((53 - indexBits) / 16);
  const base = 2 ** charBits;
  const packed = scratchPacked.subarray(0, n);
  for (let i = 0; i < n; i++) {
    let prefix = 0;
    for (let j = 0; j < width; j++) prefix = prefix * base + windows[i * asciiWidth + j];
    packed[i] = prefix * scale + i;
  }
  return { packed, scale, width };
}

/** Sorts `run` in place, its keys all alike before position `from`, on packed characters from there. */
function sortPacked<S extends SortableEntry>(run: S[], from: number): void {
  const n = run.length;
  if (from > PACKED_UP_TO) {
    run.sort(byKey);
    return;
  }
  const { packed, scale, width } = packWindows(run, from);
  packed.sort();
  const ordered = new Array<S>(n);
  for (let i = 0; i < n; i++) ordered[i] = run[packed[i] % scale];
  const ties: number[] = [];
  for (let start = 0; start < n;) {
    const prefix = Math.floor(packed[start] / scale);
    let end = start + 1;
    while (end < n && Math.floor(packed[end] / scale) === prefix) end++;
    if (end - start > 1) ties.push(start, end);
    start = end;
  }
  for (let i = 0; i < n; i++) run[i] = ordered[i];
  for (let t = 0; t < ties.length; t += 2) {
    const tied = run.slice(ties[t], ties[t + 1]);
    sortPacked(tied, from + width);
    for (let i = 0; i < tied.length; i++) run[ties[t] + i] = tied[i];
  }
}

/** Sorts a whole listing in compareEntries' order (the fast path for huge folders). */
export function sortEntries<T extends Named>(entries: T[]): T[] {
  return sortKeyed(keyed(entries)).map((k) => k.entry);
}

/**
 * The first `count` keyed entries in order, without sorting the rest. A big folder's entries are packed as
 * sortPacked packs them (no key built) and only those whose window is at most the `count`-th smallest one's
 * can be among the first: they are sorted, the rest never looked at again. A small one keeps the best so far
 * in a bounded max-heap.
 */
export function firstKeyed<S extends SortableEntry>(items: S[], count: number): S[] {
  if (count >= items.length) return sortKeyed(items.slice());
  if (count === 0) return [];
  const from = items.length < PACKED_SORT_FROM ? PACKED_UP_TO + 1 : sharedKeyPrefix(items);
  if (from > PACKED_UP_TO) return firstByHeap(items, count);
  const { packed, scale } = packWindows(items, from);
  const limit = Math.floor(smallestValues(packed, count)[0] / scale);
  const candidates: S[] = [];
  for (let i = 0; i < items.length; i++) if (Math.floor(packed[i] / scale) <= limit) candidates.push(items[i]);
  return sortKeyed(candidates).slice(0, count);
}

/** The `count` smallest of `values` (count ≥ 1) as a max-heap: the largest of them first. */
function smallestValues(values: Float64Array, count: number): Float64Array {
  const heap = new Float64Array(count);
  let size = 0;
  for (let v = 0; v < values.length; v++) {
    const value = values[v];
    if (size < count) {
      let i = size++;
      for (; i > 0 && heap[(i - 1) >> 1] < value; i = (i - 1) >> 1) heap[i] = heap[(i - 1) >> 1];
      heap[i] = value;
    } else if (value < heap[0]) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= count) break;
        const child = left + 1 < count && heap[left + 1] > heap[left] ? left + 1 : left;
        if (heap[child] <= value) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = value;
    }
  }
  return heap;
}

/** firstKeyed by full keys, for small folders and names alike far into their keys. */
function firstByHeap<S extends SortableEntry>(items: S[], count: number): S[] {
  const heap: S[] = [];
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
