import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KilnError } from '../../../shared/errors';
// The real back end in-process: the store talks to the same dispatch and event hub both hosts use.
import { MemoryStore } from '../../../main/prefs';
import { inProcessBridge } from '../../../main/hosts/in-process-bridge';
import { createServices, type Services } from '../../../main/services';
import { OpenFilesStore } from './open-files';

let root: string;
let dataDir: string;
let services: Services;
let store: OpenFilesStore;

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 8000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'kiln-open-files-'));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-open-files-data-'));
  await writeFile(path.join(root, 'notes.txt'), 'one\n');
  services = await createServices({ root, dataDir, prefsStore: new MemoryStore() });
  const bridge = inProcessBridge(services);
  store = new OpenFilesStore(bridge);
  bridge.on('fs.change', (change) => store.handleFsChange(change));
});

afterEach(async () => {
  await services.dispose();
  await rm(root, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('OpenFilesStore', () => {
  it('opens, marks edits dirty, and saves through the atomic write', async () => {
    await store.open('notes.txt');
    expect(store.activeFile).toMatchObject({ path: 'notes.txt', buffer: 'one\n', dirty: false });
    store.setBuffer('notes.txt', 'one\ntwo\n');
    expect(store.get('notes.txt')?.dirty).toBe(true);
    await store.save('notes.txt');
    expect(store.get('notes.txt')?.dirty).toBe(false);
    expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    // Its own save does not come back as a conflict.
    await new Promise((resolve) => setTimeout(resolve, 400));
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

  it('a deleted file closes when clean and keeps its text with a conflict when dirty', async () => {
    await writeFile(path.join(root, 'other.txt'), 'x\n');
    await store.open('notes.txt');
    await store.open('other.txt');
    store.setBuffer('other.txt', 'unsaved\n');
    await unlink(path.join(root, 'notes.txt'));
    await unlink(path.join(root, 'other.txt'));
    await until(() => !store.get('notes.txt'), 'the clean tab to close');
    await until(() => store.get('other.txt')?.conflict?.kind === 'deleted', 'the deleted conflict');
    expect(store.get('other.txt')?.buffer).toBe('unsaved\n');
    await store.overwrite('other.txt');
    expect(await readFile(path.join(root, 'other.txt'), 'utf8')).toBe('unsaved\n');
  });

  it('follows a rename of the file or of a folder holding it', async () => {
    await store.open('notes.txt');
    store.renamed('notes.txt', 'renamed.txt');
    expect(store.getState()).toMatchObject({ active: 'renamed.txt' });
    expect(store.get('renamed.txt')?.name).toBe('renamed.txt');
    store.renamed('', 'x'); // the root never moves; nothing changes
    store.renamed('renamed.txt', 'dir/renamed.txt');
    expect(store.getState().files.map((f) => f.path)).toEqual(['dir/renamed.txt']);
  });
});
