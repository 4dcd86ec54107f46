import { describe, expect, it } from 'vitest';
import { formatBytes } from './format-bytes';

describe('formatBytes', () => {
  it('reads as people write sizes: whole bytes, one decimal below 100, none from 100 up', () => {
    expect([0, 512, 1536, 80_000_000, 300 * 1024 * 1024, 5 * 1024 ** 4 * 1024].map(formatBytes)).toEqual([
      '0 B',
      '512 B',
      '1.5 KB',
      '76.3 MB',
      '300 MB',
      '5120 TB',
    ]);
  });
});
