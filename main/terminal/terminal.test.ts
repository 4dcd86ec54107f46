import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import { makeTempTree } from '../../test-support/temp-workspace';
import { TerminalService } from './service';

let root: string;
let canaryDir: string;
let cleanup: () => Promise<void>;
let service: TerminalService;
let output: Map<string, string>;
let exits: Map<string, number>;

beforeEach(async () => {
  canaryDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-terminal-canary-'));
  ({ root, cleanup } = await makeTempTree({
    'src/pkg/__init__.py': 'NAME = "from src"\n',
    // Imported by any python whose path has src/ on it: writes a canary outside the workspace.
    'src/sitecustomize.py': `open(${JSON.stringify(path.join(canaryDir, 'sitecustomize'))}, 'w').write('ran')\n`,
  }));
  output = new Map();
  exits = new Map();
  service = terminals('/bin/bash');
});
afterEach(async () => {
  await service.dispose();
  await cleanup();
  await fs.rm(canaryDir, { recursive: true, force: true });
});

/** Terminals running `shell`, their output and exits recorded in `output` and `exits`. */
function terminals(shell: string, trusted = true): TerminalService {
  const terminals = new TerminalService({ root, shell, trusted: () => trusted });
  terminals.onDidWrite(({ id, data }) => output.set(id, (output.get(id) ?? '') + data));
  terminals.onDidExit(({ id, exitCode }) => exits.set(id, exitCode));
  return terminals;
}

const screen = (id: string) => output.get(id) ?? '';
const HIGH_WATER_CHARS = 256 * 1024;
const WRITE_SYSCALL: Partial<Record<NodeJS.Architecture, number>> = { x64: 1, arm64: 64 };

/** The process is inside write(2), waiting: its terminal's buffer is full because nobody reads it. */
function blockedInWrite(pid: number): boolean {
  const syscall = readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ')[0];
  return Number(syscall) === WRITE_SYSCALL[process.arch];
}

it('runs the shell in the workspace root with src/ importable, and follows resizes', async () => {
  const { id, cwd } = service.create(80, 24);
  expect(cwd).toBe(root);
  service.input(id, 'pwd; python3 -c "import pkg, sys; print(pkg.NAME)"\r');
  await expect.poll(() => screen(id), { timeout: 10_000 }).toContain('from src');
  expect(screen(id)).toContain(root);
  expect(process.env.PYTHONPATH ?? '').not.toContain(path.join(root, 'src'));
  service.resize(id, 100, 30);
  service.input(id, 'stty size\r');
  await expect.poll(() => screen(id)).toContain('30 100');
});

it("an untrusted workspace's terminal gets nothing of the folder on its paths: src/sitecustomize.py never runs", async () => {
  await service.dispose();
  service = terminals('/bin/bash', false);
  const { id } = service.create(80, 24);
  service.input(id, `python3 -c 'import sys'; echo "python ""exit $?"; echo "PP[$PYTHONPATH]"\r`);
  await expect.poll(() => screen(id), { timeout: 10_000 }).toContain('python exit 0');
  expect(screen(id)).not.toContain(path.join(root, 'src'));
  expect(await fs.readdir(canaryDir)).toEqual([]);
  // The same shell in a trusted workspace imports it: the planted file is a real one.
  await service.dispose();
  service = terminals('/bin/bash', true);
  const trusted = service.create(80, 24);
  service.input(trusted.id, `python3 -c 'import sys'; echo "python ""exit $?"\r`);
  await expect.poll(() => screen(trusted.id), { timeout: 10_000 }).toContain('python exit 0');
  expect(await fs.readdir(canaryDir)).toEqual(['sitecustomize']);
});

it('pauses a shell whose output the renderer has not drawn, and resumes it on acknowledgement', async () => {
  const { id } = service.create(80, 24);
  service.input(id, 'echo "shell $$"; for i in $(seq 1 60000); do echo "line $i"; done; echo "EN""D"\r');
  await expect.poll(() => screen(id).length, { timeout: 10_000 }).toBeGreaterThan(HIGH_WATER_CHARS);
  const shell = Number(/shell (\d+)/.exec(screen(id))![1]);
  // Without acknowledgements output stops well short of the end: the shell sits blocked writing to a
  // terminal nobody reads (the kernel says so), with no END shown.
  await expect.poll(() => blockedInWrite(shell), { timeout: 10_000 }).toBe(true);
  expect(screen(id).length).toBeLessThan(HIGH_WATER_CHARS + 128 * 1024);
  expect(screen(id)).not.toContain('END');
  // Drawing it all lets it finish.
  const drain = setInterval(() => service.ack(id, 1 << 30), 20);
  await expect.poll(() => screen(id), { timeout: 20_000 }).toMatch(/END/);
  clearInterval(drain);
});

it('ends the shell and what it started when its terminal is killed; input after that is an error', async () => {
  const { id } = service.create(80, 24);
  service.input(id, 'sleep 300 & echo "child $!"\r');
  await expect.poll(() => /child (\d+)/.exec(screen(id))?.[1], { timeout: 10_000 }).toBeTruthy();
  const child = Number(/child (\d+)/.exec(screen(id))![1]);
  await service.kill(id);
  expect(exits.has(id)).toBe(true);
  await expect.poll(() => isRunning(child), { timeout: 5000 }).toBe(false);
  expect(() => service.input(id, 'echo\r')).toThrow(KilnError);
});

it.skipIf(!existsSync('/bin/dash'))(
  'ends a background job of a shell that does not pass the hang-up on (dash), but not one started with nohup',
  async () => {
    const dash = terminals('/bin/dash');
    try {
      const { id } = dash.create(80, 24);
      dash.input(id, 'sleep 300 & echo "child $!"; nohup sleep 301 >/dev/null 2>&1 & echo "kept $!"\r');
      await expect.poll(() => /kept (\d+)/.exec(screen(id))?.[1], { timeout: 10_000 }).toBeTruthy();
      const child = Number(/child (\d+)/.exec(screen(id))![1]);
      const kept = Number(/kept (\d+)/.exec(screen(id))![1]);
      await dash.kill(id);
      await expect.poll(() => isRunning(child), { timeout: 5000 }).toBe(false);
      expect(isRunning(kept)).toBe(true);
      process.kill(kept, 'SIGKILL');
    } finally {
      await dash.dispose();
    }
  },
);

it('ends every shell at shutdown', async () => {
  const a = service.create(80, 24);
  const b = service.create(80, 24);
  service.input(a.id, 'echo "pid $$"\r');
  service.input(b.id, 'echo "pid $$"\r');
  await expect
    .poll(() => /pid (\d+)/.test(screen(a.id)) && /pid (\d+)/.test(screen(b.id)), { timeout: 10_000 })
    .toBe(true);
  const pids = [a.id, b.id].map((id) => Number(/pid (\d+)/.exec(screen(id))![1]));
  await service.dispose();
  for (const pid of pids) expect(isRunning(pid)).toBe(false);
});

function isRunning(pid: number): boolean {
  try {
    // A zombie still answers kill -0; ask ps for live ones.
    return (
      execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().length > 0 &&
      !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).startsWith('Z')
    );
  } catch {
    return false;
  }
}

it('refuses a new terminal once Kiln is shutting down', async () => {
  await service.dispose();
  expect(() => service.create(80, 24)).toThrow(expect.objectContaining({ code: 'E_SHUTTING_DOWN' }));
});
