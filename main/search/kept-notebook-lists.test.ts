import { describe, expect, it } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { KEEP_NOTEBOOK_LIST_MS, KeptNotebookLists, type NotebookListing } from './kept-notebook-lists';

const globs: { include: string[]; exclude: string[] } = { include: [], exclude: [] };

/** Lists kept under one watcher, with a clock the test moves and a walk that counts its runs. */
function setUp() {
  const watcher = {};
  let coverage: object | null = watcher;
  let now = 1_000;
  let walks = 0;
  let next: NotebookListing = { paths: ['a.ipynb'], complete: true };
  const lists = new KeptNotebookLists(
    () => coverage,
    () => now,
  );
  const walk = async () => {
    walks++;
    return next;
  };
  return {
    lists,
    list: (g = globs) => lists.get(g, walk),
    walks: () => walks,
    advance: (ms: number) => (now += ms),
    setCoverage: (c: object | null) => (coverage = c),
    nextWalk: (listing: NotebookListing) => (next = listing),
  };
}

const change = (c: Partial<FsChange> & Pick<FsChange, 'type'>) =>
  ({ isDir: false, origin: 'external', ...c }) as FsChange;

describe('notebook lists kept between searches', () => {
  it('a second search within the window reuses the walk; after it, or for other globs, walks again', async () => {
    const t = setUp();
    expect(await t.list()).toEqual(['a.ipynb']);
    expect(await t.list()).toEqual(['a.ipynb']);
    expect(t.walks()).toBe(1);
    await t.list({ include: ['src/**'], exclude: [] });
    expect(t.walks()).toBe(2);
    t.advance(KEEP_NOTEBOOK_LIST_MS);
    await t.list();
    expect(t.walks()).toBe(3);
  });

  it.each([
    ['a notebook created', change({ type: 'created', path: 'b.ipynb' })],
    ['a notebook deleted', change({ type: 'deleted', path: 'a.ipynb' })],
    ['a file renamed to a notebook', change({ type: 'moved', from: 'b.txt', to: 'b.ipynb' })],
    ['a folder created', change({ type: 'created', path: 'new', isDir: true })],
    ['a folder moved', change({ type: 'moved', from: 'x', to: 'y', isDir: true })],
    ['a .gitignore edited', change({ type: 'updated', path: 'sub/.gitignore' })],
    ['an .rgignore created', change({ type: 'created', path: '.rgignore' })],
  ])('%s: the next search walks again', async (_, c) => {
    const t = setUp();
    await t.list();
    t.lists.applyChange(c);
    t.nextWalk({ paths: ['a.ipynb', 'b.ipynb'], complete: true });
    expect(await t.list()).toEqual(['a.ipynb', 'b.ipynb']);
    expect(t.walks()).toBe(2);
  });

  it('a notebook saved, or any other file changing, keeps the list', async () => {
    const t = setUp();
    await t.list();
    t.lists.applyChange(change({ type: 'updated', path: 'a.ipynb' }));
    t.lists.applyChange(change({ type: 'created', path: 'notes.txt' }));
    t.lists.applyChange(change({ type: 'moved', from: 'notes.txt', to: 'todo.md' }));
    await t.list();
    expect(t.walks()).toBe(1);
  });

  it('nothing is kept while the feed does not cover the tree, nor across a restarted watcher', async () => {
    const t = setUp();
    t.setCoverage(null);
    await t.list();
    await t.list();
    expect(t.walks()).toBe(2);
    t.setCoverage({});
    await t.list();
    t.setCoverage({});
    await t.list();
    expect(t.walks()).toBe(4);
  });

  it('a walk cut short, or one a change arrived during, is not kept', async () => {
    const t = setUp();
    t.nextWalk({ paths: [], complete: false });
    await t.list();
    t.nextWalk({ paths: ['a.ipynb'], complete: true });
    let release!: () => void;
    const during = t.lists.get(globs, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { paths: ['a.ipynb'], complete: true };
    });
    t.lists.applyChange(change({ type: 'created', path: 'b.ipynb' }));
    release();
    await during;
    await t.list();
    expect(t.walks()).toBe(2);
  });
});
