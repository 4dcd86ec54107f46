import { expect, it } from 'vitest';
import type { Listing } from '../../../shared/contract';
import { FolderListing } from './folder-listing';
import { TreeRows } from './tree-rows';

const listing = (path: string, entries: string): Listing => {
  const parts = entries.split(' ');
  return {
    path,
    total: parts.length,
    offset: 0,
    names: parts.map((p) => p.slice(2)),
    kinds: parts.map((p) => p[0]).join(''),
  };
};

function rowsOf(folders: FolderListing[], expanded: string[], loading: string[] = []): TreeRows {
  const byPath = new Map(folders.map((f) => [f.path, f]));
  return new TreeRows({
    folder: (p) => byPath.get(p),
    isExpanded: (p) => p === '' || expanded.includes(p),
    isLoading: (p) => loading.includes(p),
  });
}

const root = FolderListing.of(listing('', 'd:a d:b D:link f:README.md f:z.txt'));
const a = FolderListing.of(listing('a', 'd:deep f:1.txt f:2.txt'));
const deep = FolderListing.of(listing('a/deep', 'f:x.py'));
const b = FolderListing.of(listing('b', 'f:only.txt'));

it('shows open folders under their rows, at their depth, in display order', () => {
  const rows = rowsOf([root, a, deep, b], ['a', 'a/deep', 'b', 'link']);
  const shown = Array.from({ length: rows.length }, (_, i) => rows.at(i)!).map(
    (r) => `${'  '.repeat(r.depth)}${r.entry.name}${r.expanded ? '/' : ''}`,
  );
  // link is open but not listed yet: its row shows, nothing under it.
  expect(shown).toEqual([
    'a/',
    '  deep/',
    '    x.py',
    '  1.txt',
    '  2.txt',
    'b/',
    '  only.txt',
    'link/',
    'README.md',
    'z.txt',
  ]);
  expect(rows.at(7)!.entry.link).toBe(true);
  expect(rows.at(rows.length)).toBeUndefined();
  for (let i = 0; i < rows.length; i++) expect(rows.indexOf(rows.at(i)!.entry.path)).toBe(i);
  expect(rows.pathsBetween(3, 1)).toEqual(['a/deep', 'a/deep/x.py', 'a/1.txt']);
});

it('a closed folder hides what it holds, even when listed; a folder still loading says so', () => {
  const rows = rowsOf([root, a, deep], ['a/deep'], ['a']);
  expect(rows.length).toBe(5);
  expect(rows.indexOf('a/deep/x.py')).toBe(-1);
  expect(rows.indexOf(null)).toBe(-1);
  const loading = rowsOf([root], ['a'], ['a']);
  expect(loading.at(0)).toMatchObject({ expanded: true, loading: true });
  expect(loading.length).toBe(5);
});

it('a listing takes an entry in its sorted place, drops one by name, and makes each Entry once', () => {
  const files = FolderListing.of(listing('', 'd:src f:file2.txt f:file10.txt'));
  const added = files.with('file9.txt', 'f').with('lib', 'd').with('file2.txt', 'f');
  expect(added.entries().map((e) => e.name)).toEqual(['lib', 'src', 'file2.txt', 'file9.txt', 'file10.txt']);
  expect(added.dirCount).toBe(2);
  expect(
    added
      .without('src')
      .entries()
      .map((e) => e.path),
  ).toEqual(['lib', 'file2.txt', 'file9.txt', 'file10.txt']);
  expect(added.entry(3)).toBe(added.entry(3));
  expect(added.find('nope')).toBeUndefined();
  const paged = FolderListing.of({ ...listing('big', 'f:a f:b'), total: 4 }).append({
    ...listing('big', 'f:c f:d'),
    offset: 2,
  });
  expect(paged.entries().map((e) => e.path)).toEqual(['big/a', 'big/b', 'big/c', 'big/d']);
});
