/**
 * A run's many new files are applied as one batch per folder (Workspace.createFilesIn): real files, a real upper
 * layer read by overlayChanges, real local history and turn undo, the real change feed. The batch keeps every
 * promise of the write path: protected paths refused, nothing written over a name taken, history per file, one
 * `created` per file for every owner of file state.
 */
import { existsSync, readdirSync } from 'node:fs';
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { createdPaths } from '../../shared/fs-change';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { ChangeFeed } from '../changes';
import { historyCreationRecorder, historyRecorder, HistoryStore, TurnUndo, withWriteCause } from '../history';
import { overlayChanges } from '../sandbox';
import { hashText, Workspace, type DiskState, type ReplacedFile } from '../workspace';
import { applyRunChanges, BATCH_BYTES } from './run-changes';

const MiB = 1024 * 1024;

const PYTHON = '/usr/bin/python3';
/** More than the 256 files a batch once held: a folder of small files is one batch all the same. */
const FILES = 300;

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setUp(files: Record<string, string>) {
  const tree = await makeTempTree(files);
  const data = await makeTempDir('kiln-run-batch-');
  cleanups.push(tree.cleanup, data.cleanup);
  const store = new HistoryStore({ dataDir: data.dir, root: tree.root });
  const feed = new ChangeFeed({ root: tree.root });
  const heard: FsChange[] = [];
  feed.onDidChange((change) => heard.push(change));
  const reported: { change: FsChange; disk?: DiskState | readonly DiskState[] }[] = [];
  const batches: ReplacedFile[][] = [];
  const keepCreated = historyCreationRecorder({ store, excluded: () => false });
  const workspace = await Workspace.open({
    root: tree.root,
    trash: async () => false,
    onChange: (change, disk) => {
      reported.push({ change, disk });
      feed.reportOwn(change, disk);
    },
    beforeReplace: historyRecorder({ store, excluded: () => false }),
    keepCreated: (created) => {
      batches.push(created);
      return keepCreated(created);
    },
  });
  const upper = path.join(data.dir, 'upper');
  await mkdir(upper);
  return { root: tree.root, upper, store, workspace, heard, reported, batches, undo: new TurnUndo(store, workspace) };
}

describe("a run's new files, applied as one batch per folder", () => {
  it('creates them with one history batch and one change event for the folder, protected paths refused', async () => {
    const { root, upper, workspace, heard, reported, batches, store, undo } = await setUp({
      'out/taken.txt': 'the operator’s\n',
    });
    await mkdir(path.join(upper, 'out'));
    const names = Array.from({ length: FILES }, (_, i) => `f${String(i).padStart(3, '0')}.txt`);
    for (const name of names) await writeFile(path.join(upper, 'out', name), `${name}\n`);
    await writeFile(path.join(upper, 'out/secret.txt'), 'not for the workspace\n');
    await writeFile(path.join(upper, 'out/taken.txt'), 'the run’s\n');
    const changes = await overlayChanges(upper, root, PYTHON);

    const result = await withWriteCause({ agentSession: 'agent', turn: 'turn-1' }, () =>
      applyRunChanges({
        workspace,
        upper,
        changes,
        startedAt: Date.now() + 60_000,
        keep: async () => undefined,
        refuse: (rel) => (rel === 'out/secret.txt' ? 'a protected path' : null),
      }),
    );

    expect(result.created).toEqual(names.map((name) => `out/${name}`));
    expect(result.changed).toEqual(['out/taken.txt']);
    expect(result.refused).toEqual([{ path: 'out/secret.txt', why: 'a protected path' }]);
    expect(existsSync(path.join(root, 'out/secret.txt'))).toBe(false);
    expect(await readFile(path.join(root, 'out/f007.txt'), 'utf8')).toBe('f007.txt\n');
    // No temp file of the batch left beside them.
    expect(readdirSync(path.join(root, 'out')).filter((name) => name.startsWith('.kiln-'))).toEqual([]);

    // History heard of the folder's new files at once, not file by file.
    expect(batches.map((batch) => batch.length)).toEqual([FILES]);
    // The feed carries one event for the folder (not one per file), naming every file, as the agent's, with each
    // file's disk state for the feed's echo check.
    const batchEvents = heard.filter((change) => change.type === 'createdFiles');
    expect(batchEvents).toHaveLength(1);
    expect(heard.filter((change) => change.type === 'created')).toEqual([]);
    expect(batchEvents.flatMap((change) => createdPaths(change))).toEqual(names.map((name) => `out/${name}`));
    expect(batchEvents.every((change) => change.dir === 'out' && change.origin === 'agent')).toBe(true);
    const first = reported.find(({ change }) => change.type === 'createdFiles')!;
    const disks = first.disk as readonly DiskState[];
    expect(disks).toHaveLength(FILES);
    const info = await lstat(path.join(root, 'out/f042.txt'));
    expect(disks[42]).toMatchObject({ size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino });

    // History per file: each one of the batch is the turn's, and undoing one alone removes just it.
    expect((await store.list('out/f042.txt')).map((entry) => [entry.reason, entry.turn])).toEqual([
      ['create', 'turn-1'],
    ]);
    const undone = await undo.undo('turn-1', { paths: ['out/f042.txt', 'out/taken.txt'] });
    expect(undone.conflicts).toEqual([]);
    expect(existsSync(path.join(root, 'out/f042.txt'))).toBe(false);
    expect(existsSync(path.join(root, 'out/f043.txt'))).toBe(true);
    expect(await readFile(path.join(root, 'out/taken.txt'), 'utf8')).toBe('the operator’s\n');

    // A batch's lineage (its entry names its path) follows its folder's move like any other.
    await store.applyMove('out', 'moved', true);
    expect((await store.list('moved/f043.txt')).map((entry) => entry.reason)).toEqual(['create']);
    expect(await store.list('out/f043.txt')).toEqual([]);
  });

  it('holds at most BATCH_BYTES (and one file) of a folder in memory at once: a larger folder takes batches', async () => {
    const { root, upper, workspace, heard, batches } = await setUp({});
    await mkdir(path.join(upper, 'big'));
    // 1 MiB each (the largest a batch reads): the bound is passed after BATCH_BYTES of them, by one file at most.
    const perBatch = BATCH_BYTES / MiB;
    const count = perBatch + 3;
    const names = Array.from({ length: count }, (_, i) => `b${String(i).padStart(2, '0')}.bin`);
    for (const [i, name] of names.entries()) await writeFile(path.join(upper, 'big', name), Buffer.alloc(MiB, i));
    const changes = await overlayChanges(upper, root, PYTHON);
    const result = await withWriteCause({ agentSession: 'agent', turn: 'turn-2' }, () =>
      applyRunChanges({ workspace, upper, changes, startedAt: Date.now() + 60_000, keep: async () => undefined }),
    );
    expect(result.created).toEqual(names.map((name) => `big/${name}`));
    expect(batches.map((batch) => batch.length)).toEqual([perBatch, count - perBatch]);
    expect(heard.filter((change) => change.type === 'createdFiles')).toHaveLength(2);
    expect(await readFile(path.join(root, 'big/b07.bin')).then((bytes) => bytes.equals(Buffer.alloc(MiB, 7)))).toBe(
      true,
    );
  });

  it('counts each file as 1 KiB at least: a folder of many empty files takes batches too', async () => {
    const { root, upper, workspace, heard } = await setUp({});
    await mkdir(path.join(upper, 'empty'));
    // A bound of 8 KiB: eight empty files a batch (16,384 with BATCH_BYTES).
    const names = Array.from({ length: 10 }, (_, i) => `e${i}`);
    for (const name of names) await writeFile(path.join(upper, 'empty', name), '');
    const result = await withWriteCause({ agentSession: 'agent', turn: 'turn-3' }, async () =>
      applyRunChanges({
        workspace,
        upper,
        changes: await overlayChanges(upper, root, PYTHON),
        startedAt: Date.now() + 60_000,
        keep: async () => undefined,
        batchBytes: 8 * 1024,
      }),
    );
    expect(result.created).toHaveLength(10);
    const events = heard.filter((change) => change.type === 'createdFiles');
    expect(events.map((change) => createdPaths(change).length)).toEqual([8, 2]);
  });

  it('gives each new file the run’s permission bits, also those the umask would take', async () => {
    const { root, workspace } = await setUp({});
    const bytes = Buffer.from('x\n');
    const modes = { 'plain.txt': 0o644, 'script.sh': 0o755, 'private.txt': 0o600, 'shared.txt': 0o666 };
    const outcome = await workspace.createFilesIn(
      '',
      Object.entries(modes).map(([name, mode]) => ({ name, bytes, mode })),
      { origin: 'agent' },
    );
    expect(outcome.created).toHaveLength(4);
    for (const [name, mode] of Object.entries(modes))
      expect({ name, mode: ((await lstat(path.join(root, name))).mode & 0o7777).toString(8) }).toEqual({
        name,
        mode: mode.toString(8),
      });
  });

  it('never writes over a name that is taken: a file, a link or a folder', async () => {
    const { root, workspace, heard } = await setUp({ 'out/file.txt': 'mine\n', 'out/dir/inner.txt': 'x\n' });
    await symlink('/etc/hostname', path.join(root, 'out/link'));
    const bytes = Buffer.from('from the run\n');
    const outcome = await workspace.createFilesIn(
      'out',
      ['file.txt', 'link', 'dir', 'new.txt'].map((name) => ({ name, bytes, mode: 0o640 })),
      { origin: 'agent' },
    );
    expect(outcome).toEqual({ created: ['out/new.txt'], taken: ['file.txt', 'link', 'dir'], failed: [] });
    expect(await readFile(path.join(root, 'out/file.txt'), 'utf8')).toBe('mine\n');
    expect((await lstat(path.join(root, 'out/link'))).isSymbolicLink()).toBe(true);
    expect(((await lstat(path.join(root, 'out/new.txt'))).mode & 0o777).toString(8)).toBe('640');
    expect(heard).toEqual([{ type: 'createdFiles', dir: 'out', names: ['new.txt'], isDir: false, origin: 'agent' }]);
    await expect(
      workspace.createFilesIn('out', [{ name: '../escape.txt', bytes, mode: 0o644 }], { origin: 'agent' }),
    ).rejects.toMatchObject({ code: 'E_BAD_REQUEST' });
    expect(existsSync(path.join(root, 'escape.txt'))).toBe(false);
  });
});

describe('an upload received by the workspace', () => {
  it('is hashed for history only when asked: an operator’s upload skips the hash', async () => {
    const tree = await makeTempTree({ 'a.bin': 'old', 'b.bin': 'old' });
    cleanups.push(tree.cleanup);
    const heard: ReplacedFile[] = [];
    const workspace = await Workspace.open({ root: tree.root, beforeReplace: async (file) => void heard.push(file) });
    const body = async function* () {
      yield Buffer.from('new bytes');
    };
    await workspace.receive('a.bin', body(), { onConflict: 'overwrite' });
    await workspace.receive('b.bin', body(), { onConflict: 'overwrite', hashed: false });
    expect(heard.map((file) => [file.path, file.nextHash])).toEqual([
      ['a.bin', hashText(Buffer.from('new bytes'))],
      ['b.bin', undefined],
    ]);
    expect(await readFile(path.join(tree.root, 'b.bin'), 'utf8')).toBe('new bytes');
  });
});
