/**
 * A run cut short by its Kiln's death (a real kill -9 of the process running it): what the code wrote waits in the
 * staging folder, and the next Kiln on the workspace applies it, under the run's turn, so undo covers it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { historyRecorder, HistoryStore, TurnUndo } from '../history';
import { Workspace } from '../workspace';
import { Verbs } from './verbs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PYTHON = '/usr/bin/python3';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Kiln's services on the workspace (as a fresh start would make them): workspace, history, verbs, undo. */
async function startKiln(root: string, dataDir: string) {
  const store = new HistoryStore({ dataDir, root });
  const workspace = await Workspace.open({
    root,
    trash: async () => false,
    beforeReplace: (replaced) => keep(replaced),
  });
  const keep = historyRecorder({ store, excluded: () => false });
  const verbs = new Verbs({ workspace, python: PYTHON, stageRunWritesIn: path.join(dataDir, 'runs') });
  cleanups.push(() => verbs.dispose());
  return { verbs, undo: new TurnUndo(store, workspace) };
}

/** Starts a Kiln process that runs `code` for turn `turn`; resolves once the code wrote `ready`. */
async function runInKilnProcess(root: string, staging: string, turn: string, code: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO, 'test-support/sandbox-run.ts'), root, staging, turn],
    { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin.end(code);
  await until(() => runHas(staging, 'ready') || child.exitCode !== null, 'the run to be ready', 60_000);
  expect(child.exitCode, stderr).toBe(null);
  return { child, exited };
}

describe('a run cut short by a crash of Kiln', () => {
  it('is applied by the next Kiln on the workspace, under its turn, changed-outside entries kept beside', async () => {
    const tree = await makeTempTree({ 'data/change.txt': 'before\n', 'mine.txt': 'v1\n', 'gone.txt': 'g\n' });
    const data = await makeTempDir('kiln-interrupted-');
    cleanups.push(tree.cleanup, data.cleanup);
    const staging = path.join(data.dir, 'runs');
    const { child, exited } = await runInKilnProcess(
      tree.root,
      staging,
      'turn-9',
      [
        'import os, time',
        "os.makedirs('out', exist_ok=True); open('out/new.txt', 'w').write('new\\n')",
        "open('data/change.txt', 'a').write('after\\n')",
        "open('mine.txt', 'w').write('from the run\\n')",
        "os.remove('gone.txt')",
        // A protected path: the next Kiln holds the dead one's run to the same list.
        "os.makedirs('.kiln', exist_ok=True); open('.kiln/config.yaml', 'w').write('jupyter: {}\\n')",
        "open('ready', 'w').close()",
        'time.sleep(600)',
      ].join('\n'),
    );
    // kill -9 of the Kiln running it: nothing is applied, the sandbox dies with it (--die-with-parent).
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(path.join(tree.root, 'out/new.txt'))).toBe(false);
    expect(await readFile(path.join(tree.root, 'data/change.txt'), 'utf8')).toBe('before\n');
    // While Kiln was down the operator saved a file the run wrote too.
    await writeFile(path.join(tree.root, 'mine.txt'), 'the operator’s\n');

    const { verbs, undo } = await startKiln(tree.root, data.dir);
    const recovered = await verbs.recoverInterruptedRuns();
    expect(recovered).toEqual([
      {
        turn: 'turn-9',
        files: {
          staged: true,
          created: ['mine (from run).txt', 'out/new.txt', 'ready'],
          changed: ['data/change.txt'],
          deleted: ['gone.txt'],
          kept: [
            { path: 'mine.txt', why: expect.stringContaining('mine (from run).txt'), beside: 'mine (from run).txt' },
          ],
          refused: [{ path: '.kiln/config.yaml', why: expect.stringContaining('Kiln config') }],
        },
      },
    ]);
    expect(existsSync(path.join(tree.root, '.kiln'))).toBe(false);
    expect(await readFile(path.join(tree.root, 'out/new.txt'), 'utf8')).toBe('new\n');
    expect(await readFile(path.join(tree.root, 'data/change.txt'), 'utf8')).toBe('before\nafter\n');
    expect(await readFile(path.join(tree.root, 'mine.txt'), 'utf8')).toBe('the operator’s\n');
    expect(await readFile(path.join(tree.root, 'mine (from run).txt'), 'utf8')).toBe('from the run\n');
    expect(readdirSync(staging)).toEqual([]);
    // A second start finds nothing more to apply.
    expect(await verbs.recoverInterruptedRuns()).toEqual([]);

    // The turn's undo covers what the cut-short run wrote.
    const undone = await undo.undo('turn-9');
    expect(undone.conflicts).toEqual([]);
    expect(await readFile(path.join(tree.root, 'data/change.txt'), 'utf8')).toBe('before\n');
    expect(await readFile(path.join(tree.root, 'gone.txt'), 'utf8')).toBe('g\n');
    expect(existsSync(path.join(tree.root, 'out/new.txt'))).toBe(false);
    expect(await readFile(path.join(tree.root, 'mine.txt'), 'utf8')).toBe('the operator’s\n');
  }, 120_000);

  it('leaves alone a run whose Kiln is alive, and one over another workspace', async () => {
    const tree = await makeTempTree({});
    const other = await makeTempTree({});
    const data = await makeTempDir('kiln-interrupted-');
    cleanups.push(tree.cleanup, other.cleanup, data.cleanup);
    const staging = path.join(data.dir, 'runs');
    const { child, exited } = await runInKilnProcess(
      tree.root,
      staging,
      'turn-1',
      "import time\nopen('ready', 'w').close()\ntime.sleep(600)",
    );
    cleanups.push(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    const here = await startKiln(tree.root, data.dir);
    expect(await here.verbs.recoverInterruptedRuns()).toEqual([]);
    child.kill('SIGKILL');
    await exited;
    const elsewhere = await startKiln(other.root, data.dir);
    expect(await elsewhere.verbs.recoverInterruptedRuns()).toEqual([]);
    expect(existsSync(path.join(tree.root, 'ready'))).toBe(false);
    expect(await here.verbs.recoverInterruptedRuns()).toMatchObject([
      { turn: 'turn-1', files: { created: ['ready'] } },
    ]);
  }, 120_000);
});

function runHas(staging: string, rel: string): boolean {
  const runs = existsSync(staging) ? readdirSync(staging) : [];
  return runs.some((run) => existsSync(path.join(staging, run, 'upper', rel)));
}
