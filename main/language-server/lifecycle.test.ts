import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { LanguageStatus } from '../../shared/contract';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { spawn } from 'node:child_process';
import { LanguageService } from './service';
import type { NodeScriptLauncher } from './server-process';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A service on a real pyright, with the idle stop shortened so the test sees it. */
async function makeService(idleStopMs: number, launcher?: NodeScriptLauncher) {
  const { root, cleanup } = await makeTempTree({ 'a.py': 'x: int = "no"\n' });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-lsp-life-'));
  const statuses: LanguageStatus[] = [];
  const diagnostics: string[] = [];
  const service = new LanguageService({
    root,
    dataDir,
    enabled: () => true,
    diagnosticsScope: () => 'openFiles',
    trusted: () => true,
    interpreter: async () => null,
    readFile: async () => ({ text: '', hash: '' }),
    writeFile: async () => undefined,
    idleStopMs,
    launcher,
  });
  service.onDidChangeStatus((status) => statuses.push(status));
  service.onDidPublishDiagnostics((entry) => diagnostics.push(...entry.diagnostics.map((d) => d.message)));
  cleanups.push(
    cleanup,
    () => rm(dataDir, { recursive: true, force: true }),
    () => service.dispose(),
  );
  return { service, statuses, diagnostics };
}

it('starts only when a Python file opens, and stops when none has been open for the idle time', async () => {
  const { service, statuses } = await makeService(300);
  expect(service.didOpen('notes.txt', 1, 'text')).toBe(false);
  expect(service.pid).toBeUndefined();
  service.didOpen('a.py', 1, 'x: int = "no"\n');
  await until(() => service.pid, 'the server process', 60_000);
  const pid = service.pid!;
  service.didClose('a.py');
  await until(() => statuses.at(-1)?.message.includes('stopped while idle'), 'the idle stop', 30_000);
  expect(service.pid).toBeUndefined();
  expect(() => process.kill(pid, 0)).toThrow();
}, 90_000);

it('a request answers nothing rather than an error where the server has nothing; an unknown preview is refused', async () => {
  const { service } = await makeService(60_000);
  await expect(service.applyEdits(99)).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  await expect(service.hover('../outside.py', { line: 0, character: 0 })).rejects.toMatchObject({
    code: 'E_OUTSIDE_WORKSPACE',
  });
  // Asked with no file open (Ctrl/Cmd+T, say), the server starts; a file it does not know has no symbols.
  expect(await service.documentSymbols('missing.py')).toEqual([]);
}, 90_000);

it("through a host's launcher (Electron's utility process) the server speaks over a private socket", async () => {
  // A stand-in for utilityProcess.fork: a Node child with no stdin.
  const launcher: NodeScriptLauncher = (script, args, { cwd }) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    return { pid: child.pid, kill: () => void child.kill('SIGKILL'), exited, stderr: child.stderr };
  };
  const { service, diagnostics } = await makeService(60_000, launcher);
  service.didOpen('a.py', 1, 'x: int = "no"\n');
  await until(() => diagnostics.some((m) => m.includes('not assignable')), 'a type error from the server', 60_000);
  expect(service.pid).toBeDefined();
}, 90_000);
