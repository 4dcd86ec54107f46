/**
 * What sandboxed code writes is staged in an overlay and applied through the workspace when the run ends: real
 * bubblewrap, a real overlay in a user namespace, real local history and the real turn undo.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, statSync } from 'node:fs';
import { lstat, mkdir, readFile, readlink, symlink as symlinkAt, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { processRunChip } from '../../shared/contract/verb-chips';
import { singleChanges } from '../../shared/fs-change';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { historyRecorder, HistoryStore, TurnUndo, withWriteCause } from '../history';
import { Workspace } from '../workspace';
import { Verbs } from './verbs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PYTHON = '/usr/bin/python3';
const BINARY = Buffer.from([0, 255, 254, 10, 13, 0x80, 0x81]);

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setUp(files: Record<string, string>, options: { runMs?: number } = {}) {
  const tree = await makeTempTree(files);
  const data = await makeTempDir('kiln-run-changes-');
  const staging = path.join(data.dir, 'runs');
  const changes: FsChange[] = [];
  const store = new HistoryStore({ dataDir: data.dir, root: tree.root });
  const workspace = await Workspace.open({
    root: tree.root,
    trash: async () => false,
    onChange: (change) => changes.push(change),
    beforeReplace: (replaced) => keep(replaced),
  });
  const keep = historyRecorder({ store, excluded: () => false });
  const verbs = new Verbs({
    workspace,
    python: PYTHON,
    stageRunWritesIn: staging,
    timeouts: options.runMs ? { runMs: options.runMs } : undefined,
  });
  cleanups.push(tree.cleanup, data.cleanup, () => verbs.dispose());
  return { root: tree.root, staging, changes, store, workspace, verbs, undo: new TurnUndo(store, workspace) };
}

describe('a sandboxed run over an overlay', () => {
  it('applies what the code created, changed and deleted as the turn’s writes, and Undo this turn takes them all back', async () => {
    const { root, staging, changes, verbs, undo } = await setUp({
      'data/change.txt': 'before\n',
      'data/gone.txt': 'gone\n',
      'old/inner/x.txt': 'x\n',
      'nest/inner/x.txt': 'nx\n',
      'keep.txt': 'untouched\n',
      'opened.txt': 'same\n',
    });
    const result = await withWriteCause({ agentSession: 'agent', turn: 'turn-1' }, () =>
      verbs.call('execute-code', {
        code: [
          'import os, shutil',
          "open('data/new.txt', 'w').write('new\\n')",
          "open('data/change.txt', 'a').write('after\\n')",
          "os.remove('data/gone.txt')",
          `open('data/blob.bin', 'wb').write(bytes(${JSON.stringify([...BINARY])}))`,
          "shutil.rmtree('old'); os.makedirs('old'); open('old/y.txt', 'w').write('y\\n')",
          "os.makedirs('made/deep'); open('made/deep/z.txt', 'w').write('z\\n')",
          // Made again below a folder made again: the old one's files are gone too.
          "shutil.rmtree('nest'); os.makedirs('nest/inner'); open('nest/inner/n.txt', 'w').write('n\\n')",
          // Opened for writing, left the same: not a change.
          "open('opened.txt', 'r+').close()",
          "open('tool.sh', 'w').write('#!/bin/sh\\n'); os.chmod('tool.sh', 0o750)",
          // What the code sees while it runs: its own writes.
          "print(open('data/new.txt').read(), end='')",
          "print(os.path.exists('data/gone.txt'), sorted(os.listdir('old')))",
        ].join('\n'),
      }),
    );
    expect(result.stdout).toBe("new\nFalse ['y.txt']\n");
    expect(result.files).toEqual({
      staged: true,
      created: ['data/blob.bin', 'data/new.txt', 'made/deep/z.txt', 'nest/inner/n.txt', 'old/y.txt', 'tool.sh'],
      changed: ['data/change.txt'],
      deleted: ['data/gone.txt', 'nest/inner/x.txt', 'old/inner/x.txt'],
      kept: [],
    });
    expect(await readFile(path.join(root, 'data/change.txt'), 'utf8')).toBe('before\nafter\n');
    expect(await readFile(path.join(root, 'data/blob.bin'))).toEqual(BINARY);
    expect(statSync(path.join(root, 'tool.sh')).mode & 0o777).toBe(0o750);
    expect(existsSync(path.join(root, 'data/gone.txt'))).toBe(false);
    expect(readdirSync(path.join(root, 'old'))).toEqual(['y.txt']);
    // Reported by Kiln as the agent's, not noticed later as another program's (new files in their folder's batch).
    expect(changes.flatMap(singleChanges)).toContainEqual({
      type: 'created',
      path: 'data/new.txt',
      isDir: false,
      origin: 'agent',
    });
    expect(changes).toContainEqual({ type: 'updated', path: 'data/change.txt', isDir: false, origin: 'agent' });
    expect(changes).toContainEqual({ type: 'deleted', path: 'data/gone.txt', isDir: false, origin: 'agent' });
    // The run's private folder is gone with it.
    await until(() => readdirSync(staging).length === 0, 'the run folder to be removed');

    const files = await undo.files('turn-1');
    expect(files).toEqual(
      expect.arrayContaining([
        { path: 'data/new.txt', change: 'created' },
        { path: 'data/change.txt', change: 'changed' },
        { path: 'data/gone.txt', change: 'deleted' },
        { path: 'old/inner/x.txt', change: 'deleted' },
      ]),
    );
    const undone = await undo.undo('turn-1');
    expect(undone.conflicts).toEqual([]);
    expect(await readFile(path.join(root, 'data/change.txt'), 'utf8')).toBe('before\n');
    expect(await readFile(path.join(root, 'data/gone.txt'), 'utf8')).toBe('gone\n');
    expect(await readFile(path.join(root, 'old/inner/x.txt'), 'utf8')).toBe('x\n');
    expect(await readFile(path.join(root, 'nest/inner/x.txt'), 'utf8')).toBe('nx\n');
    for (const made of ['data/new.txt', 'data/blob.bin', 'old/y.txt', 'made/deep/z.txt', 'tool.sh'])
      expect(existsSync(path.join(root, made)), made).toBe(false);
    expect(await readFile(path.join(root, 'keep.txt'), 'utf8')).toBe('untouched\n');
  });

  it('keeps the workspace as it was while the run goes on, and never writes over a file changed outside meanwhile', async () => {
    const { root, staging, verbs } = await setUp({ 'shared.txt': 'v1\n', 'doomed.txt': 'd\n', go: '' });
    const running = verbs.call('execute-code', {
      code: [
        'import os, time',
        "open('shared.txt', 'w').write('from the run\\n')",
        "os.remove('doomed.txt')",
        "open('fresh.txt', 'w').write('fresh\\n')",
        "open('ready', 'w').close()",
        // The test's go-ahead: it writes into a workspace file the run never wrote, which the code reads through.
        "while not open('go').read(): time.sleep(0.02)",
        "os.remove('ready')",
      ].join('\n'),
    });
    await until(() => runHas(staging, 'ready'), 'the run to be ready');
    expect(existsSync(path.join(root, 'fresh.txt'))).toBe(false);
    expect(await readFile(path.join(root, 'shared.txt'), 'utf8')).toBe('v1\n');
    // The operator saves both files while the run goes on.
    await writeFile(path.join(root, 'shared.txt'), 'the operator’s\n');
    await writeFile(path.join(root, 'doomed.txt'), 'still wanted\n');
    await writeFile(path.join(root, 'go'), 'go');
    const result = await running;
    expect(result.files?.kept).toEqual([
      { path: 'doomed.txt', why: expect.stringContaining('changed outside the run') },
      {
        path: 'shared.txt',
        why: expect.stringContaining('shared (from run).txt'),
        beside: 'shared (from run).txt',
      },
    ]);
    expect(await readFile(path.join(root, 'shared.txt'), 'utf8')).toBe('the operator’s\n');
    expect(await readFile(path.join(root, 'shared (from run).txt'), 'utf8')).toBe('from the run\n');
    expect(await readFile(path.join(root, 'doomed.txt'), 'utf8')).toBe('still wanted\n');
    expect(await readFile(path.join(root, 'fresh.txt'), 'utf8')).toBe('fresh\n');
    expect(existsSync(path.join(root, 'ready'))).toBe(false);
    expect(processRunChip(result).preview).toMatch(
      /^doomed\.txt: changed outside the run; the run deleted it, it was kept\nshared\.txt: changed outside the run; the run's version is in shared \(from run\)\.txt/,
    );
  });

  it('applies what a timed-out run wrote, and removes its folder', async () => {
    const { root, staging, verbs } = await setUp({}, { runMs: 1500 });
    const result = await verbs.call('execute-code', {
      code: "open('partial.txt', 'w').write('half\\n')\nwhile True: pass",
    });
    expect(result.timed_out).toBe(true);
    expect(result.files?.created).toEqual(['partial.txt']);
    expect(await readFile(path.join(root, 'partial.txt'), 'utf8')).toBe('half\n');
    await until(() => readdirSync(staging).length === 0, 'the run folder to be removed');
  });

  it('removes the folder of a cancelled run too', async () => {
    const { staging, verbs } = await setUp({});
    const controller = new AbortController();
    const running = verbs.call(
      'execute-code',
      { code: "open('ready', 'w').close()\nwhile True: pass" },
      { signal: controller.signal },
    );
    await until(() => runHas(staging, 'ready'), 'the run to be ready');
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'E_CANCELLED' });
    await until(() => readdirSync(staging).length === 0, 'the run folder to be removed');
  });

  it('copies a link the code made as a link, never what it points to', async () => {
    const { root, verbs } = await setUp({});
    const result = await verbs.call('execute-code', { code: "import os\nos.symlink('/etc/hostname', 'host')" });
    expect(result.files?.created).toEqual(['host']);
    expect((await lstat(path.join(root, 'host'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(root, 'host'))).toBe('/etc/hostname');
  });

  it('undoes the empty folders, links, mode changes and large files a run made, and says what it cannot', async () => {
    const { root, verbs, undo } = await setUp({
      'tool.sh': '#!/bin/sh\n',
      'old-link-target.txt': 'o\n',
      'dir/empty-before/': '',
      'big-before.bin': '',
    });
    chmodSync(path.join(root, 'tool.sh'), 0o644);
    await symlinkAt('old-link-target.txt', path.join(root, 'link'));
    // Over history's 16 MiB: its version before a change cannot be kept.
    await writeFile(path.join(root, 'big-before.bin'), Buffer.alloc(17 * 1024 * 1024, 1));
    const result = await withWriteCause({ agentSession: 'agent', turn: 'turn-2' }, () =>
      verbs.call('execute-code', {
        code: [
          'import os',
          "os.makedirs('empty/inner')",
          "os.rmdir('dir/empty-before')",
          "os.chmod('tool.sh', 0o755)",
          "os.remove('link'); os.symlink('elsewhere.txt', 'link')",
          "os.symlink('/etc/hostname', 'new-link')",
          // Over 64 MiB: streamed into the workspace, not read whole.
          "f = open('huge.bin', 'wb'); f.truncate(65 * 1024 * 1024); f.close(); os.chmod('huge.bin', 0o600)",
          "open('big-before.bin', 'ab').write(b'more')",
        ].join('\n'),
      }),
    );
    expect(result.files).toMatchObject({
      staged: true,
      created: ['huge.bin', 'new-link'],
      changed: ['big-before.bin', 'link', 'tool.sh'],
      deleted: [],
    });
    expect(statSync(path.join(root, 'tool.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(root, 'huge.bin')).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(root, 'empty/inner'))).toBe(true);
    expect(existsSync(path.join(root, 'dir/empty-before'))).toBe(false);
    expect(await readlink(path.join(root, 'link'))).toBe('elsewhere.txt');

    const files = await undo.files('turn-2');
    expect(files).toEqual(
      expect.arrayContaining([
        { path: 'empty', change: 'created', kind: 'dir' },
        { path: 'empty/inner', change: 'created', kind: 'dir' },
        { path: 'dir/empty-before', change: 'deleted', kind: 'dir' },
        { path: 'tool.sh', change: 'changed' },
        { path: 'link', change: 'changed', kind: 'symlink' },
        { path: 'new-link', change: 'created', kind: 'symlink' },
        { path: 'huge.bin', change: 'created' },
        { path: 'big-before.bin', change: 'changed', cannotUndo: expect.stringContaining('too large to keep') },
      ]),
    );
    const undone = await undo.undo('turn-2');
    expect(undone.conflicts).toEqual([]);
    expect(undone.notUndone).toEqual([{ path: 'big-before.bin', why: expect.stringContaining('too large to keep') }]);
    expect(statSync(path.join(root, 'tool.sh')).mode & 0o777).toBe(0o644);
    expect(existsSync(path.join(root, 'empty'))).toBe(false);
    expect(statSync(path.join(root, 'dir/empty-before')).isDirectory()).toBe(true);
    expect(await readlink(path.join(root, 'link'))).toBe('old-link-target.txt');
    expect(existsSync(path.join(root, 'new-link'))).toBe(false);
    expect(existsSync(path.join(root, 'huge.bin'))).toBe(false);
  }, 60_000);

  it('renames what the run made, moves a workspace folder with shutil.move, and os.rename of one fails with EXDEV', async () => {
    const { root, verbs } = await setUp({ 'old/a.txt': 'a\n', 'other/b.txt': 'b\n', 'file.txt': 'f\n' });
    const result = await verbs.call('execute-code', {
      code: [
        'import errno, os, shutil, subprocess',
        // A folder made during the run, then renamed into place (how tools publish a result): works.
        "os.makedirs('tmp-out'); open('tmp-out/r.txt', 'w').write('r\\n'); os.rename('tmp-out', 'out')",
        // Files rename fine; so does a folder moved with shutil.move (it copies where rename cannot).
        "os.rename('file.txt', 'renamed.txt')",
        "shutil.move('other', 'moved')",
        "try:\n    os.rename('old', 'new')\nexcept OSError as e:\n    print(errno.errorcode[e.errno])",
      ].join('\n'),
    });
    expect(result.stdout).toBe('EXDEV\n');
    expect(await readFile(path.join(root, 'out/r.txt'), 'utf8')).toBe('r\n');
    expect(await readFile(path.join(root, 'renamed.txt'), 'utf8')).toBe('f\n');
    expect(await readFile(path.join(root, 'moved/b.txt'), 'utf8')).toBe('b\n');
    expect(existsSync(path.join(root, 'other'))).toBe(false);
    expect(await readFile(path.join(root, 'old/a.txt'), 'utf8')).toBe('a\n');
  });

  it('says Undo cannot cover the writes where no overlay can be staged, and they go to disk directly', async () => {
    const tree = await makeTempTree({});
    const data = await makeTempDir('kiln-run-changes-');
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: PYTHON,
      // overlayfs options cannot carry a ':' in a path.
      stageRunWritesIn: path.join(data.dir, 'a:b'),
    });
    cleanups.push(tree.cleanup, data.cleanup, () => verbs.dispose());
    const result = await verbs.call('execute-code', { code: "open('direct.txt', 'w').write('d')" });
    expect(result.files).toMatchObject({ staged: false, direct_reason: expect.any(String) });
    expect(await readFile(path.join(tree.root, 'direct.txt'), 'utf8')).toBe('d');
    const chip = processRunChip(result);
    expect(chip.summary).toBe('exit 0 · writes not undoable');
    expect(chip.preview).toMatch(/^Undo this turn cannot restore what this run wrote/);
  });
});

describe('a data folder inside the workspace (the workspace is the home folder)', () => {
  it('stages the run in it, hidden from the code, and applies its writes', async () => {
    const tree = await makeTempTree({ 'a.txt': 'a\n' });
    const data = path.join(tree.root, '.config/kiln');
    await mkdir(data, { recursive: true });
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: PYTHON,
      privateDirs: [data],
      stageRunWritesIn: path.join(data, 'runs'),
    });
    cleanups.push(tree.cleanup, () => verbs.dispose());
    const result = await verbs.call('execute-code', {
      code: "import os\nopen('a.txt', 'a').write('b\\n')\nprint(os.listdir('.config/kiln'))",
    });
    expect(result.stdout).toBe('[]\n');
    expect(result.files).toMatchObject({ staged: true, changed: ['a.txt'] });
    expect(await readFile(path.join(tree.root, 'a.txt'), 'utf8')).toBe('a\nb\n');
  });
});

describe('a workspace with another filesystem mounted inside', () => {
  it.skipIf(process.getuid?.() !== 0)(
    'is not staged (the overlay would hide the mount): the code reads and writes it directly, and says so',
    async () => {
      const { root, verbs } = await setUp({ 'data/': '' });
      const data = path.join(root, 'data');
      expect(spawnSync('mount', ['-t', 'tmpfs', 'kiln-test', data]).status).toBe(0);
      cleanups.push(async () => void spawnSync('umount', [data]));
      await writeFile(path.join(data, 'on-the-mount.txt'), 'mounted\n');
      const result = await verbs.call('execute-code', {
        code: "print(open('data/on-the-mount.txt').read(), end='')\nopen('data/out.txt', 'w').write('o')",
      });
      expect(result.stdout).toBe('mounted\n');
      expect(result.files).toMatchObject({
        staged: false,
        direct_reason: `another filesystem is mounted inside the workspace (${data})`,
      });
      expect(await readFile(path.join(data, 'out.txt'), 'utf8')).toBe('o');
    },
  );
});

const asRoot = process.getuid?.() === 0;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const NOBODY = 65534;

describe('run by a user without privileges', () => {
  it.skipIf(!asRoot || !setpriv)(
    'stages and applies the writes of code run by nobody (setpriv), as nobody',
    async () => {
      const tree = await makeTempTree({ 'mine.txt': 'before\n', 'gone.txt': 'g\n' });
      const data = await makeTempDir('kiln-run-changes-');
      cleanups.push(tree.cleanup, data.cleanup);
      for (const at of [tree.root, path.join(tree.root, 'mine.txt'), path.join(tree.root, 'gone.txt'), data.dir])
        chownSync(at, NOBODY, NOBODY);
      const opened = openToOthers(REPO);
      const child = spawnSync(
        setpriv!,
        [
          `--reuid=${NOBODY}`,
          `--regid=${NOBODY}`,
          '--clear-groups',
          process.execPath,
          '--import',
          'tsx',
          path.join(REPO, 'test-support/sandbox-run.ts'),
          tree.root,
          path.join(data.dir, 'runs'),
        ],
        {
          cwd: REPO,
          input: "import os\nopen('mine.txt', 'a').write('after\\n')\nos.remove('gone.txt')\nprint(os.getuid())",
          encoding: 'utf8',
          env: { ...process.env, HOME: tree.root },
          timeout: 60_000,
        },
      );
      for (const { dir, mode } of opened) chmodSync(dir, mode);
      expect(child.status, child.stderr).toBe(0);
      const { uid, result } = JSON.parse(child.stdout) as { uid: number; result: Record<string, unknown> };
      expect(uid).toBe(NOBODY);
      expect(result).toMatchObject({
        stdout: `${NOBODY}\n`,
        files: { staged: true, changed: ['mine.txt'], deleted: ['gone.txt'] },
      });
      expect(await readFile(path.join(tree.root, 'mine.txt'), 'utf8')).toBe('before\nafter\n');
      expect(statSync(path.join(tree.root, 'mine.txt')).uid).toBe(NOBODY);
      expect(existsSync(path.join(tree.root, 'gone.txt'))).toBe(false);
      expect(readdirSync(path.join(data.dir, 'runs'))).toEqual([]);
    },
    90_000,
  );
});

/** Whether a run staged in `staging` wrote `rel` (its upper layer is Kiln's own folder, the test may look in). */
function runHas(staging: string, rel: string): boolean {
  const runs = existsSync(staging) ? readdirSync(staging) : [];
  return runs.some((run) => existsSync(path.join(staging, run, 'upper', rel)));
}

/** Gives others search permission on `dir` and each ancestor that lacks it; resolves what to put back. */
function openToOthers(dir: string): { dir: string; mode: number }[] {
  const changed: { dir: string; mode: number }[] = [];
  for (let at = dir; ; at = path.dirname(at)) {
    const mode = statSync(at).mode & 0o7777;
    if (!(mode & 0o001)) {
      chmodSync(at, mode | 0o001);
      changed.push({ dir: at, mode });
    }
    if (path.dirname(at) === at) return changed;
  }
}
