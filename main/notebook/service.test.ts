import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { SessionAPI } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, NotebookOutput } from '../../shared/contract';
import type { EventHub } from '../events';
import { JupyterServerManager } from '../kernel';
import { findProcessesByMarker } from '../process';
import { Workspace } from '../workspace';
import { NotebookService } from './service';
import { eventsOf, makeWorkspace, nextEvent, announcingNotebooks } from '../../test-support/event-hub';

let root: string;
let workspace: Workspace;
let hub: EventHub;
let events: AnyEvent[];
let jupyter: JupyterServerManager;
let svc: NotebookService;
const NB = 'work/run.ipynb';

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function text(outputs: NotebookOutput[]): string {
  return outputs
    .map((o) => {
      const value =
        o.output_type === 'stream' ? o.text : (o.data as Record<string, unknown> | undefined)?.['text/plain'];
      return Array.isArray(value) ? value.join('') : String(value ?? '');
    })
    .join('');
}

async function addCell(source: string): Promise<string> {
  return (await svc.insertCell(NB, { source })).cell.id;
}

beforeAll(async () => {
  ({ root, workspace, hub, events } = await makeWorkspace('kiln-notebook-'));
  await fs.mkdir(path.join(root, 'work'));
  jupyter = new JupyterServerManager({ rootDir: root });
  svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter }));
  await svc.create(NB);
  // The kernel starts on open; wait until it is idle.
  if ((await svc.get(NB)).kernel.status !== 'idle') {
    await nextEvent(hub, 'notebook.kernelStatus', (p) => p.path === NB && p.kernel.status === 'idle');
  }
});

afterAll(async () => {
  const marker = jupyter.privateDir;
  await svc.dispose();
  await jupyter.dispose();
  if (marker) expect(await findProcessesByMarker(marker)).toEqual([]);
  await fs.rm(root, { recursive: true, force: true });
});

describe('running cells against a live kernel', () => {
  it('reports kernel status and the kernelspec', async () => {
    const doc = await svc.get(NB);
    expect(doc.kernel).toMatchObject({ status: 'idle', name: 'python3', language: 'python' });
    const statuses = eventsOf(events, 'notebook.kernelStatus').map((e) => e.kernel.status);
    expect(statuses).toContain('starting');
    expect(statuses).toContain('idle');
    const specs = await svc.kernelSpecs();
    expect(specs.specs.map((s) => s.name)).toContain('python3');
  });

  it('runs a cell: execute_result with the count Jupyter assigned, streamed events, busy/idle', async () => {
    const id = await addCell('40 + 2');
    const result = await svc.runCell(NB, id);
    expect(result).toMatchObject({ cell_id: id, status: 'ok', had_error: false });
    expect(result.exec_count).toBeGreaterThan(0);
    expect(result.outputs).toEqual([
      { output_type: 'execute_result', execution_count: result.exec_count, data: { 'text/plain': '42' }, metadata: {} },
    ]);
    const states = eventsOf(events, 'notebook.cellState')
      .filter((e) => e.cellId === id)
      .map((e) => e.state);
    expect(states).toEqual(['queued', 'running', 'idle']);
    expect((await svc.get(NB)).cells.find((c) => c.id === id)!.execution_count).toBe(result.exec_count);
    expect(eventsOf(events, 'notebook.kernelStatus').some((e) => e.kernel.status === 'busy')).toBe(true);
  });

  it('streams print output as it arrives, merged into one stream output', async () => {
    const id = await addCell(
      'import sys, time\nfor i in range(5):\n    print("line", i, flush=True)\n    time.sleep(0.05)\nprint("oops", file=sys.stderr)',
    );
    const result = await svc.runCell(NB, id);
    const stdout = result.outputs.filter((o) => o.output_type === 'stream' && o.name === 'stdout');
    expect(stdout).toHaveLength(1);
    expect(text(stdout)).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n');
    expect(result.outputs.some((o) => o.output_type === 'stream' && o.name === 'stderr')).toBe(true);
    const changes = eventsOf(events, 'notebook.output')
      .filter((e) => e.cellId === id)
      .map((e) => e.change.kind);
    expect(changes[0]).toBe('clear');
    expect(changes).toContain('append');
    expect(changes).toContain('appendText');
  });

  it("does not announce a run's outputs as a change of cells (the language mirror has nothing to rebuild)", async () => {
    const id = await addCell('print("hi")\n6*7');
    await svc.runCell(NB, id);
    const changes: string[] = [];
    const following = svc.onDidChangeCells((change) => changes.push(change.kind));
    try {
      // The second run clears the first run's outputs and writes new ones: only outputs change.
      const result = await svc.runCell(NB, id);
      expect(text(result.outputs)).toContain('42');
    } finally {
      following.dispose();
    }
    expect(changes).toEqual([]);
  });

  it('shows display_data and applies update_display_data by display_id', async () => {
    const id = await addCell(
      'from IPython.display import display\nh = display("first", display_id=True)\nprint("between")\nh.update("second")',
    );
    const result = await svc.runCell(NB, id);
    const display = result.outputs.find((o) => o.output_type === 'display_data')!;
    expect(display.data).toEqual({ 'text/plain': "'second'" });
    expect(eventsOf(events, 'notebook.output').some((e) => e.cellId === id && e.change.kind === 'replace')).toBe(true);
    // Updating from another cell reaches the first cell's output.
    const other = await addCell('h.update("third")');
    await svc.runCell(NB, other);
    const cell = (await svc.get(NB)).cells.find((c) => c.id === id)!;
    expect(cell.outputs.find((o) => o.output_type === 'display_data')!.data).toEqual({ 'text/plain': "'third'" });
  });

  it('shows an error with its traceback', async () => {
    const id = await addCell('def f():\n    return 1/0\nf()');
    const result = await svc.runCell(NB, id);
    expect(result.status).toBe('error');
    expect(result.had_error).toBe(true);
    const error = result.outputs.find((o) => o.output_type === 'error')!;
    expect(error).toMatchObject({ ename: 'ZeroDivisionError', evalue: 'division by zero' });
    // eslint-disable-next-line no-control-regex
    expect((error.traceback as string[]).join('\n').replace(/\x1b\[[0-9;]*m/g, '')).toContain('return 1/0');
  });

  it('clears output on clear_output, and on the next output with wait=True', async () => {
    const id = await addCell(
      'from IPython.display import clear_output\nprint("gone")\nclear_output()\nprint("a")\nclear_output(wait=True)\nprint("kept")',
    );
    const result = await svc.runCell(NB, id);
    expect(text(result.outputs)).toBe('kept\n');
    expect(
      eventsOf(events, 'notebook.output').filter((e) => e.cellId === id && e.change.kind === 'clear').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('shows image/png from IPython.display', async () => {
    const id = await addCell(
      `import base64\nfrom IPython.display import Image, display\ndisplay(Image(data=base64.b64decode("${PNG_1X1}")))`,
    );
    const result = await svc.runCell(NB, id);
    const image = result.outputs.find((o) => o.output_type === 'display_data')!;
    expect((image.data as Record<string, string>)['image/png'].replace(/\n/g, '')).toBe(PNG_1X1);
  });

  it('interrupts time.sleep(30)', async () => {
    const id = await addCell('import time\nprint("sleeping", flush=True)\ntime.sleep(30)');
    const sleeping = nextEvent(hub, 'notebook.output', (e) => e.cellId === id && e.change.kind === 'append');
    const running = svc.runCell(NB, id);
    await sleeping;
    const { interrupted } = await svc.interrupt(NB);
    expect(interrupted).toBe(true);
    const result = await running;
    expect(result.had_error).toBe(true);
    expect(result.outputs.find((o) => o.output_type === 'error')).toMatchObject({ ename: 'KeyboardInterrupt' });
  });

  it('edits several cells as one change (Replace All); an unknown cell among them changes none', async () => {
    const a = await addCell('alpha = 1');
    const b = await addCell('print(alpha)');
    await expect(
      svc.editCells(NB, [
        { cellId: a, source: 'omega = 1' },
        { cellId: 'no-such-cell', source: 'x' },
      ]),
    ).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    expect((await svc.get(NB)).cells.find((c) => c.id === a)!.source).toBe('alpha = 1');
    const result = await svc.editCells(NB, [
      { cellId: a, source: 'omega = 1' },
      { cellId: b, source: 'print(omega)' },
    ]);
    expect(result.dirty).toBe(true);
    const cells = (await svc.get(NB)).cells;
    expect([a, b].map((id) => cells.find((c) => c.id === id)!.source)).toEqual(['omega = 1', 'print(omega)']);
  });

  it('re-runs one cell with earlier variables in scope, keeping other cells; edits keep outputs', async () => {
    const a = await addCell('base = 10');
    const b = await addCell('base + 1');
    const c = await addCell('print("untouched")');
    await svc.runCells(NB, 'below', a);
    const before = await svc.get(NB);
    const cOutputs = before.cells.find((x) => x.id === c)!.outputs;
    expect(text(before.cells.find((x) => x.id === b)!.outputs)).toBe('11');

    await svc.editCell(NB, b, 'base + 100');
    // Editing keeps the old outputs until it runs again.
    expect(text((await svc.get(NB)).cells.find((x) => x.id === b)!.outputs)).toBe('11');
    const rerun = await svc.runCell(NB, b);
    expect(text(rerun.outputs)).toBe('110');
    const after = await svc.get(NB);
    expect(after.cells.find((x) => x.id === c)!.outputs).toEqual(cOutputs);
    expect(after.cells.find((x) => x.id === a)!.execution_count).toBe(
      before.cells.find((x) => x.id === a)!.execution_count,
    );
    expect(rerun.exec_count).toBeGreaterThan(before.cells.find((x) => x.id === b)!.execution_count!);
  });

  it('runs above and below, stopping at the first error', async () => {
    for (const cell of (await svc.get(NB)).cells) await svc.deleteCell(NB, cell.id);
    const x = await addCell('stage = 1');
    const y = await addCell('raise ValueError("stop here")');
    const z = await addCell('stage = 3');
    const { results } = await svc.runCells(NB, 'below', x);
    expect(results.map((r) => r.status)).toEqual(['ok', 'error', 'aborted']);
    const above = await svc.runCells(NB, 'above', y);
    expect(above.results).toEqual([expect.objectContaining({ cell_id: x, status: 'ok' })]);
    await svc.deleteCell(NB, y);
    await svc.deleteCell(NB, z);
    expect((await svc.get(NB)).cells.some((c) => c.id === y)).toBe(false);
  });

  it('clears outputs of one cell or all', async () => {
    const id = await addCell('print("x")');
    await svc.runCell(NB, id);
    await svc.clearOutputs(NB, id);
    const cell = (await svc.get(NB)).cells.find((c) => c.id === id)!;
    expect(cell.outputs).toEqual([]);
    expect(cell.execution_count).toBeNull();
    await svc.clearOutputs(NB);
    expect((await svc.get(NB)).cells.every((c) => c.outputs.length === 0)).toBe(true);
  });

  it('imports a module written to src/ after the kernel started, and again after restart', async () => {
    await workspace.write('src/kiln_late_pkg/__init__.py', 'ANSWER = 41 + 1\n', {
      origin: 'operator',
      createParents: true,
    });
    const id = await addCell('import kiln_late_pkg\nkiln_late_pkg.ANSWER');
    expect(text((await svc.runCell(NB, id)).outputs)).toBe('42');

    const v = await addCell('secret = "kept?"');
    await svc.runCell(NB, v);
    const info = await svc.restart(NB);
    expect(info.status).toBe('idle');
    const check = await addCell('"secret" in globals()');
    expect(text((await svc.runCell(NB, check)).outputs)).toBe('False');
    await workspace.write('src/kiln_after_restart.py', 'X = "fresh"\n', { origin: 'operator' });
    const again = await addCell('import kiln_late_pkg, kiln_after_restart\nkiln_late_pkg.ANSWER, kiln_after_restart.X');
    expect(text((await svc.runCell(NB, again)).outputs)).toBe("(42, 'fresh')");
  });

  it('asks for input() and takes the reply', async () => {
    const id = await addCell('name = input("Name: ")\nprint("hello", name)');
    const running = svc.runCell(NB, id);
    const request = await nextEvent(hub, 'notebook.inputRequest', (e) => e.cellId === id);
    expect(request.prompt).toBe('Name: ');
    expect((await svc.inputReply(NB, 'Ada')).accepted).toBe(true);
    expect(text((await running).outputs)).toContain('hello Ada');
  });

  it('restarts and runs all', async () => {
    for (const cell of (await svc.get(NB)).cells) await svc.deleteCell(NB, cell.id);
    await addCell('import kiln_late_pkg\nvalue = kiln_late_pkg.ANSWER');
    await svc.insertCell(NB, { cellType: 'markdown', source: '# notes' });
    await addCell('value * 2');
    const { results } = await svc.restartRunAll(NB);
    expect(results.map((r) => [r.status, r.exec_count])).toEqual([
      ['ok', 1],
      ['skipped', null],
      ['ok', 2],
    ]);
    expect(text(results[2].outputs)).toBe('84');
  });

  it('saves outputs as nbformat-valid JSON', async () => {
    await svc.save(NB);
    const file = path.join(root, NB);
    const out = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import sys, nbformat; nb = nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); print(len(nb.cells))',
        file,
      ],
      {
        env: { ...process.env, PYTHONWARNINGS: 'ignore' },
      },
    );
    expect(Number(out.toString().trim())).toBe((await svc.get(NB)).cells.length);
    const written = JSON.parse(await fs.readFile(file, 'utf8'));
    const streams = written.cells
      .flatMap((c: { outputs?: { output_type: string; text?: unknown }[] }) => c.outputs ?? [])
      .filter((o: { output_type: string }) => o.output_type === 'stream');
    expect(streams.every((o: { text?: unknown }) => Array.isArray(o.text))).toBe(true);
    expect((await svc.get(NB)).dirty).toBe(false);
  });

  it('reconnects, and switches kernelspec recording it in the metadata', async () => {
    // Connected and alive (a kernel_info round trip may still show it busy for a moment).
    expect((await svc.reconnect(NB)).status).toMatch(/^(idle|busy)$/);
    await expect(svc.setKernel(NB, 'no-such-kernel')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    const info = await svc.setKernel(NB, 'python3');
    expect(info).toMatchObject({ status: expect.stringMatching(/^(idle|busy)$/), name: 'python3' });
    const doc = await svc.get(NB);
    expect(doc.metadata.kernelspec).toEqual({
      name: 'python3',
      display_name: 'Python 3 (ipykernel)',
      language: 'python',
    });
    expect(doc.dirty).toBe(true);
    const id = await addCell('import kiln_late_pkg\nkiln_late_pkg.ANSWER');
    expect(text((await svc.runCell(NB, id)).outputs)).toBe('42');
  });

  it('comes back after the Jupyter server is killed', async () => {
    const pid = jupyter.pid!;
    const restarted = nextEvent(hub, 'notebook.jupyterError', (e) => /stopped unexpectedly/.test(e.message));
    // While it restarts, the notebook says so in words (not "starting" with nothing said).
    const said = nextEvent(
      hub,
      'notebook.kernelStatus',
      (e) => e.path === NB && e.kernel.status === 'disconnected' && /stopped unexpectedly/.test(e.kernel.message ?? ''),
    );
    const idle = new Promise<void>((resolve) => {
      let sawOutage = false;
      const watching = hub.onEvent((e) => {
        if (e.channel !== 'notebook.kernelStatus') return;
        const status = (e.payload as { kernel: { status: string } }).kernel.status;
        if (status !== 'idle' && status !== 'busy') sawOutage = true;
        if (sawOutage && status === 'idle') {
          void watching.dispose();
          resolve();
        }
      });
    });
    process.kill(pid, 'SIGKILL');
    await restarted;
    expect((await said).kernel.message).toMatch(/stopped unexpectedly \(exit code SIGKILL\)\. Restarting it/);
    await idle;
    expect(jupyter.pid).not.toBe(pid);
    const id = await addCell('"back" + "!"');
    expect(text((await svc.runCell(NB, id)).outputs)).toBe("'back!'");
  });
});

describe('following the change feed', () => {
  it('a move of the folder holding an open notebook carries its unsaved edits, dirty state and Jupyter session', async () => {
    const mover = await Workspace.open({ root, onChange: (change) => svc.applyChange(change) });
    await svc.runCell(NB, await addCell('kept = 7'));
    const id = await addCell('unsaved = 1');
    expect((await svc.get(NB)).dirty).toBe(true);
    await mover.move('work', 'moved');
    const moved = 'moved/run.ipynb';
    expect(svc.isOpen(NB)).toBe(false);
    const doc = await svc.get(moved);
    expect(doc).toMatchObject({ path: moved, dirty: true });
    expect(doc.cells.find((c) => c.id === id)?.source).toBe('unsaved = 1');
    const settings = jupyter.connection!.settings;
    await expect.poll(async () => (await SessionAPI.listRunning(settings)).map((s) => s.path)).toContain(moved);
    // Still the same kernel: what ran before the move is still defined.
    const probe = (await svc.insertCell(moved, { source: 'kept * 6' })).cell.id;
    expect(text((await svc.runCell(moved, probe)).outputs)).toBe('42');
    await svc.save(moved);
    expect(
      JSON.parse(await fs.readFile(path.join(root, moved), 'utf8')).cells.some(
        (c: { source: string[] }) => c.source.join('') === 'unsaved = 1',
      ),
    ).toBe(true);
    await expect(fs.stat(path.join(root, NB))).rejects.toThrow();
  });

  it('Save As writes the unsaved notebook to a new file and goes on there; never over an existing file', async () => {
    const current = 'moved/run.ipynb';
    await svc.insertCell(current, { source: 'saved_as = 1' });
    await fs.rm(path.join(root, current));
    await fs.writeFile(path.join(root, 'taken.ipynb'), '{}');
    const refused = await svc.saveAs(current, 'taken.ipynb').catch((e: unknown) => e);
    expect((refused as { code: string }).code).toBe('E_EXISTS');
    expect(await fs.readFile(path.join(root, 'taken.ipynb'), 'utf8')).toBe('{}');
    const doc = await svc.saveAs(current, 'kept.ipynb');
    expect(doc).toMatchObject({ path: 'kept.ipynb', dirty: false });
    expect(svc.isOpen(current)).toBe(false);
    const saved = JSON.parse(await fs.readFile(path.join(root, 'kept.ipynb'), 'utf8')) as {
      cells: { source: string[] }[];
    };
    expect(saved.cells.some((c) => c.source.join('') === 'saved_as = 1')).toBe(true);
    const settings = jupyter.connection!.settings;
    await expect.poll(async () => (await SessionAPI.listRunning(settings)).map((s) => s.path)).toContain('kept.ipynb');
  });
});

/** A new notebook as Jupyter writes it. */
const NEW_NOTEBOOK = 'import sys, nbformat; sys.stdout.write(nbformat.writes(nbformat.v4.new_notebook()))';

describe('the kernel on open', () => {
  it('starts once the open has answered, so it does not compete with building the reply', async () => {
    const own = await makeWorkspace('kiln-notebook-open-');
    const server = new JupyterServerManager({ rootDir: own.root });
    const service = announcingNotebooks(own.hub, new NotebookService({ workspace: own.workspace, jupyter: server }));
    try {
      await fs.writeFile(path.join(own.root, 'a.ipynb'), execFileSync('/usr/bin/python3', ['-c', NEW_NOTEBOOK]));
      const doc = await service.open('a.ipynb');
      // The reply says a kernel is coming, and nothing of Jupyter has started yet.
      expect(doc.kernel.status).toBe('starting');
      expect(server.status).toBe('stopped');
      await nextEvent(own.hub, 'notebook.kernelStatus', (p) => p.path === 'a.ipynb' && p.kernel.status === 'idle');
      const sessions = await SessionAPI.listRunning(server.connection!.settings);
      expect(sessions.map((s) => s.path)).toEqual(['a.ipynb']);
    } finally {
      await service.dispose();
      await server.dispose();
      await fs.rm(own.root, { recursive: true, force: true });
    }
  });
});
