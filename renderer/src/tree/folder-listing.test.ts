import { describe, expect, it } from 'vitest';
import { FolderListing } from './folder-listing';

const folder = (names: string[], kinds: string) =>
  FolderListing.of({ path: 'big', total: names.length, offset: 0, names, kinds });
const paths = (listing: FolderListing) => listing.entries().map((entry) => entry.path);

describe('FolderListing', () => {
  it('takes many changes in one copy, with the same result as one change at a time', () => {
    const listing = folder(['lib', 'src', 'a.txt', 'c.txt', 'e.txt', 'f10.txt'], 'ddffff');
    const changes = new Map<string, string | null>([
      ['c.txt', null],
      ['f9.txt', 'f'],
      ['b.txt', 'f'],
      ['docs', 'd'],
      ['zz.txt', 'f'],
      ['a.txt', 'f'],
      ['src', null],
      ['ghost.txt', null],
    ]);
    let oneByOne = listing;
    for (const [name, letter] of changes)
      oneByOne = letter === null ? oneByOne.without(name) : oneByOne.with(name, letter);
    const together = listing.withChanges(changes);
    expect(paths(together)).toEqual([
      'big/docs',
      'big/lib',
      'big/a.txt',
      'big/b.txt',
      'big/e.txt',
      'big/f9.txt',
      'big/f10.txt',
      'big/zz.txt',
    ]);
    expect(paths(together)).toEqual(paths(oneByOne));
    expect(together.find('docs')?.kind).toBe('dir');
    expect(listing.withChanges(new Map())).toBe(listing);
  });
});
