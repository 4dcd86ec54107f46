import { expect, it } from 'vitest';
import { longestIncreasing } from './longest-increasing';

it('keeps a longest increasing run, in order, and never a missing value', () => {
  expect(longestIncreasing([0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11])).toEqual([0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  expect(longestIncreasing([-1, -1])).toEqual([]);
  expect(longestIncreasing([3, -1, 0, 1, 2])).toEqual([2, 3, 4]);
  // An item moved down: only it leaves the run.
  expect(longestIncreasing([0, 2, 3, 1, 4])).toEqual([0, 1, 2, 4]);
  expect(longestIncreasing([])).toEqual([]);
});
