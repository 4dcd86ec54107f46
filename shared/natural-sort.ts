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
 * A folder's entries as columns: their names, and which are folders (1). No object per entry: a listing of
 * 100,000 names spent more on making and collecting per-entry objects than on sorting them.
 */
export class NameColumns {
  /** Full sort keys, built only for the entries whose key cannot be read straight from the name. */
  private keys: (string | undefined)[] | null = null;

  constructor(
    readonly names: readonly string[],
    readonly dirs: Uint8Array,
  ) {}

  get length(): number {
    return this.names.length;
  }

  /** Entry i's entrySortKey. */
  key(i: number): string {
    this.keys ??= new Array<string | undefined>(this.names.length);
    return (this.keys[i] ??= entrySortKey({ name: this.names[i], kind: this.dirs[i] ? 'dir' : 'file' }));
  }
}

/** Entries as columns (folders are those of kind 'dir'). */
export function nameColumns(entries: readonly Named[]): NameColumns {
  const dirs = new Uint8Array(entries.length);
  for (let i = 0; i < entries.length; i++) if (entries[i].kind === 'dir') dirs[i] = 1;
  return new NameColumns(
    entries.map((entry) => entry.name),
    dirs,
  );
}

/**
 * Writes entry i's sort-key character codes from key position `from` up to `to` into `out` from `at`,
 * without building the key; where the key ends sooner, `out` keeps what it held (zeros). Mirrors entrySortKey and
 * naturalSortKey: up to a name's first non-ASCII character its key is the ASCII rule's (lower case, digit
 * runs as numberKey gives them), so only from there is the real key built and read.
 */
function writeKeyCodes(cols: NameColumns, entry: number, from: number, to: number, out: Uint16Array, at: number): void {
  const name = cols.names[entry];
  const length = name.length;
  const base = at - from;
  let n = 0;
  if (from === 0) out[base] = cols.dirs[entry] ? 48 : 49;
  n++;
  for (let i = 0; i < length && n < to;) {
    const c = name.charCodeAt(i);
    if (c > 127) {
      const key = cols.key(entry);
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
 * How many leading key characters every entry of `run` shares, at least: the kind's, and the names' common
 * prefix (case-insensitive) up to its first digit or non-ASCII character, where keys and names part ways.
 */
function sharedKeyPrefix(cols: NameColumns, run: Int32Array): number {
  const { names, dirs } = cols;
  const first = names[run[0]];
  const isDir = dirs[run[0]];
  let shared = 0;
  while (shared < first.length && !isDigit(first.charCodeAt(shared)) && first.charCodeAt(shared) < 128) shared++;
  for (let i = 1; i < run.length; i++) {
    if (dirs[run[i]] !== isDir) return 0;
    const name = names[run[i]];
    const end = Math.min(shared, name.length);
    let j = 0;
    while (j < end && lowerAscii(name.charCodeAt(j)) === lowerAscii(first.charCodeAt(j))) j++;
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

/** Every entry's index, in the order read. */
function allEntries(cols: NameColumns): Int32Array {
  const run = new Int32Array(cols.length);
  for (let i = 0; i < run.length; i++) run[i] = i;
  return run;
}

/**
 * The entries' indices in compareEntries' order. A big folder is sorted natively, not with a JS comparator
 * (whose ~130,000 calls for 10,000 names were most of a cold listing's sort): the key's first characters after
 * the prefix all keys share are packed with the entry's place into one float, and a Float64Array sorts those;
 * runs that tie there are sorted the same way on the characters that follow. The characters are read from the
 * names directly, so no key is built.
 */
export function sortedOrder(cols: NameColumns): Int32Array {
  return sortRun(cols, allEntries(cols));
}

/** Sorts a run of entry indices in place. */
function sortRun(cols: NameColumns, run: Int32Array): Int32Array {
  if (run.length < PACKED_SORT_FROM) return sortByKey(cols, run);
  sortPacked(cols, run, sharedKeyPrefix(cols, run));
  return run;
}

function sortByKey(cols: NameColumns, run: Int32Array): Int32Array {
  const ordered = Array.from(run).sort((a, b) => {
    const ka = cols.key(a);
    const kb = cols.key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  run.set(ordered);
  return run;
}

/** Scratch for sortPacked, grown as needed and shared by its nested calls (each is done with it before they run). */
let scratchWindows = new Uint16Array(0);
let scratchPacked = new Float64Array(0);
let scratchOrdered = new Int32Array(0);
let scratchPlaces = new Int32Array(0);
let scratchNextPlaces = new Int32Array(0);

/**
 * Each entry's key characters from `from` (all keys alike before it), as many as a float packing of them fits:
 * `windows[k * stride + j]` is entry run[k]'s character from + j. Lives in shared scratch, read before the next.
 */
function writeWindows(
  cols: NameColumns,
  run: Int32Array,
  from: number,
): { windows: Uint16Array; stride: number; indexBits: number; ascii: boolean } {
  const n = run.length;
  // 53 exact bits per float: the place takes the low ones, characters (7 bits if all ASCII, else 16) the rest.
  const indexBits = Math.max(1, 32 - Math.clz32(n - 1));
  const stride = Math.floor((53 - indexBits) / 7);
  if (scratchWindows.length < n * stride) scratchWindows = new Uint16Array(n * stride);
  // Each key's window; a key that ends inside it pads with 0, which no later character of another key is.
  const windows = scratchWindows;
  windows.fill(0, 0, n * stride);
  for (let k = 0; k < n; k++) writeKeyCodes(cols, run[k], from, from + stride, windows, k * stride);
  let highest = 0;
  for (let i = 0; i < n * stride; i++) if (windows[i] > highest) highest = windows[i];
  return { windows, stride, indexBits, ascii: highest <= 127 };
}

/**
 * The windows packed with each entry's place in `run` into one float: `packed[k]` orders as entry run[k]'s
 * window, then k. In shared scratch, read before the next packing.
 */
function packWindows(
  cols: NameColumns,
  run: Int32Array,
  from: number,
  written = writeWindows(cols, run, from),
): { packed: Float64Array; scale: number; width: number } {
  const n = run.length;
  const { windows, stride, indexBits, ascii } = written;
  const scale = 2 ** indexBits;
  const width = ascii ? stride : Math.floor((53 - indexBits) / 16);
  const base = ascii ? 128 : 65536;
  if (scratchPacked.length < n) scratchPacked = new Float64Array(n);
  const packed = scratchPacked.subarray(0, n);
  for (let k = 0; k < n; k++) {
    let prefix = 0;
    for (let j = 0; j < width; j++) prefix = prefix * base + windows[k * stride + j];
    packed[k] = prefix * scale + k;
  }
  return { packed, scale, width };
}

/**
 * The places 0..n-1 ordered by their ASCII windows, ties in place order: a stable radix sort, one counting pass
 * per character from the last, skipping characters every window shares. Costs a fraction of a float sort of
 * the packed windows (no comparisons). In shared scratch.
 */
function radixPlaces(windows: Uint16Array, stride: number, n: number): Int32Array {
  if (scratchPlaces.length < n) {
    scratchPlaces = new Int32Array(n);
    scratchNextPlaces = new Int32Array(n);
  }
  let places = scratchPlaces;
  let next = scratchNextPlaces;
  for (let k = 0; k < n; k++) places[k] = k;
  const counts = new Int32Array(129);
  for (let j = stride - 1; j >= 0; j--) {
    counts.fill(0);
    for (let k = 0; k < n; k++) counts[windows[k * stride + j] + 1]++;
    if (counts[windows[j] + 1] === n) continue;
    for (let c = 1; c < 129; c++) counts[c] += counts[c - 1];
    for (let k = 0; k < n; k++) {
      const place = places[k];
      next[counts[windows[place * stride + j]]++] = place;
    }
    [places, next] = [next, places];
  }
  return places;
}

/** Sorts `run` in place, its keys all alike before position `from`, on the characters from there. */
function sortPacked(cols: NameColumns, run: Int32Array, from: number): void {
  const n = run.length;
  if (from > PACKED_UP_TO) {
    sortByKey(cols, run);
    return;
  }
  if (scratchOrdered.length < n) scratchOrdered = new Int32Array(n);
  const ordered = scratchOrdered;
  const ties: number[] = [];
  let width: number;
  const written = writeWindows(cols, run, from);
  const { windows, stride, ascii } = written;
  if (ascii) {
    // The common case: a radix sort of the windows themselves.
    width = stride;
    const places = radixPlaces(windows, stride, n);
    for (let k = 0; k < n; k++) ordered[k] = run[places[k]];
    for (let start = 0; start < n;) {
      const at = places[start] * stride;
      let end = start + 1;
      for (; end < n; end++) {
        const other = places[end] * stride;
        let j = 0;
        while (j < stride && windows[other + j] === windows[at + j]) j++;
        if (j < stride) break;
      }
      if (end - start > 1) ties.push(start, end);
      start = end;
    }
  } else {
    const packing = packWindows(cols, run, from, written);
    const { packed, scale } = packing;
    width = packing.width;
    packed.sort();
    for (let k = 0; k < n; k++) ordered[k] = run[packed[k] % scale];
    for (let start = 0; start < n;) {
      const prefix = Math.floor(packed[start] / scale);
      let end = start + 1;
      while (end < n && Math.floor(packed[end] / scale) === prefix) end++;
      if (end - start > 1) ties.push(start, end);
      start = end;
    }
  }
  run.set(ordered.subarray(0, n));
  // Each tied run sorts in place, in its own stretch of `run`.
  for (let t = 0; t < ties.length; t += 2) sortPacked(cols, run.subarray(ties[t], ties[t + 1]), from + width);
}

/** Sorts named entries in compareEntries' order (what a listing's sort does, on a copy). */
export function sortEntries<T extends Named>(entries: readonly T[]): T[] {
  return Array.from(sortedOrder(nameColumns(entries)), (i) => entries[i]);
}

/**
 * The indices of the first `count` entries in order, without sorting the rest. A big folder's entries are packed
 * as sortPacked packs them (no key built) and only those whose window is at most the `count`-th smallest one's
 * can be among the first: they are sorted, the rest never looked at again. A small one keeps the best so far
 * in a bounded max-heap.
 */
export function firstInOrder(cols: NameColumns, count: number): Int32Array {
  if (count >= cols.length) return sortedOrder(cols);
  if (count === 0) return new Int32Array(0);
  const all = allEntries(cols);
  const from = all.length < PACKED_SORT_FROM ? PACKED_UP_TO + 1 : sharedKeyPrefix(cols, all);
  if (from > PACKED_UP_TO) return firstByHeap(cols, all, count);
  const { packed, scale } = packWindows(cols, all, from);
  const limit = Math.floor(smallestValues(packed, count)[0] / scale);
  let candidates = 0;
  for (let k = 0; k < all.length; k++) if (Math.floor(packed[k] / scale) <= limit) all[candidates++] = k;
  return sortRun(cols, all.subarray(0, candidates)).subarray(0, count);
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

/** firstInOrder by full keys, for small folders and names alike far into their keys. */
function firstByHeap(cols: NameColumns, run: Int32Array, count: number): Int32Array {
  const heap: number[] = [];
  const key = (place: number) => cols.key(heap[place]);
  const swap = (x: number, y: number) => ([heap[x], heap[y]] = [heap[y], heap[x]]);
  for (const entry of run) {
    if (heap.length < count) {
      heap.push(entry);
      for (let i = heap.length - 1; i > 0 && key((i - 1) >> 1) < key(i); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (cols.key(entry) < key(0)) {
      heap[0] = entry;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        let top = i;
        if (left < count && key(left) > key(top)) top = left;
        if (left + 1 < count && key(left + 1) > key(top)) top = left + 1;
        if (top === i) break;
        swap(i, top);
        i = top;
      }
    }
  }
  return sortByKey(cols, Int32Array.from(heap));
}
