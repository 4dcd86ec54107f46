import { describe, expect, it, vi } from 'vitest';
import type { Listing } from '../../../shared/contract';
import { FakeBridge } from '../../../test-support/fake-bridge';
import { untilState } from '../../../test-support/until';
import { TreeStore } from './tree-store';

const listing = (path: string, entries: Array<[string, 'd' | 'f']>): Listing => ({
  path,
  total: entries.length,
  offset: 0,
  names: entries.map(([name]) => name),
  kinds: entries.map(([, kind]) => kind).join(''),
});

describe('TreeStore', () => {
  it('paints the root with src/ already open, so no row moves under the pointer after it shows', async () => {
    let answerSrc!: () => void;
    const srcAsked = new Promise<void>((resolve) => (answerSrc = resolve));
    const bridge = new FakeBridge().handle('workspace.list', async ({ path }) => {
      if (path === '')
        return listing('', [
          ['data', 'd'],
          ['src', 'd'],
          ['README.md', 'f'],
        ]);
      // src/ answers late: the root must wait for it rather than paint and then shift README.md down.
      await srcAsked;
      return listing('src', [['app.py', 'f']]);
    });
    const store = new TreeStore(bridge);
    const painted: string[][] = [];
    store.subscribe(() => {
      const rows = store.rows();
      const paths: string[] = [];
      for (let i = 0; i < rows.length; i++) paths.push(rows.at(i)!.entry.path);
      if (paths.length) painted.push(paths);
    });
    const loaded = store.load('');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(painted).toEqual([]);
    answerSrc();
    await loaded;
    expect(painted[0]).toEqual(['data', 'src', 'src/app.py', 'README.md']);
    expect(new Set(painted.map((paths) => paths.join()))).toEqual(new Set([painted[0].join()]));
    expect(store.isExpanded('src')).toBe(true);
    store.dispose();
  });

  it('a file created while the root is being listed shows, though main read the root before it', async () => {
    let created = false;
    let answerSrc!: () => void;
    const srcAsked = new Promise<void>((resolve) => (answerSrc = resolve));
    const bridge = new FakeBridge().handle('workspace.list', async ({ path }) => {
      if (path === 'src') {
        await srcAsked;
        return listing('src', []);
      }
      const files: Array<[string, 'd' | 'f']> = created ? [['new.txt', 'f']] : [];
      return listing('', [['src', 'd'], ...files]);
    });
    const store = new TreeStore(bridge);
    const loaded = store.load('');
    // Main has answered with the root as it was; the file appears and its event arrives before the root shows.
    await new Promise((resolve) => setTimeout(resolve, 0));
    created = true;
    bridge.emit('fs.change', { type: 'created', path: 'new.txt', isDir: false, origin: 'external' });
    answerSrc();
    await loaded;
    await untilState(store, () => store.entry('new.txt') !== undefined, 'new.txt in the tree');
    store.dispose();
  });

  it('a folder that keeps changing while it is read still shows: a change waits for the read under way', async () => {
    vi.useFakeTimers();
    try {
      // Another program keeps writing into big/: a change lands during every read of it.
      const answers: Array<() => void> = [];
      const bridge = new FakeBridge();
      bridge.handle('workspace.list', async ({ path }) => {
        if (path === '') return listing('', [['big', 'd']]);
        const n = answers.length + 1;
        bridge.emit('fs.change', { type: 'created', path: `big/f${n}.txt`, isDir: false, origin: 'external' });
        await new Promise<void>((resolve) => answers.push(resolve));
        return listing(
          'big',
          Array.from({ length: n }, (_, i): [string, 'f'] => [`f${i + 1}.txt`, 'f']),
        );
      });
      const store = new TreeStore(bridge);
      await store.load('');
      void store.expand('big');
      await vi.advanceTimersByTimeAsync(0);
      expect(answers).toHaveLength(1);
      // The change's reload comes due while the first read is still out: it must not start over.
      await vi.advanceTimersByTimeAsync(100);
      answers[0]();
      await vi.advanceTimersByTimeAsync(0);
      expect(store.entry('big/f1.txt')).toBeDefined();
      // Then the folder is read once more, for the change that came during the first read.
      await vi.advanceTimersByTimeAsync(100);
      expect(answers).toHaveLength(2);
      store.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a huge folder read again keeps all its rows until the new listing is whole', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
    let holdRest = Promise.resolve();
    const bridge = new FakeBridge().handle('workspace.list', async ({ path, offset = 0, limit }) => {
      if (path === '') return listing('', [['big', 'd']]);
      if (offset > 0) await holdRest;
      const page = names.slice(offset, limit === undefined ? undefined : offset + limit);
      return { path, total: names.length, offset, names: page, kinds: 'f'.repeat(page.length) };
    });
    const store = new TreeStore(bridge);
    await store.load('');
    await store.expand('big');
    await untilState(store, () => store.rows().length === 501, 'all of big/ listed');
    // An outside change has big/ read again; its rest is slow to come.
    let releaseRest!: () => void;
    holdRest = new Promise((resolve) => (releaseRest = resolve));
    const sizes = new Set<number>();
    store.subscribe(() => sizes.add(store.rows().length));
    const reread = store.load('big');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.rows().length).toBe(501);
    releaseRest();
    await reread;
    expect([...sizes].filter((size) => size !== 501)).toEqual([]);
    store.dispose();
  });

  it('a file moved out of a folder while that folder is read never shows in both places', async () => {
    let moved = false;
    // Each read of src/ is answered when the test says, with src/ as it was when main read it.
    const srcReads: Array<(answer: () => void) => void> = [];
    const srcAsked = () => new Promise<() => void>((resolve) => srcReads.push(resolve));
    const bridge = new FakeBridge().handle('workspace.list', async ({ path }) => {
      if (path === '') return listing('', [['src', 'd'], ...(moved ? [['util.py', 'f'] as ['util.py', 'f']] : [])]);
      const asRead = listing('src', [['app.py', 'f'], ...(moved ? [] : [['util.py', 'f'] as ['util.py', 'f']])]);
      await new Promise<void>((answer) => srcReads.shift()!(answer));
      return asRead;
    });
    const store = new TreeStore(bridge);
    let asked = srcAsked();
    const loaded = store.load('');
    (await asked)();
    await loaded;
    expect(store.entry('src/util.py')).toBeDefined();
    // src/ is being read again (as after the move of another file), main's reply still holding util.py, when
    // the feed says util.py moved to the root.
    asked = srcAsked();
    const reread = store.load('src');
    const answer = await asked;
    moved = true;
    bridge.emit('fs.change', { type: 'moved', from: 'src/util.py', to: 'util.py', isDir: false, origin: 'operator' });
    const seen: string[][] = [];
    store.subscribe(() => {
      const rows = store.rows();
      seen.push(Array.from({ length: rows.length }, (_, i) => rows.at(i)!.entry.path));
    });
    answer();
    await reread;
    expect(store.entry('util.py')).toBeDefined();
    expect(store.entry('src/util.py')).toBeUndefined();
    expect(seen.filter((paths) => paths.includes('src/util.py'))).toEqual([]);
    store.dispose();
  });

  it('a pinned folder that cannot be read does not hold the root back', async () => {
    const bridge = new FakeBridge().handle('workspace.list', ({ path }) => {
      if (path === '')
        return listing('', [
          ['src', 'd'],
          ['a.txt', 'f'],
        ]);
      throw new Error('EACCES: permission denied');
    });
    const errors: string[] = [];
    const store = new TreeStore(bridge);
    store.onError = (message) => errors.push(message);
    await store.load('');
    expect(store.getState().rootListed).toBe(true);
    expect(store.rows().length).toBe(2);
    expect(store.isExpanded('src')).toBe(false);
    expect(errors).toEqual([expect.stringContaining('permission denied')]);
    store.dispose();
  });
});
