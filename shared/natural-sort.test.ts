import { expect, it } from 'vitest';
import fc from 'fast-check';
import { compareEntries, naturalSortKey, sortEntries } from './natural-sort';

it('orders folders first, then names case- and accent-insensitively with numbers as numbers', () => {
  const entries = ['b.txt', 'Z', 'a10.txt', 'a9.txt', 'Éa.txt', 'eb.txt', 'A2.txt', 'dir'].map((name) => ({
    name,
    kind: name === 'Z' || name === 'dir' ? 'dir' : 'file',
  }));
  const expected = ['dir', 'Z', 'A2.txt', 'a9.txt', 'a10.txt', 'b.txt', 'Éa.txt', 'eb.txt'];
  // The listing's keyed sort and the tree's comparator must agree, ties (same key) included.
  expect(sortEntries([...entries, { name: 'b.TXT', kind: 'file' }]).map((e) => e.name)).toEqual([...entries, { name: 'b.TXT', kind: 'file' }].sort(compareEntries).map((e) => e.name));
  expect(entries.sort(compareEntries).map((e) => e.name)).toEqual(expected);
});

it('the one-pass key for ASCII names equals the regex definition', () => {
  const byRegex = (name: string) => name.toLowerCase().replace(/\d+/g, (d) => d.replace(/^0+(?=\d)/, '').padStart(24, '0'));
  fc.assert(
    fc.property(fc.stringMatching(/^[ -~]{0,16}$/), (name) => {
      expect(naturalSortKey(name)).toBe(byRegex(name));
    }),
    { numRuns: 2000 },
  );
  expect(naturalSortKey('Part-007.bin')).toBe(byRegex('Part-007.bin'));
});
