import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CellRunResult, DebugState } from '../../shared/contract';
import type { EventHub } from '../events';
import { JupyterServerManager } from '../kernel';
import { NotebookService } from '../notebook';
import { MemoryStore } from '../prefs';
import { NotebookServiceVerbTarget } from '../verbs/notebook-adapter';
import { Workspace } from '../workspace';
import { makeWorkspace, nextEvent, announcingNotebooks } from '../../test-support/event-hub';
import { startRemoteJupyter, type RemoteJupyterServer } from '../../test-support/remote-jupyter';
import { DebuggerService, FILE_BREAKPOINTS_LOCAL_ONLY, PAUSED_FOR_AGENT } from '.';

let root: string;
let workspace: Workspace;
let hub: EventHub;
let jupyter: JupyterServerManager;
let svc: NotebookService;
let debuggers: DebuggerService;
const NB = 'debug.ipynb';

async function cell(source: string): Promise<string> {
  return (await svc.insertCell(NB, { source })).cell.id;
}

function paused(): Promise<DebugState> {
  return nextEvent(hub, 'debugger.state', (s) => s.path === NB && s.status === 'paused');
}

/** Runs the cell under the debugger; resolves at the first pause with the run still going. */
async function debugUntilPaused(cellId: string): Promise<{ state: DebugState; run: Promise<CellRunResult | null> }> {
  const stopped = paused();
  const run = debuggers.of(NB).debugCell(cellId);
  return {
    state: await Promise.race([
      stopped,
      run.then(() => Promise.reject(new Error(`ran to the end: ${JSON.stringify(debuggers.of(NB).state)}`))),
    ]),
    run,
  };
}

beforeAll(async () => {
  ({ root, workspace, hub } = await makeWorkspace('kiln-debugger-'));
  jupyter = new JupyterServerManager({ rootDir: root });
  svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter }));
  debuggers = new DebuggerService({ notebooks: svc, root, store: new MemoryStore() });
  hub.announce({ 'debugger.state': debuggers.onDidChangeState });
  await svc.create(NB);
  // A new notebook has one empty cell: without it, cells read "Cell 1", "Cell 2"… in the order the tests add them.
  const [empty] = (await svc.get(NB)).cells;
  await svc.deleteCell(NB, empty.id);
});

afterEach(async () => {
  // A failed test leaves no debug run behind for the next one.
  const status = debuggers.of(NB).state.status;
  if (status === 'running' || status === 'paused') await debuggers.of(NB).command('stop');
});

afterAll(async () => {
  await svc.dispose();
  await jupyter.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('the notebook debugger against a real kernel', () => {
  it("stops in another cell's function, steps, evaluates, shows locals, and names frames by cell", async () => {
    const define = await cell('def double(n):\n    twice = n * 2\n    return twice\n');
    expect((await svc.runCell(NB, define)).status).toBe('ok');
    const caller = await cell('a = 20\nb = double(a)\nprint(b)\n');
    await debuggers.setBreakpoints(NB, define, [2]);

    const { state, run } = await debugUntilPaused(caller);
    expect(state.frames[0]).toMatchObject({ name: 'double', cellId: define, where: 'Cell 1', line: 2 });
    expect(state.frames[1]).toMatchObject({ cellId: caller, where: 'Cell 2', line: 2 });

    const locals = (await debuggers.of(NB).scopes(state.frames[0].id))[0];
    expect(locals.variables).toContainEqual(expect.objectContaining({ name: 'n', type: 'int', value: '20' }));
    expect(await debuggers.of(NB).evaluate(state.frames[0].id, 'n + 1')).toEqual({ ok: true, result: '21' });
    expect((await debuggers.of(NB).evaluate(state.frames[0].id, 'nope')).ok).toBe(false);

    // Step Over moves to the next line of the same frame.
    const stepped = paused();
    await debuggers.of(NB).command('next');
    expect((await stepped).frames[0]).toMatchObject({ name: 'double', line: 3 });
    // Step Out returns to the caller's cell.
    const out = paused();
    await debuggers.of(NB).command('stepOut');
    expect((await out).frames[0]).toMatchObject({ cellId: caller, line: 2 });

    await debuggers.of(NB).command('continue');
    const result = await run;
    expect(result?.status).toBe('ok');
    expect(debuggers.of(NB).state.status).toBe('off');
    // The debug session ended with the run: an ordinary run does not stop at the breakpoint.
    expect((await svc.runCell(NB, caller)).status).toBe('ok');
  });

  it('stops on the right line in a cell that starts with blank lines', async () => {
    const blank = await cell('\n\n\nx = 1\ny = x + 1\nz = y + 1\n');
    await debuggers.setBreakpoints(NB, blank, [5]);
    const { state, run } = await debugUntilPaused(blank);
    expect(state.frames[0]).toMatchObject({ cellId: blank, line: 5 });
    expect(await debuggers.of(NB).evaluate(state.frames[0].id, 'x')).toEqual({ ok: true, result: '1' });
    await debuggers.of(NB).command('continue');
    expect((await run)?.status).toBe('ok');
  });

  it("refuses an Agent's cell run while paused, and Stop ends the session without running the rest", async () => {
    const slow = await cell('import time\nstep = 1\nstep = 2\ntime.sleep(30)\nstep = 3\n');
    await debuggers.setBreakpoints(NB, slow, [2]);
    const { run } = await debugUntilPaused(slow);
    const agent = new NotebookServiceVerbTarget({ notebooks: svc });
    const cellsBefore = (await svc.get(NB)).cells.length;
    await expect(agent.runNewCell(NB, 'print(1)')).rejects.toMatchObject({ code: 'E_BUSY', message: PAUSED_FOR_AGENT });
    await expect(agent.rerunCell(NB, slow)).rejects.toMatchObject({ code: 'E_BUSY' });
    expect((await svc.get(NB)).cells.length).toBe(cellsBefore);

    await debuggers.of(NB).command('stop');
    expect((await run)?.status).not.toBe('ok');
    expect(debuggers.of(NB).state.status).toBe('off');
    const check = await cell('print(step)');
    const result = await svc.runCell(NB, check);
    // The paused thread resumed, and the interrupt stopped it in the sleep: the line after never ran.
    expect(result.outputs).toEqual([
      expect.objectContaining({ output_type: 'stream', text: expect.stringMatching(/^[12]\n$/) }),
    ]);
  });
});

describe("breakpoints in the workspace's .py files, against a real kernel", () => {
  /** A module in src/ (on the kernel's sys.path); a fresh name per test, so no test reuses another's import. */
  async function writeModule(rel: string, source: string): Promise<void> {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), source);
  }
  const SCALE = 'def scale(n):\n    factor = 3\n    scaled = n * factor\n    return scaled\n';

  afterEach(async () => {
    for (const rel of Object.keys(debuggers.files.all())) await debuggers.setFileBreakpoints(rel, []);
  });

  it('stops at a breakpoint in a src/ module called from a cell, names the frame by its file, steps back to the cell', async () => {
    await writeModule('src/scaling.py', SCALE);
    const caller = await cell('import scaling\nr = scaling.scale(7)\nprint(r)\n');
    await debuggers.setFileBreakpoints('src/scaling.py', [2]);

    const { state, run } = await debugUntilPaused(caller);
    expect(state.frames[0]).toMatchObject({
      name: 'scale',
      cellId: null,
      file: 'src/scaling.py',
      where: 'src/scaling.py',
      line: 2,
    });
    expect(state.frames[1]).toMatchObject({ cellId: caller, file: null, line: 2 });
    const locals = (await debuggers.of(NB).scopes(state.frames[0].id))[0];
    expect(locals.variables).toContainEqual(expect.objectContaining({ name: 'n', value: '7' }));
    expect(await debuggers.of(NB).evaluate(state.frames[0].id, 'n * 2')).toEqual({ ok: true, result: '14' });

    const stepped = paused();
    await debuggers.of(NB).command('next');
    expect((await stepped).frames[0]).toMatchObject({ file: 'src/scaling.py', line: 3 });
    const out = paused();
    await debuggers.of(NB).command('stepOut');
    expect((await out).frames[0]).toMatchObject({ cellId: caller, file: null, line: 2 });
    await debuggers.of(NB).command('continue');
    expect((await run)?.status).toBe('ok');
  });

  it('steps into a src/ module from a cell', async () => {
    await writeModule('src/scaling_in.py', SCALE);
    const caller = await cell('import scaling_in\nr = scaling_in.scale(5)\nprint(r)\n');
    await debuggers.setBreakpoints(NB, caller, [2]);
    const { state, run } = await debugUntilPaused(caller);
    expect(state.frames[0]).toMatchObject({ cellId: caller, line: 2 });
    const into = paused();
    await debuggers.of(NB).command('stepIn');
    expect((await into).frames[0]).toMatchObject({ name: 'scale', file: 'src/scaling_in.py', line: 2 });
    await debuggers.of(NB).command('continue');
    expect((await run)?.status).toBe('ok');
  });

  it("sends a moved file's breakpoints at its new path, and none for a file deleted, in a live session", async () => {
    await writeModule('src/before_move.py', SCALE);
    await writeModule('src/gone.py', SCALE);
    await debuggers.setFileBreakpoints('src/before_move.py', [3]);
    await debuggers.setFileBreakpoints('src/gone.py', [2]);
    // The session starts paused in the cell, with both files' breakpoints sent at their old paths.
    const caller = await cell('import after_move, gone\nr = after_move.scale(2)\ns = gone.scale(2)\nprint(r, s)\n');
    await debuggers.setBreakpoints(NB, caller, [2]);
    await fs.rename(path.join(root, 'src/before_move.py'), path.join(root, 'src/after_move.py'));
    const { run } = await debugUntilPaused(caller);
    // What the change feed reports, as the watcher or Kiln's own move would.
    await debuggers.applyChange({
      type: 'moved',
      from: 'src/before_move.py',
      to: 'src/after_move.py',
      isDir: false,
      origin: 'operator',
    });
    await debuggers.applyChange({ type: 'deleted', path: 'src/gone.py', isDir: false, origin: 'operator' });
    expect(debuggers.files.all()).toEqual({ 'src/after_move.py': [3] });

    const inMoved = paused();
    await debuggers.of(NB).command('continue');
    expect((await inMoved).frames[0]).toMatchObject({ file: 'src/after_move.py', line: 3 });
    // gone.py's breakpoint left the kernel with it: the run ends without stopping there.
    await debuggers.of(NB).command('continue');
    expect((await run)?.status).toBe('ok');
  });

  it('sends no file breakpoints in a folder not trusted', async () => {
    await writeModule('src/untrusted_mod.py', SCALE);
    const untrusted = new DebuggerService({
      notebooks: svc,
      root,
      store: new MemoryStore(),
      trusted: () => false,
    });
    await untrusted.setFileBreakpoints('src/untrusted_mod.py', [2]);
    const caller = await cell('import untrusted_mod\nprint(untrusted_mod.scale(1))\n');
    expect((await untrusted.of(NB).debugCell(caller))?.status).toBe('ok');
  });
});

describe('a kernel that cannot debug', () => {
  let fakes: string;
  let noDebugJupyter: JupyterServerManager;
  let noDebugSvc: NotebookService;

  beforeAll(async () => {
    // A debugpy that cannot be imported: ipykernel then says in kernel_info that it has no debugger.
    fakes = path.join(root, '..', `${path.basename(root)}-fakes`);
    await fs.mkdir(path.join(fakes, 'debugpy'), { recursive: true });
    await fs.writeFile(path.join(fakes, 'debugpy', '__init__.py'), "raise ImportError('no debugpy here')\n");
    noDebugJupyter = new JupyterServerManager({
      rootDir: root,
      env: { ...process.env, PYTHONPATH: fakes },
    });
    noDebugSvc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter: noDebugJupyter }));
  });

  afterAll(async () => {
    await noDebugSvc.dispose();
    await noDebugJupyter.dispose();
    await fs.rm(fakes, { recursive: true, force: true });
  });

  it('says so in one line, runs nothing, and the notebook keeps working', async () => {
    const nb = 'nodebug.ipynb';
    await noDebugSvc.create(nb);
    const service = new DebuggerService({ notebooks: noDebugSvc, root, store: new MemoryStore() });
    const id = (await noDebugSvc.insertCell(nb, { source: 'print("ran")' })).cell.id;
    expect(await service.of(nb).debugCell(id)).toBeNull();
    const state = service.of(nb).state;
    expect(state.status).toBe('unavailable');
    expect(state.message).toMatch(/^This kernel cannot debug: it has no debugger/);
    expect(state.message).not.toContain('\n');
    expect((await noDebugSvc.get(nb)).cells[0].outputs).toEqual([]);
    expect((await noDebugSvc.runCell(nb, id)).status).toBe('ok');
  });
});

describe('a kernel on a remote Jupyter server', () => {
  let server: RemoteJupyterServer;
  let remoteJupyter: JupyterServerManager;
  let remoteSvc: NotebookService;

  beforeAll(async () => {
    // Rooted at the workspace itself, so a breakpoint sent at its local path would be hit: none must be sent.
    server = await startRemoteJupyter(root);
    remoteJupyter = new JupyterServerManager({ rootDir: root, remote: { url: server.url, token: server.token } });
    remoteSvc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter: remoteJupyter }));
  });

  afterAll(async () => {
    await remoteSvc.dispose();
    await remoteJupyter.dispose();
    await server.close();
  });

  it('sends no breakpoint of a workspace file to it and says so in one line; a cell breakpoint still stops', async () => {
    const nb = 'remote-debug.ipynb';
    await fs.mkdir(path.join(root, 'src'), { recursive: true });
    await fs.writeFile(path.join(root, 'src/remote_mod.py'), 'def scale(n):\n    factor = 3\n    return n * factor\n');
    await remoteSvc.create(nb);
    const service = new DebuggerService({
      notebooks: remoteSvc,
      root,
      store: new MemoryStore(),
      remoteKernels: () => remoteJupyter.isRemote,
    });
    hub.announce({ 'debugger.state': service.onDidChangeState });
    await service.setFileBreakpoints('src/remote_mod.py', [2]);
    const src = JSON.stringify(path.join(root, 'src'));
    const id = (
      await remoteSvc.insertCell(nb, {
        source: `import sys\nsys.path.insert(0, ${src})\nimport remote_mod\nprint(remote_mod.scale(2))\n`,
      })
    ).cell.id;
    await service.setBreakpoints(nb, id, [4]);

    const pausedIn = () => nextEvent(hub, 'debugger.state', (s) => s.path === nb && s.status === 'paused');
    const first = pausedIn();
    const run = service.of(nb).debugCell(id);
    const state = await first;
    expect(state.frames[0]).toMatchObject({ cellId: id, line: 4 });

    // Past the file's breakpoint line without stopping: the run ends.
    const again = pausedIn();
    await service.of(nb).command('continue');
    const next = await Promise.race([again.then((s) => s.frames[0]), run]);
    expect(next).toMatchObject({ status: 'ok' });
    expect(state.notice).toBe(FILE_BREAKPOINTS_LOCAL_ONLY);
    expect(state.message).toBeUndefined();
    expect(service.of(nb).state.notice).toBeUndefined();
  });
});
