import { describe, expect, it } from 'vitest';
import { nextChunkSize } from './progressive-mount';

describe('nextChunkSize', () => {
  it('sizes the next chunk so it fits the task budget at the last chunk’s cost per cell', () => {
    // 25 cells with big outputs took 470 ms: the next task mounts one cell.
    expect(nextChunkSize(25, 470)).toBe(1);
    // 5 cells in 50 ms (10 ms each): three fit in 30 ms.
    expect(nextChunkSize(5, 50)).toBe(3);
  });

  it('never mounts fewer than one cell or more than 25', () => {
    expect(nextChunkSize(1, 2_000)).toBe(1);
    expect(nextChunkSize(25, 1)).toBe(25);
    expect(nextChunkSize(0, 0)).toBe(25);
  });
});
