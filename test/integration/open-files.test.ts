/**
 * The editor's open-files store against main's real services: the contract's own dispatch and event
 * hub as the bridge, real files, the real watcher and change feed.
 */
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FsChange, KilnBridge } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { OpenFilesStore } from '../../renderer/src/editor/open-files';
import { startServices, watcherCaughtUp, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

let running: RunningServices;
let root: string;
let store: OpenFilesStore;
let bridge: KilnBridge;
let published: FsChange[];

beforeEach(async () => {
  running = await startServices({ 'notes.txt': 'one\n' });
  root = running.root;
  bridge = running.bridge;
  store = new OpenFilesStore(bridge);
  published = [];
  bridge.on('fs.change', (change) => published.push(change));
});

afterEach(async () => {
  store.dispose();
  await running.close();
});

/** What the feed published after the first `mark` changes, besides the catch-up markers. */
const publishedSince = (mark: number) =>
  published.slice(mark).filter((c) => !(c.type === 'created' && c.path.startsWith('caught-up-')));

describe('OpenFilesStore', () => {
  it('opens, marks edits dirty, and saves through the atomic write', async () => {
    await store.open('notes.txt');
    expect(store.activeFile).toMatchObject({ path: 'notes.txt', buffer: 'one\n', dirty: false });
    store.setBuffer('notes.txt', 'one\ntwo\n');
    expect(store.get('notes.txt')?.dirty).toBe(true);
    await store.save('notes.txt');
    const saved = published.length;
    expect(store.get('notes.txt')?.dirty).toBe(false);
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    // Its own save does not echo back from the watcher, nor become a conflict.
    await watcherCaughtUp(running);
    expect(publishedSince(saved)).toEqual([]);
    expect(store.get('notes.txt')?.conflict).toBeNull();
  });

  it('a clean buffer follows the disk silently', async () => {
    await store.open('notes.txt');
    await writeFile(path.join(root, 'notes.txt'), 'from elsewhere\n');
    await until(() => store.get('notes.txt')?.buffer === 'from elsewhere\n', 'the reload');
    expect(store.get('notes.txt')).toMatchObject({ dirty: false, conflict: null });
  });

  it('a dirty buffer gets a conflict; Save refuses, Overwrite and Reload resolve it', async () => {
    await store.open('notes.txt');
    store.setBuffer('notes.txt', 'mine\n');
    await writeFile(path.join(root, 'notes.txt'), 'theirs\n');
    await until(() => store.get('notes.txt')?.conflict?.kind === 'changed', 'the conflict');
    expect(store.get('notes.txt')?.conflict).toMatchObject({ diskText: 'theirs\n' });
    expect(store.get('notes.txt')?.buffer).toBe('mine\n');

    await expect(store.save('notes.txt')).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('theirs\n');

    await store.overwrite('notes.txt');
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(store.get('notes.txt')).toMatchObject({ dirty: false, conflict: null });

    store.setBuffer('notes.txt', 'mine again\n');
    await writeFile(path.join(root, 'notes.txt'), 'theirs again\n');
    await until(() => store.get('notes.txt')?.conflict?.kind === 'changed', 'the second conflict');
    await store.reload('notes.txt');
    expect(store.get('notes.txt')).toMatchObject({ buffer: 'theirs again\n', dirty: false, conflict: null });
  });

  it('a save over a file changed since it was read is refused even before the watcher reports it', async () => {
    await store.open('notes.txt');
    store.setBuffer('notes.txt', 'mine\n');
    await writeFile(path.join(root, 'notes.txt'), 'theirs\n');
    const error = await store.save('notes.txt').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KilnError);
    expect((error as KilnError).code).toBe('E_CHANGED_ON_DISK');
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('theirs\n');
    expect(store.get('notes.txt')?.conflict?.kind).toBe('changed');
  });

  it('a file deleted on disk stays open saying so, clean or dirty; a dirty one keeps its text', async () => {
    await writeFile(path.join(root, 'other.txt'), 'x\n');
    await store.open('notes.txt');
    await store.open('other.txt');
    store.setBuffer('other.txt', 'unsaved\n');
    await unlink(path.join(root, 'notes.txt'));
    await unlink(path.join(root, 'other.txt'));
    await until(() => store.get('notes.txt')?.conflict?.kind === 'deleted', 'the clean tab to say deleted');
    await until(() => store.get('other.txt')?.conflict?.kind === 'deleted', 'the deleted conflict');
    // Put back (another program's undo): the clean tab simply has its file again.
    await writeFile(path.join(root, 'notes.txt'), 'one\n');
    await until(() => store.get('notes.txt')?.conflict === null, 'the clean tab to reopen');
    expect(store.get('other.txt')?.buffer).toBe('unsaved\n');
    await store.overwrite('other.txt');
    expect(await readFile(path.join(root, 'other.txt'), 'utf8')).toBe('unsaved\n');
  });

  it('follows a rename of the file, and of a folder holding it, from the feed alone', async () => {
    await store.open('notes.txt');
    store.setBuffer('notes.txt', 'unsaved\n');
    const before = published.length;
    await bridge.request('workspace.move', { from: 'notes.txt', to: 'renamed.txt' });
    // The feed reached the store before the move's caller heard back.
    expect(store.getState()).toMatchObject({ active: 'renamed.txt' });
    expect(store.get('renamed.txt')).toMatchObject({ name: 'renamed.txt', buffer: 'unsaved\n', dirty: true });
    await bridge.request('workspace.createDir', { path: 'dir' });
    await bridge.request('workspace.createDir', { path: 'dir/deep' });
    await bridge.request('workspace.move', { from: 'renamed.txt', to: 'dir/deep/renamed.txt' });
    await bridge.request('workspace.move', { from: 'dir', to: 'moved' });
    expect(store.getState().files.map((f) => f.path)).toEqual(['moved/deep/renamed.txt']);
    await store.save('moved/deep/renamed.txt');
    expect(await readFile(path.join(root, 'moved/deep/renamed.txt'), 'utf8')).toBe('unsaved\n');
    // The feed carried Kiln's own reports only: the watcher's echoes of those moves (deletes and creates)
    // never reached the tab to close or conflict it.
    await watcherCaughtUp(running);
    expect(
      publishedSince(before).map((c) =>
        c.type === 'moved'
          ? `moved ${c.from} -> ${c.to}`
          : c.type === 'createdFiles'
            ? `created files in ${c.dir}`
            : `${c.type} ${c.path}`,
      ),
    ).toEqual([
      'moved notes.txt -> renamed.txt',
      'created dir',
      'created dir/deep',
      'moved renamed.txt -> dir/deep/renamed.txt',
      'moved dir -> moved',
      'updated moved/deep/renamed.txt',
    ]);
    expect(store.get('moved/deep/renamed.txt')).toMatchObject({ conflict: null, dirty: false });
  });

  it('a save sent just before the feed reports Kiln moved the file is written where the file is now', async () => {
    // The store hears the feed late, as a renderer does whose save is already on the wire when the move lands.
    const held: Array<() => void> = [];
    let holding = false;
    const late: KilnBridge = {
      ...bridge,
      request: bridge.request.bind(bridge),
      on: (channel, listener) =>
        bridge.on(channel, (payload) => (holding ? held.push(() => listener(payload)) : listener(payload))),
    };
    const lateStore = new OpenFilesStore(late);
    try {
      await lateStore.open('notes.txt');
      lateStore.setBuffer('notes.txt', 'unsaved\n');
      holding = true;
      await bridge.request('workspace.move', { from: 'notes.txt', to: 'renamed.txt' });
      const saving = lateStore.save('notes.txt');
      holding = false;
      for (const deliver of held.splice(0)) deliver();
      await saving;
      expect(await readFile(path.join(root, 'renamed.txt'), 'utf8')).toBe('unsaved\n');
      expect(lateStore.getState().files.map((f) => f.path)).toEqual(['renamed.txt']);
      expect(lateStore.get('renamed.txt')).toMatchObject({ dirty: false, conflict: null });
    } finally {
      lateStore.dispose();
    }
  });

  it('a tab owned by a view keeps its owner across a move', async () => {
    await writeFile(path.join(root, 'a.ipynb'), '{}');
    await store.open('a.ipynb');
    const saves: string[] = [];
    store.claim('a.ipynb', { save: async () => void saves.push('owner'), closed: () => undefined });
    store.setDirty('a.ipynb', true);
    await bridge.request('workspace.move', { from: 'a.ipynb', to: 'b.ipynb' });
    expect(store.get('b.ipynb')?.dirty).toBe(true);
    await store.save('b.ipynb');
    expect(saves).toEqual(['owner']);
  });
});
