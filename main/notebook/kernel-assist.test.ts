import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompleteResult, InspectResult } from '../../shared/contract';
import type { EventHub } from '../events';
import { ASSIST_TIMEOUT_MS, fromCodePoints, JupyterServerManager, toCodePoints } from '../kernel';
import { Workspace } from '../workspace';
import { NotebookService } from './service';
import { makeWorkspace, nextEvent, announcingNotebooks } from '../../test-support/event-hub';
import { debianPython } from '../../test-support/nbformat';

let root: string;
let workspace: Workspace;
let hub: EventHub;
let jupyter: JupyterServerManager;
let svc: NotebookService;
const NB = 'assist.ipynb';
let requestId = 0;

function complete(code: string, cursor = code.length): Promise<CompleteResult> {
  return svc.assist(NB).then((a) => a.complete(code, cursor, ++requestId));
}

function inspect(code: string, cursor = code.length, detail: 0 | 1 = 0): Promise<InspectResult> {
  return svc.assist(NB).then((a) => a.inspect(code, cursor, detail, ++requestId));
}

/** What the editor shows once a match replaces its range. */
function applied(code: string, result: CompleteResult, match: string): string {
  if (result.status !== 'ok') throw new Error(`no completion: ${result.status}`);
  return code.slice(0, result.cursorStart) + match + code.slice(result.cursorEnd);
}

async function untilIdle(): Promise<void> {
  if ((await svc.get(NB)).kernel.status === 'idle') return;
  await nextEvent(hub, 'notebook.kernelStatus', (p) => p.path === NB && p.kernel.status === 'idle');
}

beforeAll(async () => {
  ({ root, workspace, hub } = await makeWorkspace('kiln-assist-'));
  jupyter = new JupyterServerManager({ rootDir: root });
  svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter }));
  await svc.create(NB);
  await untilIdle();
  // The namespace inspection reads from; and jedi loaded, as after an operator's first completion.
  const cellId = (await svc.insertCell(NB, { source: 'import json' })).cell.id;
  await svc.runCell(NB, cellId);
  await complete('import os; os.pa');
});

afterAll(async () => {
  await svc.dispose();
  await jupyter.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('code points', () => {
  it('converts JavaScript offsets to the protocol’s code points and back', () => {
    const text = 'a😀b';
    expect(toCodePoints(text, 0)).toBe(0);
    expect(toCodePoints(text, 3)).toBe(2);
    expect(toCodePoints(text, 4)).toBe(3);
    expect(fromCodePoints(text, 2)).toBe(3);
    expect(fromCodePoints(text, 3)).toBe(4);
  });
});

describe('completion and inspection against the live kernel', () => {
  it('completes os.pa with path, with the kernel’s kinds', async () => {
    const code = 'import os; os.pa';
    const result = await complete(code);
    expect(result.status).toBe('ok');
    if (result.status !== 'ok') return;
    const match = result.matches.find((m) => m.endsWith('path'))!;
    expect(applied(code, result, match)).toBe('import os; os.path');
    // A kind per match (jedi may still say '<unknown>' for some while it warms up; a constant is a 'statement').
    expect(result.types.map((t) => t.text)).toEqual(result.matches);
    expect(result.types.find((t) => t.text === 'pardir')?.type).toBe('statement');
  });

  it('keeps offsets right after characters outside the BMP', async () => {
    const code = 's = "😀"; s.upp';
    const result = await complete(code);
    expect(applied(code, result, 'upper')).toBe('s = "😀"; s.upper');
  });

  it('inspects len( with its docstring, and detail level 1', async () => {
    const result = await inspect('len(');
    expect(result).toMatchObject({ status: 'ok', found: true });
    if (result.status !== 'ok') return;
    expect(String(result.data['text/plain'])).toContain('Return the number of items in a container');
    const more = await inspect('import json\njson.dumps', 'import json\njson.du'.length, 1);
    // Detail level 1 is `json.dumps??`: the source, not only the docstring.
    expect(more.status === 'ok' && String(more.data['text/plain'])).toContain('Source:');
  });

  it('answers busy within the bound while a cell runs, never queued behind it', async () => {
    const cellId = (await svc.insertCell(NB, { source: 'import time\nprint("start", flush=True)\ntime.sleep(30)' }))
      .cell.id;
    const started = nextEvent(hub, 'notebook.output', (p) => p.cellId === cellId);
    const run = svc.runCell(NB, cellId);
    await started;
    const t0 = performance.now();
    const result = await complete('import os; os.pa');
    const waited = performance.now() - t0;
    expect(result).toEqual({ status: 'busy' });
    expect(waited).toBeGreaterThanOrEqual(ASSIST_TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(ASSIST_TIMEOUT_MS + 2_500); // the bound, plus a loaded machine's timer slack
    // A newer request replaces a waiting one at once; so does a cancel.
    const first = complete('import os; os.pa');
    const second = complete('import os; os.pa');
    expect(await first).toEqual({ status: 'cancelled' });
    const id = ++requestId;
    const third = svc.assist(NB).then((a) => a.inspect('len(', 4, 0, id));
    await Promise.resolve();
    expect((await svc.assist(NB)).cancel(id)).toBe(true);
    expect(await third).toEqual({ status: 'cancelled' });
    expect(await second).toEqual({ status: 'busy' });
    await svc.interrupt(NB);
    expect((await run).status).toBe('error');
    await untilIdle();
    expect((await complete('import os; os.pa')).status).toBe('ok');
  });

  it('waits for a short cell and then answers', async () => {
    const cellId = (await svc.insertCell(NB, { source: 'import time; time.sleep(0.4)' })).cell.id;
    const running = nextEvent(hub, 'notebook.cellState', (p) => p.cellId === cellId && p.state === 'running');
    const run = svc.runCell(NB, cellId);
    await running;
    const result = await complete('import os; os.pa');
    expect(result.status).toBe('ok');
    await run;
  });

  it('an interrupt while a completion is at the kernel stops the running cell, not the completion', async () => {
    await untilIdle();
    // Completing `slow.` calls its __dir__, which keeps the kernel on the completion for 3 s.
    const setup = (
      await svc.insertCell(NB, {
        source:
          'import time\nclass Slow:\n    def __dir__(self):\n        time.sleep(3)\n        return ["alpha"]\nslow = Slow()',
      })
    ).cell.id;
    expect((await svc.runCell(NB, setup)).status).toBe('ok');
    await untilIdle();
    const cellId = (
      await svc.insertCell(NB, { source: 'import time\nprint("start", flush=True)\ntime.sleep(20)\nprint("ran on")' })
    ).cell.id;
    const atKernel = nextEvent(hub, 'notebook.kernelStatus', (p) => p.path === NB && p.kernel.status === 'busy');
    const completion = complete('slow.');
    await atKernel;
    // The cell queues behind the completion at the kernel; the interrupt comes before it started.
    const t0 = performance.now();
    const run = svc.runCell(NB, cellId);
    await svc.interrupt(NB);
    const result = await run;
    expect(result.status).toBe('error');
    const cell = (await svc.get(NB)).cells.find((c) => c.id === cellId);
    const outputs = (cell?.cell_type === 'code' ? cell.outputs : []) as {
      output_type: string;
      text?: unknown;
      ename?: unknown;
    }[];
    // Stopped as soon as it started: it printed "start" (the interrupt may land inside that print, before its
    // newline, on a loaded machine), never "ran on".
    const printed = outputs
      .filter((o) => o.output_type === 'stream')
      .map((o) => [o.text].flat().join(''))
      .join('');
    expect(printed).toMatch(/^start\n?$/);
    expect(outputs.find((o) => o.output_type === 'error')?.ename).toBe('KeyboardInterrupt');
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect((await completion).status).toBe('ok');
    await untilIdle();
  });

  it('gives nothing, and no error, for a notebook whose kernel is not running', async () => {
    const quiet = announcingNotebooks(hub, new NotebookService({ workspace, jupyter, autoStartKernel: false }));
    try {
      await quiet.create('quiet.ipynb');
      const assist = await quiet.assist('quiet.ipynb');
      expect(await assist.complete('import os; os.pa', 16, 1)).toEqual({ status: 'unavailable' });
      expect(await assist.inspect('len(', 4, 0, 2)).toEqual({ status: 'unavailable' });
    } finally {
      await quiet.dispose();
    }
  });
});

describe('recorded timing (JupyterLab’s recordTiming)', () => {
  it('writes the run’s times into metadata.execution when on, and drops them on a run when off', async () => {
    const cellId = (await svc.insertCell(NB, { source: '6 * 7' })).cell.id;
    svc.recordTimingWhen(() => true);
    try {
      const finished = nextEvent(hub, 'notebook.cellState', (p) => p.cellId === cellId && p.state === 'idle');
      await svc.runCell(NB, cellId);
      const execution = (await finished).metadata?.execution as Record<string, string>;
      expect(Object.keys(execution).sort()).toEqual([
        'iopub.execute_input',
        'iopub.status.busy',
        'iopub.status.idle',
        'shell.execute_reply',
        'shell.execute_reply.started',
      ]);
      for (const value of Object.values(execution)) expect(Number.isNaN(Date.parse(value))).toBe(false);
      expect(Date.parse(execution['shell.execute_reply'])).toBeGreaterThanOrEqual(
        Date.parse(execution['iopub.status.busy']),
      );
      const saved = (await svc.get(NB)).cells.find((c) => c.id === cellId)!;
      expect(saved.metadata.execution).toEqual(execution);
      // On disk as nbformat reads it: valid, with the times under the cell's metadata.
      await svc.save(NB);
      const read = debianPython([
        '-c',
        'import sys, json, nbformat; nb = nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); ' +
          'print(json.dumps([c.metadata.get("execution") for c in nb.cells if c.id == sys.argv[2]][0]))',
        path.join(root, NB),
        cellId,
      ]);
      expect(JSON.parse(read)).toEqual(execution);
    } finally {
      svc.recordTimingWhen(() => false);
    }
    await svc.runCell(NB, cellId);
    expect((await svc.get(NB)).cells.find((c) => c.id === cellId)!.metadata.execution).toBeUndefined();
  });
});
