import * as fs from 'node:fs/promises';
import type { KernelMessage } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotebookOutput, Variable, VariablesResult } from '../../shared/contract';
import type { EventHub } from '../events';
import { ASSIST_TIMEOUT_MS, JupyterServerManager, KernelAssist, NOT_PYTHON, VariablesInspector } from '../kernel';
import { Workspace } from '../workspace';
import { NotebookService } from './service';
import { makeWorkspace, nextEvent, announcingNotebooks } from '../../test-support/event-hub';

let root: string;
let workspace: Workspace;
let hub: EventHub;
let jupyter: JupyterServerManager;
let svc: NotebookService;
const NB = 'variables.ipynb';

async function untilIdle(): Promise<void> {
  if ((await svc.get(NB)).kernel.status === 'idle') return;
  await nextEvent(hub, 'notebook.kernelStatus', (p) => p.path === NB && p.kernel.status === 'idle');
}

async function run(source: string) {
  const cellId = (await svc.insertCell(NB, { source })).cell.id;
  const result = await svc.runCell(NB, cellId);
  expect(result.status).toBe('ok');
  return result;
}

function printed(outputs: NotebookOutput[]): string {
  return outputs.map((o) => (o.output_type === 'stream' ? [o.text].flat().join('') : '')).join('');
}

async function list(all = false): Promise<Variable[]> {
  const result: VariablesResult = await (await svc.variables(NB)).list(all);
  if (result.status !== 'ok') throw new Error(`no variables: ${result.status} ${result.message}`);
  return result.variables;
}

/** The execute requests Kiln's variables view sends on the kernel's connection, from now on. */
async function watchVariableRequests(): Promise<{ sent: KernelMessage.IExecuteRequestMsg[]; stop: () => void }> {
  const kernel = (await svc.variables(NB)).connection()!;
  const sent: KernelMessage.IExecuteRequestMsg[] = [];
  const onMessage = (_: unknown, args: { msg: KernelMessage.IMessage; direction: 'send' | 'recv' }) => {
    if (args.direction !== 'send' || args.msg.header.msg_type !== 'execute_request') return;
    const msg = args.msg as KernelMessage.IExecuteRequestMsg;
    if (msg.content.user_expressions && 'kiln' in msg.content.user_expressions) sent.push(msg);
  };
  kernel.anyMessage.connect(onMessage);
  return { sent, stop: () => kernel.anyMessage.disconnect(onMessage) };
}

beforeAll(async () => {
  ({ root, workspace, hub } = await makeWorkspace('kiln-variables-'));
  jupyter = new JupyterServerManager({ rootDir: root });
  svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter }));
  await svc.create(NB);
  await untilIdle();
});

afterAll(async () => {
  await svc.dispose();
  await jupyter.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('variables of the live kernel', () => {
  it('lists x = 42 as x int 42, silently: no execution counted, nothing in Out or _, no name left behind', async () => {
    const first = await run('x = 42');
    const before = await run('names_before = set(globals())');
    expect(before.exec_count).toBe(first.exec_count! + 1);
    const watching = await watchVariableRequests();
    const variables = await list();
    expect(await list(true)).toContainEqual(expect.objectContaining({ name: 'In', kind: 'ipython' }));
    watching.stop();
    expect(watching.sent.map((m) => [m.content.silent, m.content.store_history])).toEqual([
      [true, false],
      [true, false],
    ]);
    const x = variables.find((v) => v.name === 'x');
    expect(x).toMatchObject({ name: 'x', type: 'int', kind: 'data', shape: null, summary: '42', expandable: false });
    expect(x?.size).toBeGreaterThan(0);
    // The next run counts on from the last one; the only new names are its own input (_iN) and names_before.
    const after = await run('print(sorted(set(globals()) - names_before), len(Out), repr(_))');
    expect(after.exec_count).toBe(before.exec_count! + 1);
    expect(printed(after.outputs)).toBe(`['_i${after.exec_count}', 'names_before'] 0 ''\n`);
  });

  it("shows a selected frame's printed value through the kernel debugger's richInspectVariables, silently", async () => {
    const before = await run('frame = __import__("pandas").DataFrame({"a": range(1000)})');
    const kernel = (await svc.variables(NB)).connection()!;
    const sent: string[] = [];
    const onMessage = (_: unknown, args: { msg: KernelMessage.IMessage; direction: 'send' | 'recv' }) => {
      if (args.direction !== 'send') return;
      const content = args.msg.content as { command?: string };
      sent.push(args.msg.header.msg_type === 'debug_request' ? `debug ${content.command}` : args.msg.header.msg_type);
    };
    kernel.anyMessage.connect(onMessage);
    const inspector = await svc.variables(NB);
    const value = await inspector.value('frame');
    // Asked again: the kernel's debugger was detected once (debugInfo), the value asked each time.
    expect(await inspector.value('nothing_by_this_name')).toEqual({
      status: 'gone',
      message: 'nothing_by_this_name is no longer in the kernel',
    });
    kernel.anyMessage.disconnect(onMessage);
    expect(value).toMatchObject({ status: 'ok', route: 'debugger' });
    // pandas' own printing, bounded by its display options: the head and tail rows, never a thousand lines.
    const text = value.status === 'ok' ? value.text : '';
    expect(text).toContain('[1000 rows x 1 columns]');
    expect(text.split('\n').length).toBeLessThan(80);
    expect(sent).toEqual(['debug debugInfo', 'debug richInspectVariables', 'debug richInspectVariables']);
    const after = await run('print(len(Out))');
    expect(after.exec_count).toBe(before.exec_count! + 1);
    expect(printed(after.outputs)).toBe('0\n');
    // Its size (and a column's) is pandas' memory_usage(deep=False), read without building a Series per column.
    const usage = await run('print(frame.memory_usage(deep=False).sum(), frame.a.memory_usage(deep=False))');
    const [frameBytes, columnBytes] = printed(usage.outputs).trim().split(' ').map(Number);
    expect((await list()).find((v) => v.name === 'frame')?.size).toBe(frameBytes);
    const children = await inspector.expand(['frame'], 0);
    expect(children.status === 'ok' && children.children[0].size).toBe(columnBytes);
  });

  it('hides modules, functions, classes and IPython’s names unless all are asked for', async () => {
    await run('import os\ndef helper(): pass\nclass Thing: pass\n_private = 1\ndata = [1, 2, 3]');
    const names = (await list()).map((v) => v.name);
    expect(names).toContain('data');
    for (const hidden of ['os', 'helper', 'Thing', '_private', 'In', 'Out', 'get_ipython', 'exit', 'quit'])
      expect(names).not.toContain(hidden);
    const all = await list(true);
    const kindOf = (name: string) => all.find((v) => v.name === name)?.kind;
    expect([kindOf('os'), kindOf('helper'), kindOf('Thing'), kindOf('_private'), kindOf('Out')]).toEqual([
      'module',
      'function',
      'class',
      'ipython',
      'ipython',
    ]);
    expect(all.find((v) => v.name === 'data')).toMatchObject({ type: 'list', shape: 'len 3', summary: '[1, 2, 3]' });
  });

  it('summarises a 10-million-element array in one short line, without stringifying it', async () => {
    await run('import numpy as np\nbig = np.zeros(10_000_000)');
    const t0 = performance.now();
    const big = (await list()).find((v) => v.name === 'big');
    const took = performance.now() - t0;
    expect(big).toMatchObject({ type: 'ndarray', shape: '10000000', size: 80_000_000 });
    expect(big!.summary).toBe('[0. 0. 0. ... 0. 0. 0.]');
    // Its full repr would take seconds and megabytes; the listing takes a few ms (bounded for a loaded machine).
    expect(took).toBeLessThan(3_000);
  });

  it('lists an object whose shape or repr raises, and bounds bytes', async () => {
    await run(
      'class Broken:\n    shape = property(lambda self: 1 / 0)\n    def __repr__(self): raise RuntimeError("no")\n' +
        'broken = Broken()\nblob = bytes(50_000_000)',
    );
    const variables = await list();
    expect(variables.find((v) => v.name === 'broken')).toMatchObject({
      type: 'Broken',
      summary: '<not readable: ZeroDivisionError>',
    });
    const blob = variables.find((v) => v.name === 'blob')!;
    expect(blob.summary.length).toBeLessThanOrEqual(120);
    expect(blob.size).toBeGreaterThan(50_000_000);
  });

  it('expands items, attributes and columns lazily: the first 100, then more from an offset', async () => {
    await run(
      'import pandas as pd\nmany = list(range(250))\nclass Point:\n    def __init__(self): self.px = 1; self.py = "two"\n' +
        'point = Point()\ndf = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})\nnested = {"k": [10, 20]}',
    );
    const inspector = await svc.variables(NB);
    const page = await inspector.expand(['many'], 0);
    expect(page).toMatchObject({ status: 'ok', total: 250, offset: 0 });
    if (page.status !== 'ok') return;
    expect(page.children).toHaveLength(100);
    expect(page.children[99]).toMatchObject({ name: '[99]', type: 'int', summary: '99', ref: ['many', ['i', 99]] });
    const more = await inspector.expand(['many'], 200);
    expect(more.status === 'ok' && more.children.map((c) => c.summary)).toHaveLength(50);
    const point = await inspector.expand(['point'], 0);
    expect(point.status === 'ok' && point.children.map((c) => [c.name, c.type, c.summary])).toEqual([
      ['px', 'int', '1'],
      ['py', 'str', "'two'"],
    ]);
    const columns = await inspector.expand(['df'], 0);
    expect(columns.status === 'ok' && columns.children.map((c) => [c.name, c.type, c.shape])).toEqual([
      ['a', 'Series', '2'],
      ['b', 'Series', '2'],
    ]);
    const entry = await inspector.expand(['nested'], 0);
    expect(entry.status === 'ok' && entry.children[0]).toMatchObject({ name: "'k'", ref: ['nested', ['k', 0]] });
    const inner = await inspector.expand(['nested', ['k', 0]], 0);
    expect(inner.status === 'ok' && inner.children.map((c) => c.summary)).toEqual(['10', '20']);
    expect(await inspector.expand(['no_such_name'], 0)).toMatchObject({ status: 'gone' });
  });

  it('sends nothing while a cell runs: busy within the bound, and asked again once the run ends', async () => {
    await untilIdle();
    const cellId = (await svc.insertCell(NB, { source: 'import time\nprint("start", flush=True)\ntime.sleep(30)' }))
      .cell.id;
    const started = nextEvent(hub, 'notebook.output', (p) => p.cellId === cellId);
    const running = svc.runCell(NB, cellId);
    await started;
    const watching = await watchVariableRequests();
    const t0 = performance.now();
    const result = await (await svc.variables(NB)).list(false);
    expect(result.status).toBe('busy');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(ASSIST_TIMEOUT_MS - 50);
    expect(watching.sent).toEqual([]);
    // The queue drained: the view is told, and its request is sent now.
    const changed = nextEvent(hub, 'notebook.variablesChanged', (p) => p.path === NB);
    await svc.interrupt(NB);
    expect((await running).status).toBe('error');
    await changed;
    expect((await list()).some((v) => v.name === 'x')).toBe(true);
    watching.stop();
    expect(watching.sent).toHaveLength(1);
  });

  it('says why for a notebook without a running kernel, and for a kernel that is not Python', async () => {
    const quiet = announcingNotebooks(hub, new NotebookService({ workspace, jupyter, autoStartKernel: false }));
    try {
      await quiet.create('quiet.ipynb');
      expect(await (await quiet.variables('quiet.ipynb')).list(false)).toEqual({
        status: 'unavailable',
        message: 'No kernel is running: run a cell to start one.',
      });
    } finally {
      await quiet.dispose();
    }
    const target = {
      info: { status: 'idle' as const, name: 'ir', displayName: 'R', language: 'R' },
      assistKernel: () => null,
      executing: false,
      onExecutionEnded: () => ({ dispose: () => undefined }),
    };
    const inspector = new VariablesInspector({
      assist: new KernelAssist({ target: () => target }),
      target: () => target,
    });
    expect(await inspector.list(false)).toEqual({ status: 'unsupported', message: NOT_PYTHON });
  });
});
