import fc from 'fast-check';
import { expect, it } from 'vitest';
import { PackedSearchFile, type SearchMatch } from './contract';
import { packSearchFile, unpackSearchFile } from './search-results';

const match = (inCell: boolean): fc.Arbitrary<SearchMatch> =>
  fc
    .record({
      line: fc.integer({ min: 1, max: 1e6 }),
      start: fc.nat(5000),
      end: fc.nat(5000),
      preview: fc.string({ unit: 'grapheme', maxLength: 40 }),
      previewStart: fc.nat(5000),
      cell: fc.record({ index: fc.nat(500), id: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }) }),
    })
    .map(({ cell, ...rest }) => {
      if (!inCell) return rest;
      return { ...rest, cell: cell.id === undefined ? { index: cell.index } : cell };
    });

it('a file packed for search.results crosses the wire as JSON and unpacks to the same matches', () => {
  const file = fc.boolean().chain((notebook) =>
    fc.record({
      path: fc.constantFrom('a.txt', 'dir/b.ipynb'),
      matches: fc.array(match(notebook), { maxLength: 20 }),
    }),
  );
  fc.assert(
    fc.property(file, (original) => {
      const wire = JSON.parse(JSON.stringify(packSearchFile(original))) as unknown;
      const packed = PackedSearchFile.parse(wire);
      expect(unpackSearchFile(packed)).toEqual(original);
    }),
    { numRuns: 300 },
  );
});
