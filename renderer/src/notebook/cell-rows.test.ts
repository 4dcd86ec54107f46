import { describe, expect, it } from 'vitest';
import { longestIncreasing } from './cell-rows';

describe('longestIncreasing', () => {
  it('keeps a longest increasing run and never a missing value', () => {
    expect([...longestIncreasing([0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11])].sort((a, b) => a - b)).toEqual([
      0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    expect(longestIncreasing([-1, -1])).toEqual(new Set());
    expect([...longestIncreasing([3, -1, 0, 1, 2])].sort()).toEqual([2, 3, 4]);
    // A cell moved down: only it leaves the run.
    expect([...longestIncreasing([0, 2, 3, 1, 4])].sort()).toEqual([0, 1, 2, 4]);
  });
});
