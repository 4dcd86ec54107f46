import { describe, expect, it } from 'vitest';
import { isWithin, joinPath, nameOf, parentOf, stemRange, topMost } from './paths';

describe('tree paths', () => {
  it('splits and joins workspace-relative paths', () => {
    expect(parentOf('a/b/c.txt')).toBe('a/b');
    expect(parentOf('c.txt')).toBe('');
    expect(nameOf('a/b/c.txt')).toBe('c.txt');
    expect(joinPath('', 'x')).toBe('x');
    expect(joinPath('a', 'x')).toBe('a/x');
  });

  it('knows a folder from a sibling that shares its prefix', () => {
    expect(isWithin('src/app.py', 'src')).toBe(true);
    expect(isWithin('src', 'src')).toBe(true);
    expect(isWithin('src2/app.py', 'src')).toBe(false);
    expect(isWithin('anything', '')).toBe(true);
  });

  it('moves a folder once, not again for what is inside it', () => {
    expect(topMost(['src', 'src/app.py', 'README.md', 'src2'])).toEqual(['src', 'README.md', 'src2']);
  });

  it('selects the stem for a rename, all of a dotfile or a folder', () => {
    expect(stemRange('README.md', false)).toEqual([0, 6]);
    expect(stemRange('archive.tar.gz', false)).toEqual([0, 11]);
    expect(stemRange('.env', false)).toEqual([0, 4]);
    expect(stemRange('v1.2', true)).toEqual([0, 4]);
  });
});
