import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { FileIndex } from './file-index';

const EXCLUDED = /(^|\/)(\.git|node_modules)(\/|$)/;
const excludes = {
  excluded: (rel: string) => EXCLUDED.test(rel),
  excludedEntry: (_rel: string, name: string) => name === '.git' || name === 'node_modules',
};
let root: string;
let cleanup: () => Promise<void>;
let index: FileIndex;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({
    'README.md': '',
    'src/kiln/quick_open.py': '',
    'src/kiln/question.py': '',
    'docs/quarterly-overview.md': '',
    'node_modules/quick/index.js': '',
    '.git/HEAD': '',
    '.env': '',
  }));
  index = new FileIndex({ root, ...excludes });
  await index.ready;
});
afterEach(async () => {
  index.dispose();
  await cleanup();
});

const paths = (query: string, recent: string[] = []) => index.search(query, { recent }).matches.map((m) => m.path);

it('lists every file once the scan is done, leaving out what the watcher excludes', () => {
  expect(index.indexing).toBe(false);
  expect(paths('').sort()).toEqual([
    '.env',
    'README.md',
    'docs/quarterly-overview.md',
    'src/kiln/question.py',
    'src/kiln/quick_open.py',
  ]);
});

it('matches letters in order across folders, best first, with the matched positions', () => {
  const result = index.search('kqop');
  expect(result.matches[0].path).toBe('src/kiln/quick_open.py');
  const { path: p, positions } = result.matches[0];
  expect(
    positions
      .map((i) => p[i])
      .join('')
      .toLowerCase(),
  ).toBe('kqop');
  expect(paths('zzz')).toEqual([]);
});

it('puts recently opened files first', () => {
  const plain = paths('q');
  const last = plain[plain.length - 1];
  expect(plain.length).toBeGreaterThan(1);
  const recent = paths('q', [last]);
  expect(recent[0]).toBe(last);
  expect(new Set(recent).size).toBe(recent.length);
  expect(index.search('', { recent: ['src/kiln/question.py', 'gone.txt'] }).matches[0]).toEqual({
    path: 'src/kiln/question.py',
    positions: [],
    recent: true,
  });
});

it('follows the change feed: created, deleted, moved, folders created with files and folders deleted', async () => {
  index.applyChange({ type: 'created', path: 'new.txt', isDir: false, origin: 'external' });
  expect(index.has('new.txt')).toBe(true);
  index.applyChange({ type: 'deleted', path: 'README.md', isDir: false, origin: 'operator' });
  expect(index.has('README.md')).toBe(false);
  index.applyChange({ type: 'moved', from: 'new.txt', to: 'docs/renamed.txt', isDir: false, origin: 'operator' });
  expect([index.has('new.txt'), index.has('docs/renamed.txt')]).toEqual([false, true]);
  index.applyChange({ type: 'moved', from: 'src', to: 'lib/src', isDir: true, origin: 'operator' });
  expect(
    paths('')
      .filter((p) => p.includes('kiln/'))
      .sort(),
  ).toEqual(['lib/src/kiln/question.py', 'lib/src/kiln/quick_open.py']);
  expect(index.search('kqop').matches[0].path).toBe('lib/src/kiln/quick_open.py');
  index.applyChange({ type: 'deleted', path: 'lib', isDir: true, origin: 'operator' });
  expect(paths('').some((p) => p.startsWith('lib/'))).toBe(false);
  await mkdir(path.join(root, 'pkg/deep'), { recursive: true });
  await writeFile(path.join(root, 'pkg/deep/mod.py'), '');
  index.applyChange({ type: 'created', path: 'pkg', isDir: true, origin: 'external' });
  await expect.poll(() => index.has('pkg/deep/mod.py')).toBe(true);
  index.applyChange({ type: 'created', path: 'node_modules/x.js', isDir: false, origin: 'external' });
  expect(index.has('node_modules/x.js')).toBe(false);
});

it('walks nothing until Quick Open first asks, then finds what the disk holds by then and says when it is done', async () => {
  let indexed = -1;
  const lazy = new FileIndex({ root, ...excludes });
  lazy.onDidIndex(({ files }) => (indexed = files));
  await writeFile(path.join(root, 'later.txt'), '');
  // Changes before first use are not kept: the first scan reads the disk as it is then.
  lazy.applyChange({ type: 'created', path: 'later.txt', isDir: false, origin: 'external' });
  expect(lazy.size).toBe(0);
  expect(indexed).toBe(-1);
  expect(lazy.search('').indexing).toBe(true);
  await lazy.ready;
  expect(indexed).toBe(6);
  expect(lazy.search('later').matches.map((m) => m.path)).toEqual(['later.txt']);
  lazy.dispose();
});

it('decides exclusion once per entry as the walk enters its folder, never for what an excluded folder holds', async () => {
  const checked: string[] = [];
  const counted = new FileIndex({
    root,
    excluded: (rel) => {
      throw new Error(`the walk asked about ${rel} with its folders`);
    },
    excludedEntry: (rel, name) => (checked.push(rel), excludes.excludedEntry(rel, name)),
  });
  await counted.ready;
  expect(counted.size).toBe(5);
  expect(checked.sort()).toEqual([
    '.env',
    '.git',
    'README.md',
    'docs',
    'docs/quarterly-overview.md',
    'node_modules',
    'src',
    'src/kiln',
    'src/kiln/question.py',
    'src/kiln/quick_open.py',
  ]);
  counted.dispose();
});
