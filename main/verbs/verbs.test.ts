import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { WorkspaceWatcher } from '../watcher';
import { Workspace } from '../workspace';
import { makeTempTree } from '../../test-support/temp-workspace';
import { processesIn } from '../../test-support/processes';
import { until } from '../../test-support/until';
import { findKernelPython, slugForCode, slugify, Verbs, type NotebookVerbTarget } from '.';
import { AuditLog } from './audit-log';
import { verbInputJsonSchema } from '../../shared/contract/verbs';

const PYTHON = '/usr/bin/python3';
const AGENTS_GUIDE = readFileSync(path.resolve(__dirname, '../../docs/agents-and-review.md'), 'utf8');

/** A replay's environment: nothing set but PATH (with Debian's python3 first). */
const bareEnv = () => ({ PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` });

/** `python3 <step>` from the workspace root, with nothing set. */
function replay(step: string): { stdout: string; returncode: number | null } {
  const result = spawnSync(PYTHON, [step], { cwd: root, env: bareEnv(), encoding: 'utf8' });
  return { stdout: result.stdout, returncode: result.status };
}

const stepNumber = (script: string) => Number(/step_(\d+)_/.exec(script)?.[1]);

let root: string;
let cleanup: () => Promise<void>;
let workspace: Workspace;
let verbs: Verbs;

async function setup(
  files: Record<string, string> = {},
  options: Partial<ConstructorParameters<typeof Verbs>[0]> = {},
) {
  ({ root, cleanup } = await makeTempTree(files));
  workspace = await Workspace.open({ root });
  verbs = new Verbs({ workspace, python: PYTHON, timeouts: { runMs: 20_000, heavyRunMs: 30_000 }, ...options });
}

afterEach(async () => {
  await verbs?.dispose();
  await cleanup?.();
});

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');
const exists = (rel: string) => existsSync(path.join(root, rel));
const scripts = async () => (exists('scripts') ? (await fs.readdir(path.join(root, 'scripts'))).sort() : []);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KilnError) return err.code;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function messageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the call to fail');
}

/** Waits until no process of the run is left; `printed` (the pid the run printed) proves it got as far as its child. */
async function noneLeft(printed: string): Promise<void> {
  expect(Number(printed.trim().split(' ')[0])).toBeGreaterThan(0);
  await until(() => processesIn(workspace.root).length === 0, 'every process of the run to end', 5000);
}

describe('list-files and read-file', () => {
  beforeEach(() =>
    setup({ 'src/a.py': 'one\ntwo\nthree\n', 'src/pkg/b.py': '', '.env': 'X=1\n', 'img.bin': '\u0000\u0001' }),
  );

  it('lists a folder, folders first, hidden entries included, and logs nothing', async () => {
    expect(await verbs.call('list-files', { path: 'src' })).toEqual({
      path: 'src',
      entries: [
        { name: 'pkg', kind: 'dir' },
        { name: 'a.py', kind: 'file' },
      ],
    });
    expect((await verbs.call('list-files', {})).entries.map((e) => e.name)).toContain('.env');
    expect(await scripts()).toEqual([]);
  });

  it('reads whole files and line ranges, and logs nothing', async () => {
    expect(await verbs.call('read-file', { path: 'src/a.py' })).toEqual({
      path: 'src/a.py',
      content: 'one\ntwo\nthree\n',
      start_line: 1,
      total_lines: 4,
      truncated: false,
    });
    expect(
      await verbs.call('read-file', { path: path.join(root, 'src/a.py'), start_line: 2, max_lines: 1 }),
    ).toMatchObject({ content: 'two', truncated: true });
    expect(await scripts()).toEqual([]);
  });

  it('refuses missing files, binary files and paths outside the workspace', async () => {
    expect(await codeOf(verbs.call('read-file', { path: 'nope.py' }))).toBe('E_NOT_FOUND');
    expect(await codeOf(verbs.call('read-file', { path: 'img.bin' }))).toBe('E_BAD_REQUEST');
    expect(await codeOf(verbs.call('read-file', { path: '../etc/passwd' }))).toBe('E_OUTSIDE_WORKSPACE');
    expect(await codeOf(verbs.call('list-files', { path: '/etc' }))).toBe('E_OUTSIDE_WORKSPACE');
  });
});

describe('write-file', () => {
  beforeEach(() => setup({ 'README.md': 'hello\n' }));

  it('creates a file with its parent folders and reports it as the agent’s new file', async () => {
    const changes: FsChange[] = [];
    const watcher = new WorkspaceWatcher({ root, ledger: workspace.ledger });
    watcher.onDidChange((c) => changes.push(c));
    await watcher.ready;
    try {
      const result = await verbs.call('write-file', { path: 'src/pkg/loaders.py', content: 'X = 1\n' });
      expect(result).toEqual({ path: 'src/pkg/loaders.py', bytes_written: 6, created: true });
      expect(read('src/pkg/loaders.py')).toBe('X = 1\n');
      await expect
        .poll(() => changes.find((c) => 'path' in c && c.path === 'src/pkg/loaders.py'), { timeout: 10_000 })
        .toEqual({
          type: 'created',
          path: 'src/pkg/loaders.py',
          isDir: false,
          origin: 'agent',
        });
      changes.length = 0;
      const again = await verbs.call('write-file', { path: 'src/pkg/loaders.py', content: 'X = 22\n' });
      expect(again).toEqual({ path: 'src/pkg/loaders.py', bytes_written: 7, created: false });
      expect(read('src/pkg/loaders.py')).toBe('X = 22\n');
      await expect
        .poll(() => changes.find((c) => 'path' in c && c.path === 'src/pkg/loaders.py'), { timeout: 10_000 })
        .toEqual({
          type: 'updated',
          path: 'src/pkg/loaders.py',
          isDir: false,
          origin: 'agent',
        });
      expect(changes.some((c) => c.type === 'created' && c.path === 'src/pkg/loaders.py')).toBe(false);
    } finally {
      await watcher.dispose();
    }
    expect(await scripts()).toEqual([]);
  });

  it('refuses to replace an existing file when overwrite is false', async () => {
    expect(await codeOf(verbs.call('write-file', { path: 'README.md', content: 'gone', overwrite: false }))).toBe(
      'E_EXISTS',
    );
    expect(read('README.md')).toBe('hello\n');
    const fresh = await verbs.call('write-file', { path: 'NEW.md', content: 'new', overwrite: false });
    expect(fresh.created).toBe(true);
  });

  it('refuses paths outside the workspace and writes nothing', async () => {
    const outside = path.join(os.tmpdir(), `kiln-verbs-outside-${process.pid}.txt`);
    expect(await codeOf(verbs.call('write-file', { path: '../escape.txt', content: 'x' }))).toBe('E_OUTSIDE_WORKSPACE');
    expect(await codeOf(verbs.call('write-file', { path: outside, content: 'x' }))).toBe('E_OUTSIDE_WORKSPACE');
    expect(existsSync(path.join(root, '..', 'escape.txt'))).toBe(false);
    expect(existsSync(outside)).toBe(false);
  });

  it('accepts an absolute path inside the workspace and answers with the relative one', async () => {
    const result = await verbs.call('write-file', { path: path.join(root, 'src', 'abs.py'), content: 'A = 1\n' });
    expect(result.path).toBe('src/abs.py');
    expect(read('src/abs.py')).toBe('A = 1\n');
  });

  it('does not let authoring verbs forge audit-log entries', async () => {
    expect(await codeOf(verbs.call('write-file', { path: 'scripts/step_001_fake.py', content: 'print(1)' }))).toBe(
      'E_PROTECTED',
    );
    expect(await scripts()).toEqual([]);
  });

  it('refuses malformed arguments with E_BAD_REQUEST', async () => {
    expect(await codeOf(verbs.call('write-file', { path: 'a.txt' }))).toBe('E_BAD_REQUEST');
    expect(await codeOf(verbs.call('no-such-verb', {}))).toBe('E_BAD_REQUEST');
    expect(exists('a.txt')).toBe(false);
  });
});

describe('edit-file', () => {
  beforeEach(() => setup({ 'src/mod.py': 'def f():\n    return 1\n\ndef g():\n    return 1\n' }));

  it('replaces text that occurs exactly once', async () => {
    const result = await verbs.call('edit-file', {
      path: 'src/mod.py',
      mode: 'replace',
      old: 'def g():\n    return 1',
      new: 'def g():\n    return 2',
    });
    expect(result).toEqual({ path: 'src/mod.py', bytes_written: 45, replacements: 1 });
    expect(read('src/mod.py')).toBe('def f():\n    return 1\n\ndef g():\n    return 2\n');
    expect(await scripts()).toEqual([]);
  });

  it('refuses zero matches and several matches, saying how many, and leaves the file alone', async () => {
    const before = read('src/mod.py');
    const none = verbs.call('edit-file', { path: 'src/mod.py', mode: 'replace', old: 'return 3', new: 'return 4' });
    expect(await messageOf(none)).toMatch(/0 matches/);
    const two = verbs.call('edit-file', { path: 'src/mod.py', mode: 'replace', old: 'return 1', new: 'return 4' });
    expect(await messageOf(two)).toMatch(/2 times.*2 matches/);
    expect(
      await codeOf(verbs.call('edit-file', { path: 'src/mod.py', mode: 'replace', old: 'return 1', new: 'x' })),
    ).toBe('E_BAD_REQUEST');
    expect(read('src/mod.py')).toBe(before);
  });

  it('overwrites the whole content', async () => {
    const result = await verbs.call('edit-file', { path: 'src/mod.py', mode: 'overwrite', content: 'Y = 2\n' });
    expect(result).toEqual({ path: 'src/mod.py', bytes_written: 6, replacements: 0 });
    expect(read('src/mod.py')).toBe('Y = 2\n');
  });

  it('never creates a file', async () => {
    expect(await codeOf(verbs.call('edit-file', { path: 'src/new.py', mode: 'overwrite', content: 'x' }))).toBe(
      'E_NOT_FOUND',
    );
    expect(await codeOf(verbs.call('edit-file', { path: 'src/new.py', mode: 'replace', old: 'a', new: 'b' }))).toBe(
      'E_NOT_FOUND',
    );
    expect(exists('src/new.py')).toBe(false);
  });

  it('checks the mode’s fields and refuses paths outside the workspace', async () => {
    expect(await codeOf(verbs.call('edit-file', { path: 'src/mod.py', mode: 'replace', new: 'x' }))).toBe(
      'E_BAD_REQUEST',
    );
    expect(await codeOf(verbs.call('edit-file', { path: 'src/mod.py', mode: 'overwrite' }))).toBe('E_BAD_REQUEST');
    expect(await codeOf(verbs.call('edit-file', { path: '../../etc/hosts', mode: 'overwrite', content: 'x' }))).toBe(
      'E_OUTSIDE_WORKSPACE',
    );
  });

  it('refuses to touch an audit-log entry, like write-file', async () => {
    await fs.mkdir(path.join(root, 'scripts'));
    await fs.writeFile(path.join(root, 'scripts/step_001_load.py'), 'print(1)\n');
    expect(
      await codeOf(
        verbs.call('edit-file', { path: 'scripts/step_001_load.py', mode: 'overwrite', content: 'print(2)\n' }),
      ),
    ).toBe('E_PROTECTED');
    expect(
      await codeOf(verbs.call('edit-file', { path: 'scripts/step_001_load.py', mode: 'replace', old: '1', new: '2' })),
    ).toBe('E_PROTECTED');
    expect(read('scripts/step_001_load.py')).toBe('print(1)\n');
    // The whole audit-log folder is protected, as the sandbox keeps it read-only.
    await fs.writeFile(path.join(root, 'scripts/notes.md'), 'a\n');
    expect(await codeOf(verbs.call('edit-file', { path: 'scripts/notes.md', mode: 'overwrite', content: 'b\n' }))).toBe(
      'E_PROTECTED',
    );
    expect(read('scripts/notes.md')).toBe('a\n');
  });

  it('refuses with E_CHANGED_ON_DISK when the file changes between its read and its write, and keeps that change', async () => {
    const realRead = workspace.read.bind(workspace);
    let saves = 0;
    // Someone saves the file right after edit-file read it.
    workspace.read = async (...args: Parameters<Workspace['read']>) => {
      const file = await realRead(...args);
      await fs.writeFile(path.join(root, 'src/mod.py'), `def g():\n    return ${++saves}\n`);
      return file;
    };
    expect(
      await codeOf(verbs.call('edit-file', { path: 'src/mod.py', mode: 'replace', old: 'def g():', new: 'def h():' })),
    ).toBe('E_CHANGED_ON_DISK');
    expect(read('src/mod.py')).toBe('def g():\n    return 1\n');
    expect(await codeOf(verbs.call('edit-file', { path: 'src/mod.py', mode: 'overwrite', content: 'x = 1\n' }))).toBe(
      'E_CHANGED_ON_DISK',
    );
    expect(read('src/mod.py')).toBe('def g():\n    return 2\n');
  });

  it('matches a CRLF file when the model sends LF line endings', async () => {
    await fs.writeFile(path.join(root, 'win.py'), 'a = 1\r\nb = 2\r\n');
    await verbs.call('edit-file', { path: 'win.py', mode: 'replace', old: 'a = 1\nb = 2', new: 'a = 1\nb = 3' });
    expect(read('win.py')).toBe('a = 1\r\nb = 3\r\n');
  });
});

describe('run-file', () => {
  beforeEach(() =>
    setup({
      'src/helpers.py': 'def greet(name):\n    return f"hello {name}"\n',
      'src/main.py':
        'import os, sys\nfrom helpers import greet\nprint(greet("kiln"), __name__, os.getcwd())\nprint("warned", file=sys.stderr)\n',
      'src/fail.py': 'import sys\nprint("failing")\nsys.exit(3)\n',
    }),
  );

  it('runs the file as __main__ from the workspace root with src/ importable, and logs a step that runs it', async () => {
    const result = await verbs.call('run-file', { path: 'src/main.py' });
    expect(result.stdout).toBe(`hello kiln __main__ ${root}\n`);
    expect(result.stderr).toBe('warned\n');
    expect(result.returncode).toBe(0);
    expect(result.timed_out).toBe(false);
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(result.script).toBe('scripts/step_001_run_main.py');
    expect(await scripts()).toEqual(['step_001_run_main.py']);
    // The verbs design's one-line entry, after a header saying how it ran and a preamble that sets the working
    // directory and sys.path as `python3 src/main.py` from the root would.
    const step = read('scripts/step_001_run_main.py').split('\n');
    expect(step).toHaveLength(4);
    expect(step[0]).toMatch(
      /^# kiln: ran sandboxed \(bubblewrap\), profile default: 20 s, .* memory, 256 processes, no network$/,
    );
    expect(step[1]).toMatch(
      /^import os, runpy, sys; root = .*; os\.chdir\(root\); sys\.path\[0:1\] = \[os\.path\.join\(root, "src"\)\]/,
    );
    expect(step[2]).toBe('runpy.run_path("src/main.py", run_name="__main__")');
    expect(result).toMatchObject({ sandboxed: true, profile: 'default' });
    // The workspace stays clean: no bytecode caches.
    expect(exists('src/__pycache__')).toBe(false);
  });

  it('reports a failing script’s exit code and output', async () => {
    const result = await verbs.call('run-file', { path: path.join(root, 'src/fail.py') });
    expect(result.returncode).toBe(3);
    expect(result.stdout).toBe('failing\n');
    expect(result.script).toBe('scripts/step_001_run_fail.py');
  });

  it('refuses a missing file before anything runs and logs nothing', async () => {
    expect(await codeOf(verbs.call('run-file', { path: 'src/missing.py' }))).toBe('E_NOT_FOUND');
    expect(await codeOf(verbs.call('run-file', { path: 'src' }))).toBe('E_NOT_FOUND');
    expect(await codeOf(verbs.call('run-file', { path: '../outside.py' }))).toBe('E_OUTSIDE_WORKSPACE');
    expect(exists('scripts')).toBe(false);
  });
});

describe('execute-code', () => {
  beforeEach(() =>
    setup({
      'src/helpers.py': 'VALUE = 41\n',
      'scripts/step_007_load_data.py': 'print("old")\n',
      'scripts/notes.txt': 'n',
    }),
  );

  it('runs throwaway code, saves it as the next step after the highest one, and can import src/', async () => {
    const code = '# compute the answer\nimport helpers\n\nanswer = helpers.VALUE + 1\nprint(answer)';
    const result = await verbs.call('execute-code', { code });
    expect(result.stdout).toBe('42\n');
    expect(result.returncode).toBe(0);
    expect(result.script).toBe('scripts/step_008_answer_helpers_value_1.py');
    expect(read(result.script)).toMatch(
      /^# kiln: ran sandboxed .*\nimport os, sys; sys\.path\.insert\(1, .*"src"\)\) {2}# kiln: as when this step ran\n/,
    );
    expect(read(result.script).split('\n').slice(2).join('\n')).toBe(`${code}\n`);
    const second = await verbs.call('execute-code', { code: 'raise ValueError("boom")' });
    expect(second.script).toBe('scripts/step_009_raise_valueerror_boom.py');
    expect(second.returncode).toBe(1);
    // The traceback points at the saved step, line by line.
    expect(second.stderr).toContain('step_009_raise_valueerror_boom.py", line 3');
    expect(second.stderr).toContain('ValueError: boom');
    expect(await scripts()).toEqual([
      'notes.txt',
      'step_007_load_data.py',
      'step_008_answer_helpers_value_1.py',
      'step_009_raise_valueerror_boom.py',
    ]);
  });

  it('numbers concurrent steps one after another', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => verbs.call('execute-code', { code: `print(${n})` })));
    expect(results.map((r) => r.script).sort()).toEqual([
      'scripts/step_008_print_1.py',
      'scripts/step_009_print_2.py',
      'scripts/step_010_print_3.py',
    ]);
    expect(results.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n']);
  });

  it('keeps numbers distinct and contiguous when two logs (two processes’ worth) write at once', async () => {
    const other = new Verbs({ workspace: await Workspace.open({ root }), python: PYTHON });
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? verbs : other).call('execute-code', { code: `print(${i})` })),
      );
      expect(results.map((r) => stepNumber(r.script)).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 8),
      );
      expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 12 }, (_, i) => `${i}\n`));
      // No claim is left behind: every entry has its full name.
      expect((await scripts()).filter((name) => !/^step_\d+_\w+\.py$/.test(name))).toEqual(['notes.txt']);
    } finally {
      await other.dispose();
    }
  });

  it('never names a one-shot like a run-file entry', async () => {
    const result = await verbs.call('execute-code', { code: 'run_training = 3\nprint(run_training)' });
    expect(result.script).toBe('scripts/step_008_code_run_training_3.py');
    expect(slugForCode('run()')).toBe('code_run');
  });

  it('logs nothing when there is no Python to run', async () => {
    await verbs.dispose();
    verbs = new Verbs({ workspace, python: path.join(root, 'no-such-python') });
    expect(await codeOf(verbs.call('execute-code', { code: 'print(1)' }))).toBe('E_NO_JUPYTER');
    expect(await scripts()).toEqual(['notes.txt', 'step_007_load_data.py']);
  });

  it('caps runaway output with a note', async () => {
    await verbs.dispose();
    verbs = new Verbs({ workspace, python: PYTHON, maxOutputChars: 1000 });
    const result = await verbs.call('execute-code', { code: 'print("x" * 200000)\nprint("end")' });
    expect(result.stdout.length).toBeLessThan(1200);
    expect(result.stdout).toMatch(/characters of output omitted/);
    expect(result.stdout.startsWith('xxxx')).toBe(true);
    expect(result.stdout.endsWith('end\n')).toBe(true);
  });

  it('does not wait for input', async () => {
    const result = await verbs.call('execute-code', {
      code: 'try:\n    input()\nexcept EOFError:\n    print("no input")',
    });
    expect(result.stdout).toBe('no input\n');
  });
});

describe('time limits and process trees', () => {
  // The limit must outlast Python starting and spawning its child on this machine as loaded now: a run
  // killed before it started its child would prove nothing.
  let limitMs: number;
  beforeAll(() => {
    const start = performance.now();
    execFileSync(PYTHON, ['-c', 'import subprocess; subprocess.Popen(["true"]).wait()']);
    limitMs = Math.max(1500, Math.ceil((4 * (performance.now() - start)) / 100) * 100);
  });
  beforeEach(() => setup({}, { timeouts: { runMs: limitMs, heavyRunMs: 30_000 } }));

  const spawnSleeper = [
    'import subprocess, sys, time',
    'child = subprocess.Popen(["sleep", "300"])',
    'print(child.pid, flush=True)',
    'time.sleep(300)',
  ].join('\n');

  it('kills the run and every process it started when the time limit passes, and says so', async () => {
    const result = await verbs.call('execute-code', { code: spawnSleeper });
    expect(result.timed_out).toBe(true);
    expect(result.returncode).toBe(-9);
    expect(result.stderr).toContain(
      `[kiln] Time limit of ${limitMs / 1000} s reached: the run and every process it started were stopped.`,
    );
    expect(result.stderr).toMatch(/heavy: true/);
    await noneLeft(result.stdout);
    expect(await scripts()).toEqual(['step_001_child_subprocess_popen_sleep_300.py']);
  });

  it('run-file times out the same way', async () => {
    await fs.mkdir(path.join(root, 'src'));
    await fs.writeFile(path.join(root, 'src/slow.py'), spawnSleeper);
    const result = await verbs.call('run-file', { path: 'src/slow.py' });
    expect(result.timed_out).toBe(true);
    expect(result.returncode).toBe(-9);
    expect(result.stderr).toContain(`Time limit of ${limitMs / 1000} s reached`);
    await noneLeft(result.stdout);
  });

  it('heavy runs get the longer limit', async () => {
    // Longer than the ordinary limit, well inside the heavy one.
    const result = await verbs.call('execute-code', {
      code: `import time\ntime.sleep(${limitMs / 1000 + 0.5})\nprint("done")`,
      heavy: true,
    });
    expect(result.timed_out).toBe(false);
    expect(result.stdout).toBe('done\n');
  });

  it('leaves nothing running after a run that exits while its child still runs', async () => {
    const result = await verbs.call('execute-code', {
      code: 'import subprocess\nchild = subprocess.Popen(["sleep", "300"])\nprint(child.pid, flush=True)',
    });
    expect(result.timed_out).toBe(false);
    expect(result.returncode).toBe(0);
    await noneLeft(result.stdout);
  });

  // A child in a new session, and a grandchild that left through a double fork (reparented away from the run).
  const escapees = [
    'import os, subprocess, sys, time',
    'a = subprocess.Popen(["sleep", "300"], start_new_session=True)',
    'r, w = os.pipe()',
    'if os.fork() == 0:',
    '    os.setsid()',
    '    if os.fork() == 0:',
    '        os.write(w, b"%d" % os.getpid())',
    '        time.sleep(300)',
    '    os._exit(0)',
    'os.wait()',
    'pids = f"{a.pid} {int(os.read(r, 32))}"',
    'open("pids.tmp", "w").write(pids)',
    'os.rename("pids.tmp", "pids.txt")',
    'print(pids, flush=True)',
  ].join('\n');

  it('kills children that left the session or double-forked when the run ends', async () => {
    const result = await verbs.call('execute-code', { code: escapees });
    expect(result.returncode).toBe(0);
    expect(result.stdout.trim().split(' ')).toHaveLength(2);
    await noneLeft(result.stdout);
  });

  it('kills them at shutdown too', async () => {
    await fs.mkdir(path.join(root, 'src'));
    await fs.writeFile(path.join(root, 'src/escape.py'), `${escapees}\ntime.sleep(300)\n`);
    await verbs.dispose();
    verbs = new Verbs({ workspace, python: PYTHON, timeouts: { runMs: 60_000 } });
    const pending = verbs.call('run-file', { path: 'src/escape.py' });
    const outcome = codeOf(pending);
    // The escapees exist once their pids are on disk.
    await expect.poll(() => exists('pids.txt'), { timeout: 15_000 }).toBe(true);
    // The run, its child in a new session and the double-forked grandchild (and the sandbox's own processes).
    expect(processesIn(workspace.root).length).toBeGreaterThanOrEqual(3);
    await verbs.dispose();
    expect(await outcome).toBe('E_CANCELLED');
    await noneLeft(read('pids.txt'));
  });

  it('a cancelled run is killed and fails with E_CANCELLED', async () => {
    await verbs.dispose();
    verbs = new Verbs({ workspace, python: PYTHON, timeouts: { runMs: 30_000 } });
    const controller = new AbortController();
    const code =
      'import os, time\nopen("pid.tmp", "w").write(str(os.getpid()))\nos.rename("pid.tmp", "pid.txt")\ntime.sleep(300)';
    const pending = verbs.call('execute-code', { code }, { signal: controller.signal });
    const outcome = codeOf(pending);
    // Stopped once it runs, as the operator presses Stop on a run they see going.
    await until(() => exists('pid.txt'), 'the run to start');
    controller.abort();
    expect(await outcome).toBe('E_CANCELLED');
    await noneLeft(read('pid.txt'));
  });
});

describe("the audit log's folder", () => {
  beforeEach(() => setup());

  it('is made once per log, and again when it was removed', async () => {
    const log = new AuditLog({ workspace, dir: 'runs/scripts' });
    const createDir = vi.spyOn(workspace, 'createDir');
    expect(await log.recordCode('a = 1')).toBe('runs/scripts/step_001_a_1.py');
    expect(await log.recordCode('b = 2')).toBe('runs/scripts/step_002_b_2.py');
    expect(createDir.mock.calls.map(([rel]) => rel)).toEqual(['runs', 'runs/scripts']);
    await fs.rm(path.join(root, 'runs'), { recursive: true });
    expect(await log.recordCode('c = 3')).toBe('runs/scripts/step_001_c_3.py');
    expect(read('runs/scripts/step_001_c_3.py')).toContain('c = 3');
  });
});

describe('the audit log replays what ran', () => {
  beforeEach(() => setup({ 'data/numbers.csv': 'n\n1\n2\n3\n' }));

  it('running every scripts/ file in order from the workspace root reproduces the effects', async () => {
    await verbs.call('write-file', {
      path: 'src/loaders.py',
      content:
        'import csv\n\ndef load(path):\n    with open(path) as f:\n        return [int(r["n"]) for r in csv.DictReader(f)]\n',
    });
    await verbs.call('write-file', {
      path: 'src/report.py',
      content:
        'from loaders import load\nwith open("out/log.txt", "a") as f:\n    f.write(f"sum={sum(load(\'data/numbers.csv\'))}\\n")\n',
    });
    await verbs.call('execute-code', { code: 'import os\nos.makedirs("out", exist_ok=True)' });
    await verbs.call('run-file', { path: 'src/report.py' });
    await verbs.call('edit-file', {
      path: 'src/loaders.py',
      mode: 'replace',
      old: 'int(r["n"])',
      new: 'int(r["n"]) * 10',
    });
    await verbs.call('run-file', { path: 'src/report.py' });
    await verbs.call('execute-code', {
      code: 'from loaders import load\nwith open("out/log.txt", "a") as f:\n    f.write(f"max={max(load(\'data/numbers.csv\'))}\\n")',
    });
    const original = read('out/log.txt');
    expect(original).toBe('sum=6\nsum=60\nmax=30\n');
    expect(await scripts()).toEqual([
      'step_001_os_makedirs_out_exist_ok_true.py',
      'step_002_run_report.py',
      'step_003_run_report.py',
      'step_004_with_open_out_log_txt_a_as_f.py',
    ]);

    // Replay: the first run of report.py saw the old loaders; a replay sees today's src/, as any replay of a log would.
    await fs.rm(path.join(root, 'out'), { recursive: true });
    // The user guide's replay command, as written there.
    const command = /^for f in scripts\/step_\*\.py; do python3 "\$f"; done$/m.exec(AGENTS_GUIDE)?.[0];
    expect(command).toBeDefined();
    execFileSync('bash', ['-c', command!], { cwd: root, env: bareEnv() });
    expect(read('out/log.txt')).toBe('sum=60\nsum=60\nmax=30\n');
  });
});

describe('each step replays on its own', () => {
  beforeEach(() =>
    setup({
      'tools/helper.py': 'def shout(s):\n    return s.upper()\n',
      'tools/report.py': [
        'import os, sys',
        'from helper import shout',
        'import mathlib',
        'print(shout("report"), __name__, os.path.relpath(__file__), os.path.relpath(sys.path[0]))',
        'print(mathlib.square(3), os.path.relpath(sys.argv[0]))',
        'sys.exit(4)',
      ].join('\n'),
      'src/mathlib.py': 'def square(x):\n    return x * x\n',
      'src/job.py': 'from mathlib import square\nprint("job", square(5))\n',
    }),
  );

  it('run-file of a sibling-importing script, of a src/ module importing another, and one-shots importing src/', async () => {
    const runs = [
      await verbs.call('run-file', { path: 'tools/report.py' }),
      await verbs.call('run-file', { path: 'src/job.py' }),
      await verbs.call('execute-code', {
        code: 'from mathlib import square\nimport os, sys\nprint(square(7), os.path.relpath(__file__), os.path.relpath(sys.path[0]))',
      }),
      await verbs.call('execute-code', {
        code: 'from __future__ import annotations\nimport mathlib\nraise SystemExit(mathlib.square(2))',
      }),
    ];
    expect(runs.map((run) => [run.stdout, run.returncode])).toEqual([
      ['REPORT __main__ tools/report.py tools\n9 tools/report.py\n', 4],
      ['job 25\n', 0],
      [`49 ${runs[2].script} scripts\n`, 0],
      ['', 4],
    ]);
    // run-file behaves as `python3 tools/report.py` from the root with src/ on PYTHONPATH.
    const direct = spawnSync(PYTHON, ['tools/report.py'], {
      cwd: root,
      env: { ...bareEnv(), PYTHONPATH: path.join(root, 'src') },
      encoding: 'utf8',
    });
    expect([direct.stdout, direct.status]).toEqual([runs[0].stdout, runs[0].returncode]);
    for (const run of runs) expect(replay(run.script)).toEqual({ stdout: run.stdout, returncode: run.returncode });
  });
});

describe('notebook verbs without a notebook service', () => {
  beforeEach(() => setup());
  it('fail with E_NO_JUPYTER and are listed as unavailable', async () => {
    expect(await codeOf(verbs.call('append-notebook-cell', { notebook_name: 'a', source: 'x' }))).toBe('E_NO_JUPYTER');
    const unavailable = verbs
      .list()
      .filter((v) => !v.available)
      .map((v) => v.name);
    expect(unavailable).toEqual([
      'append-notebook-cell',
      'run-notebook-cell',
      'edit-notebook-cell',
      'delete-notebook-cell',
      'rerun-notebook-cell',
    ]);
  });

  it('refuse a path that is not a notebook before the service sees it', async () => {
    await verbs.dispose();
    verbs = new Verbs({ workspace, python: PYTHON, notebooks: {} as NotebookVerbTarget });
    expect(await codeOf(verbs.call('append-notebook-cell', { notebook_name: 'src/a.py', source: 'x' }))).toBe(
      'E_BAD_REQUEST',
    );
  });
});

describe('refusals', () => {
  beforeEach(() => setup({ 'src/pkg/b.py': '' }));
  it('write-file onto a folder is E_IS_A_DIRECTORY, and a disposed service refuses calls', async () => {
    expect(await codeOf(verbs.call('write-file', { path: 'src/pkg', content: 'x' }))).toBe('E_IS_A_DIRECTORY');
    await verbs.dispose();
    expect(await codeOf(verbs.call('list-files', {}))).toBe('E_SHUTTING_DOWN');
  });
});

describe('slugs', () => {
  it('come from the first meaningful line', () => {
    expect(slugForCode('\n# comment\nimport pandas as pd\nfrom x import y\ndf = pd.read_csv("data/sales.csv")\n')).toBe(
      'df_pd_read_csv_data_sales_csv',
    );
    expect(slugForCode('import numpy as np\n')).toBe('import_numpy_as_np');
    expect(slugForCode('import time; time.sleep(1)')).toBe('time_sleep_1');
    expect(slugForCode('# only a comment')).toBe('code');
    expect(slugForCode('"""Train the model"""\nfit()')).toBe('train_the_model');
    expect(slugForCode('print("é ü")')).toBe('print');
    const long = slugForCode('result = compute_something_really_long_named(alpha, beta, gamma, delta)');
    expect(long.length).toBeLessThanOrEqual(40);
    expect(long).toMatch(/^[a-z0-9_]+$/);
    expect(slugify('Hello World.py')).toBe('hello_world_py');
  });
});

describe('the kernel’s python', () => {
  it('is the interpreter jupyter runs on, not the first python3 on PATH', async () => {
    expect(await findKernelPython()).toBe(PYTHON);
  });
});

describe("the verbs design's argument names", () => {
  beforeEach(() => setup());

  it('notebook_name "x" is x.ipynb, and the old name `notebook` is still read as it', async () => {
    const seen: string[] = [];
    const target = {
      editCell: async (notebook: string, cell_id: string) => {
        seen.push(notebook);
        return { cell_id, source_len: 3, saved: true };
      },
    } as unknown as NotebookVerbTarget;
    await verbs.dispose();
    verbs = new Verbs({ workspace, python: PYTHON, notebooks: target });
    await verbs.call('edit-notebook-cell', { notebook_name: 'x', cell_id: 'abc', source: 'new' });
    await verbs.call('edit-notebook-cell', { notebook_name: 'nb/y.ipynb', cell_id: 'abc', source: 'new' });
    await verbs.call('edit-notebook-cell', { notebook: 'old.ipynb', cell_id: 'abc', source: 'new' });
    expect(seen).toEqual(['x.ipynb', 'nb/y.ipynb', 'old.ipynb']);
    // The schema and the docs name one argument.
    expect(Object.keys(verbInputJsonSchema('edit-notebook-cell').properties as object)).toEqual([
      'notebook_name',
      'cell_id',
      'source',
      'cell_type',
    ]);
  });
});
