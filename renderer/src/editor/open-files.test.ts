/**
 * The open-files store alone, over the fake bridge: a disk held in a Map answers reads and writes, and
 * the test emits the change feed. The same store against main's real services is in
 * test/integration/open-files.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KilnError } from '../../../shared/errors';
import { FakeBridge } from '../../../test-support/fake-bridge';
import { untilState } from '../../../test-support/until';
import { OpenFilesStore } from './open-files';

let disk: Map<string, string>;
let bridge: FakeBridge;
let store: OpenFilesStore;

const hashOf = (text: string) => `hash:${text}`;

beforeEach(() => {
  disk = new Map([['notes.txt', 'one\n']]);
  bridge = new FakeBridge()
    .handle('workspace.read', ({ path }) => {
      const text = disk.get(path);
      if (text === undefined) throw new KilnError('E_NOT_FOUND', `No such file: ${path}`);
      return {
        path,
        text,
        binary: false,
        encoding: 'utf8',
        size: text.length,
        hash: hashOf(text),
        mtimeMs: 1,
        truncated: false,
      };
    })
    .handle('workspace.write', ({ path, text, expectedHash }) => {
      const current = disk.get(path);
      if (expectedHash !== undefined && current !== undefined && hashOf(current) !== expectedHash) {
        throw new KilnError('E_CHANGED_ON_DISK', `${path} changed on disk`);
      }
      disk.set(path, text);
      return { path, hash: hashOf(text), mtimeMs: 2, size: text.length };
    });
  store = new OpenFilesStore(bridge);
});

afterEach(() => {
  store.dispose();
  expect(bridge.listenerCount('fs.change')).toBe(0);
});

describe('OpenFilesStore over the fake bridge', () => {
  it('saves the keys an editor has not handed over yet: Save asks for them first', async () => {
    await store.open('notes.txt');
    let held: string | null = 'one\ntwo\n';
    const handOver = () => {
      store.editsHandedOver(handOver);
      if (held !== null) store.setBuffer('notes.txt', held);
      held = null;
    };
    store.markEdited('notes.txt', true, handOver);
    expect(store.get('notes.txt')).toMatchObject({ dirty: true, buffer: 'one\n' });
    await store.save('notes.txt');
    expect(disk.get('notes.txt')).toBe('one\ntwo\n');
    expect(store.get('notes.txt')).toMatchObject({ dirty: false, buffer: 'one\ntwo\n' });
  });

  it('a key reported without its text tells subscribers only when the dirty flag flips; onDidEdit hears each', async () => {
    await store.open('notes.txt');
    let notified = 0;
    const unsubscribe = store.subscribe(() => notified++);
    const edited: string[] = [];
    const sub = store.onDidEdit((path) => edited.push(path));
    const handOver = () => store.editsHandedOver(handOver);
    const before = store.getState();
    store.markEdited('notes.txt', true, handOver);
    expect(notified).toBe(1);
    const dirtyState = store.getState();
    expect(dirtyState).not.toBe(before);
    for (let i = 0; i < 5; i++) store.markEdited('notes.txt', true, handOver);
    // Typing on in a dirty tab: the same state object, no view re-renders for a key.
    expect(notified).toBe(1);
    expect(store.getState()).toBe(dirtyState);
    store.markEdited('notes.txt', false, handOver);
    expect(notified).toBe(2);
    expect(store.get('notes.txt')?.dirty).toBe(false);
    expect(edited).toEqual(Array(7).fill('notes.txt'));
    unsubscribe();
    sub.dispose();
  });

  it('a clean tab follows an outside change; a dirty one keeps its text and shows the conflict', async () => {
    disk.set('other.txt', 'x\n');
    await store.open('notes.txt');
    await store.open('other.txt');
    store.setBuffer('other.txt', 'mine\n');
    disk.set('notes.txt', 'theirs\n');
    disk.set('other.txt', 'theirs too\n');
    bridge.emit('fs.change', { type: 'updated', path: 'notes.txt', isDir: false, origin: 'external' });
    bridge.emit('fs.change', { type: 'updated', path: 'other.txt', isDir: false, origin: 'external' });
    await untilState(store, () => store.get('other.txt')?.conflict?.kind === 'changed', 'the conflict');
    await untilState(store, () => store.get('notes.txt')?.buffer === 'theirs\n', 'the clean tab to reload');
    expect(store.get('notes.txt')).toMatchObject({ dirty: false, conflict: null });
    expect(store.get('other.txt')).toMatchObject({
      buffer: 'mine\n',
      dirty: true,
      conflict: { diskText: 'theirs too\n' },
    });
  });

  it('a save over a file changed since it was read is refused, the disk kept and the conflict shown', async () => {
    await store.open('notes.txt');
    store.setBuffer('notes.txt', 'mine\n');
    disk.set('notes.txt', 'theirs\n');
    await expect(store.save('notes.txt')).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
    expect(disk.get('notes.txt')).toBe('theirs\n');
    expect(store.get('notes.txt')).toMatchObject({
      buffer: 'mine\n',
      conflict: { kind: 'changed', diskText: 'theirs\n' },
    });
    await store.overwrite('notes.txt');
    expect(disk.get('notes.txt')).toBe('mine\n');
    expect(store.get('notes.txt')).toMatchObject({ dirty: false, conflict: null });
  });

  it('a move of a folder holding the tab re-keys it with its unsaved text, without asking main', async () => {
    disk.set('src/app.py', 'x = 1\n');
    await store.open('src/app.py');
    store.setBuffer('src/app.py', 'x = 2\n');
    const asked = bridge.sent.length;
    bridge.emit('fs.change', { type: 'moved', from: 'src', to: 'lib', isDir: true, origin: 'operator' });
    expect(store.getState().active).toBe('lib/app.py');
    expect(store.get('lib/app.py')).toMatchObject({ name: 'app.py', buffer: 'x = 2\n', dirty: true });
    expect(store.get('src/app.py')).toBeUndefined();
    expect(bridge.sent.length).toBe(asked);
  });

  it('a file deleted on disk keeps its tab and unsaved text, saying it was deleted', async () => {
    await store.open('notes.txt');
    store.setBuffer('notes.txt', 'unsaved\n');
    disk.delete('notes.txt');
    bridge.emit('fs.change', { type: 'deleted', path: 'notes.txt', isDir: false, origin: 'external' });
    await untilState(store, () => store.get('notes.txt')?.conflict?.kind === 'deleted', 'the deleted conflict');
    expect(store.get('notes.txt')).toMatchObject({ buffer: 'unsaved\n', dirty: true });
  });
});
