import { longestIncreasing } from '../base/longest-increasing';
import { stretchesOf } from './layout';
import type { CellLike, CellMatching } from './types';
import { textOf } from './values';

// In types.ts so that layout.ts, which walks a matching, needs nothing from here.
export type { CellMatching } from './types';

/*
 * Which old cell is which new cell. Learned from nbdime (its cell-id matching and its LCS over cells with an
 * approximate comparison), built our own way:
 * 1. a cell id both sides carry (nbformat 4.5) is the cell: matched whatever moved or changed;
 * 2. of the rest, cells with equal sources (moved or not), first to first;
 * 3. then, between the anchors those make, an LCS over cells whose sources are alike enough (an edited cell);
 *    two cells that both carry ids, different ones, are never the same cell;
 * 4. the matched pairs that keep their order (a longest increasing run) are anchors; the others are moves.
 */

/** Past this many cell pairs in one stretch, the similarity LCS is skipped (cells there are added / deleted). */
const MAX_SIMILARITY_PAIRS = 10_000;
/** Sources longer than this are compared by lines rather than by character pairs. */
const LONG_SOURCE = 4000;

/** An id nbformat 4.5 allows and that no other cell of the same notebook carries. */
export function usableIds(cells: readonly CellLike[]): (string | null)[] {
  const seen = new Map<string, number>();
  for (const cell of cells) if (typeof cell.id === 'string') seen.set(cell.id, (seen.get(cell.id) ?? 0) + 1);
  return cells.map((cell) => (typeof cell.id === 'string' && seen.get(cell.id) === 1 ? cell.id : null));
}

function counts(tokens: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const token of tokens) out.set(token, (out.get(token) ?? 0) + 1);
  return out;
}

function* bigrams(text: string): Iterable<string> {
  for (let i = 0; i + 1 < text.length; i++) yield text.slice(i, i + 2);
}

/** How alike two sources are, 0..1: Dice's coefficient over character pairs (over lines for long sources). */
export function sourceSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const long = a.length > LONG_SOURCE || b.length > LONG_SOURCE;
  const x = counts(long ? a.split('\n') : bigrams(a));
  const y = counts(long ? b.split('\n') : bigrams(b));
  let total = 0;
  let common = 0;
  for (const n of x.values()) total += n;
  for (const [token, n] of y) {
    total += n;
    common += Math.min(n, x.get(token) ?? 0);
  }
  return total === 0 ? 0 : (2 * common) / total;
}

export function matchCells(
  base: readonly CellLike[],
  next: readonly CellLike[],
  baseTexts: readonly string[],
  nextTexts: readonly string[],
  threshold: number,
): CellMatching {
  const oldToNew = new Int32Array(base.length).fill(-1);
  const newToOld = new Int32Array(next.length).fill(-1);
  const pair = (i: number, j: number) => {
    oldToNew[i] = j;
    newToOld[j] = i;
  };

  const baseIds = usableIds(base);
  const nextIds = usableIds(next);
  const byId = new Map<string, number>();
  baseIds.forEach((id, i) => id !== null && byId.set(id, i));
  nextIds.forEach((id, j) => {
    const i = id === null ? undefined : byId.get(id);
    if (i !== undefined) pair(i, j);
  });

  const eligible = (i: number, j: number) =>
    !(baseIds[i] !== null && nextIds[j] !== null) && base[i].cell_type === next[j].cell_type;
  const restOld = [...oldToNew.keys()].filter((i) => oldToNew[i] < 0);
  const restNew = [...newToOld.keys()].filter((j) => newToOld[j] < 0);
  const anyEligible = restOld.some((i) => baseIds[i] === null) || restNew.some((j) => nextIds[j] === null);

  if (anyEligible && restOld.length && restNew.length) {
    // Equal sources, wherever they are: the first unmatched old cell with that source is the first new one.
    const bySource = new Map<string, number[]>();
    for (const i of restOld) {
      const key = `${String(base[i].cell_type)}\u0000${baseTexts[i]}`;
      const list = bySource.get(key);
      if (list) list.push(i);
      else bySource.set(key, [i]);
    }
    for (const j of restNew) {
      const list = bySource.get(`${String(next[j].cell_type)}\u0000${nextTexts[j]}`);
      const k = list?.findIndex((i) => eligible(i, j)) ?? -1;
      if (list && k >= 0) pair(list.splice(k, 1)[0], j);
    }
    // Alike sources, in order, between the same anchors: an edited cell stays in its neighbourhood.
    for (const stretch of stretchesOf({ oldToNew, newToOld, anchored: anchorsOf(newToOld) })) {
      const olds = stretch.oldCells.filter((i) => oldToNew[i] < 0);
      const news = stretch.newCells.filter((j) => newToOld[j] < 0);
      for (const [i, j] of alikeInOrder(
        olds,
        news,
        (i, j) => eligible(i, j) && sourceSimilarity(baseTexts[i], nextTexts[j]) >= threshold,
      ))
        pair(i, j);
    }
  }
  return { oldToNew, newToOld, anchored: anchorsOf(newToOld) };
}

/** Pairs that keep their order (a longest increasing run of old indexes along the new ones) are anchors. */
function anchorsOf(newToOld: Int32Array): Uint8Array {
  const pairedNew = [...newToOld.keys()].filter((j) => newToOld[j] >= 0);
  const anchored = new Uint8Array(newToOld.length);
  for (const k of longestIncreasing(pairedNew.map((j) => newToOld[j]))) anchored[pairedNew[k]] = 1;
  return anchored;
}

/** An LCS of two short lists of cells under `alike` (skipped past MAX_SIMILARITY_PAIRS: too costly, too vague). */
function alikeInOrder(olds: number[], news: number[], alike: (i: number, j: number) => boolean): [number, number][] {
  const n = olds.length;
  const m = news.length;
  if (n === 0 || m === 0 || n * m > MAX_SIMILARITY_PAIRS) return [];
  const memo = new Int8Array(n * m).fill(-1);
  const is = (p: number, q: number) => {
    const k = p * m + q;
    if (memo[k] < 0) memo[k] = alike(olds[p], news[q]) ? 1 : 0;
    return memo[k] === 1;
  };
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let p = n - 1; p >= 0; p--)
    for (let q = m - 1; q >= 0; q--)
      lengths[p][q] = is(p, q) ? lengths[p + 1][q + 1] + 1 : Math.max(lengths[p + 1][q], lengths[p][q + 1]);
  const pairs: [number, number][] = [];
  let p = 0;
  let q = 0;
  while (p < n && q < m) {
    if (is(p, q) && lengths[p][q] === lengths[p + 1][q + 1] + 1) pairs.push([olds[p++], news[q++]]);
    else if (lengths[p + 1][q] >= lengths[p][q + 1]) p++;
    else q++;
  }
  return pairs;
}

/** The joined sources of a notebook's cells, once per diff. */
export function sourcesOf(cells: readonly CellLike[]): string[] {
  return cells.map((cell) => textOf(cell.source));
}
