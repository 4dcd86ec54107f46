/**
 * The indexes, in order, of a longest strictly increasing subsequence of `values` (not necessarily adjacent).
 * Negative values stand for "not there" and are never kept. What stays in place when a list is reordered: the
 * notebook diff's moves, the cells an accepted proposal moves, the rows the notebook view re-inserts.
 */
export function longestIncreasing(values: ArrayLike<number>): number[] {
  const tails: number[] = []; // tails[k]: index of the smallest last value of an increasing run of length k + 1
  const previous = new Int32Array(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value < 0) continue;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const out: number[] = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) out.push(i);
  return out.reverse();
}
