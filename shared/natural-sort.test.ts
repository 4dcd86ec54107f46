import { expect, it } from 'vitest';
import fc from 'fast-check';
import { compareEntries, firstInOrder, nameColumns, naturalSortKey, sortEntries } from './natural-sort';

/** The first `count` entries as a listing's first page picks them. */
const firstEntries = <T extends { name: string; kind: string }>(list: T[], count: number) =>
  Array.from(firstInOrder(nameColumns(list), count), (i) => list[i]);

it('orders folders first, then names case- and accent-insensitively with numbers as numbers', () => {
  const entries = ['b.txt', 'Z', 'a10.txt', 'a9.txt', 'Éa.txt', 'eb.txt', 'A2.txt', 'dir'].map((name) => ({
    name,
    kind: name === 'Z' || name === 'dir' ? 'dir' : 'file',
  }));
  const expected = ['dir', 'Z', 'A2.txt', 'a9.txt', 'a10.txt', 'b.txt', 'Éa.txt', 'eb.txt'];
  // The listing's keyed sort and the tree's comparator must agree, ties (same key) included.
  expect(sortEntries([...entries, { name: 'b.TXT', kind: 'file' }]).map((e) => e.name)).toEqual(
    [...entries, { name: 'b.TXT', kind: 'file' }].sort(compareEntries).map((e) => e.name),
  );
  expect(entries.sort(compareEntries).map((e) => e.name)).toEqual(expected);
});

const byRegex = (name: string) =>
  name.toLowerCase().replace(/\d+/g, (d) => d.replace(/^0+(?=\d)/, '').padStart(24, '0'));
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

it('the short key orders ASCII names exactly as the definition (numbers padded to 24 digits) does', () => {
  const name = fc.oneof(
    fc.stringMatching(/^[ -~]{0,16}$/),
    fc.stringMatching(/^[a-c]{0,2}[0-9]{0,12}[.a-c]{0,2}[0-9]{0,3}$/),
  );
  fc.assert(
    fc.property(name, name, (a, b) => {
      expect(sign(naturalSortKey(a) < naturalSortKey(b) ? -1 : naturalSortKey(a) > naturalSortKey(b) ? 1 : 0)).toBe(
        sign(byRegex(a) < byRegex(b) ? -1 : byRegex(a) > byRegex(b) ? 1 : 0),
      );
    }),
    { numRuns: 5000 },
  );
  expect(naturalSortKey('Part-007.bin')).toBe(naturalSortKey('part-7.BIN'));
});

it("a first page is the sorted listing's first entries", () => {
  const entries = fc
    .uniqueArray(fc.stringMatching(/^[a-cA-Cé0-9._-]{1,8}$/), { selector: (n) => n, maxLength: 300 })
    .map((names) => names.map((name, i) => ({ name, kind: i % 7 === 0 ? 'dir' : 'file' })));
  fc.assert(
    fc.property(entries, fc.nat(320), (list, count) => {
      const sorted = sortEntries(list).map((e) => e.name);
      expect(
        list
          .slice()
          .sort(compareEntries)
          .map((e) => e.name),
      ).toEqual(sorted);
      expect(firstEntries(list, count).map((e) => e.name)).toEqual(sorted.slice(0, count));
    }),
    { numRuns: 300 },
  );
});

it('a big folder sorts natively in exactly the comparison order, ties in the packed characters included', () => {
  // Above PACKED_SORT_FROM: long shared prefixes, names that end inside the packed window, non-ASCII.
  const entries = fc
    .uniqueArray(fc.stringMatching(/^(shared-prefix-)?[a-bA-Bé0-9.\u4e00-]{0,7}$/), {
      selector: (n) => n.toLowerCase(),
      minLength: 600,
      maxLength: 1500,
    })
    .map((names) => names.filter(Boolean).map((name, i) => ({ name, kind: i % 5 === 0 ? 'dir' : 'file' })));
  fc.assert(
    fc.property(entries, (list) => {
      const expected = list
        .slice()
        .sort(compareEntries)
        .map((e) => e.name);
      expect(sortEntries(list).map((e) => e.name)).toEqual(expected);
    }),
    { numRuns: 40 },
  );
  // Keys read from names: digit runs of every length (leading zeros, past 24 digits), case, '@' and '`' (one
  // apart from a letter's case bit), shared prefixes that differ only in case, folders among files.
  const digitHeavy = fc
    .uniqueArray(
      fc.stringMatching(/^(Shared-prefix-|shared-Prefix-)?[@`a-bA-B]{0,3}[0-9]{0,27}[a-bé.\u4e00]{0,2}[0-9]{0,3}$/),
      {
        minLength: 600,
        maxLength: 1500,
      },
    )
    .chain((names) =>
      fc
        .tuple(fc.constant(names.filter(Boolean)), fc.boolean())
        .map(([list, mixed]) => list.map((name, i) => ({ name, kind: mixed && i % 3 === 0 ? 'dir' : 'file' }))),
    );
  fc.assert(
    fc.property(digitHeavy, (list) => {
      expect(sortEntries(list).map((e) => e.name)).toEqual(
        list
          .slice()
          .sort(compareEntries)
          .map((e) => e.name),
      );
    }),
    { numRuns: 60 },
  );
  const numbered = Array.from({ length: 5000 }, (_, i) => ({ name: `file-${(i * 7919) % 5000}.txt`, kind: 'file' }));
  expect(sortEntries(numbered).map((e) => e.name)).toEqual(Array.from({ length: 5000 }, (_, i) => `file-${i}.txt`));
});

it("a big folder's first page is picked from packed windows: the sorted listing's first entries, ties at the edge included", () => {
  // Above PACKED_SORT_FROM; few distinct first characters, so many names tie at the count-th one's window.
  const entries = fc
    .uniqueArray(fc.stringMatching(/^(shared-prefix-)?[aAé0-9]{0,3}[a-b0-9.\u4e00-]{0,6}$/), {
      selector: (n) => n.toLowerCase(),
      minLength: 600,
      maxLength: 1500,
    })
    .chain((names) =>
      fc
        .tuple(fc.constant(names.filter(Boolean)), fc.boolean())
        .map(([list, mixed]) => list.map((name, i) => ({ name, kind: mixed && i % 4 === 0 ? 'dir' : 'file' }))),
    );
  fc.assert(
    fc.property(entries, fc.nat(700), (list, count) => {
      const sorted = list
        .slice()
        .sort(compareEntries)
        .map((e) => e.name);
      expect(firstEntries(list, count).map((e) => e.name)).toEqual(sorted.slice(0, count));
    }),
    // No shrinking: a counterexample of 600+ names would take minutes to shrink.
    { numRuns: 60, endOnFailure: true },
  );
  const numbered = Array.from({ length: 20_000 }, (_, i) => ({
    name: `f${String((i * 7919) % 20_000).padStart(6, '0')}.txt`,
    kind: 'file',
  }));
  expect(firstEntries(numbered, 200).map((e) => e.name)).toEqual(
    Array.from({ length: 200 }, (_, i) => `f${String(i).padStart(6, '0')}.txt`),
  );
});
