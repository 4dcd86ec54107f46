import * as fs from 'node:fs/promises';
import type { KernelMessage } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataPageResult, NotebookOutput } from '../../shared/contract';
import type { EventHub } from '../events';
import { JupyterServerManager } from '../kernel';
import type { Workspace } from '../workspace';
import { NotebookService } from './service';
import { makeWorkspace, nextEvent, announcingNotebooks } from '../../test-support/event-hub';

let root: string;
let workspace: Workspace;
let hub: EventHub;
let jupyter: JupyterServerManager;
let svc: NotebookService;
const NB = 'data.ipynb';
const ROWS = 10_000_000;

async function run(source: string) {
  const cellId = (await svc.insertCell(NB, { source })).cell.id;
  const result = await svc.runCell(NB, cellId);
  expect(result.status).toBe('ok');
  return result;
}

function printed(outputs: NotebookOutput[]): string {
  return outputs.map((o) => (o.output_type === 'stream' ? [o.text].flat().join('') : '')).join('');
}

type Page = Extract<DataPageResult, { status: 'ok' }>;
function ok(result: DataPageResult): Page {
  if (result.status !== 'ok') throw new Error(`no page: ${result.status} ${result.message}`);
  return result;
}

/** Every message between main and the kernel from now on: what was sent, and the largest received (its JSON size). */
async function watchWire() {
  const kernel = (await svc.dataViewer(NB)).connection()!;
  const sent: KernelMessage.IExecuteRequestMsg[] = [];
  let largest = 0;
  const onMessage = (_: unknown, args: { msg: KernelMessage.IMessage; direction: 'send' | 'recv' }) => {
    if (args.direction === 'send' && args.msg.header.msg_type === 'execute_request')
      sent.push(args.msg as KernelMessage.IExecuteRequestMsg);
    if (args.direction === 'recv') largest = Math.max(largest, JSON.stringify(args.msg.content).length);
  };
  kernel.anyMessage.connect(onMessage);
  return { sent, largest: () => largest, stop: () => kernel.anyMessage.disconnect(onMessage) };
}

beforeAll(async () => {
  ({ root, workspace, hub } = await makeWorkspace('kiln-data-viewer-'));
  jupyter = new JupyterServerManager({ rootDir: root });
  svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter }));
  await svc.create(NB);
  if ((await svc.get(NB)).kernel.status !== 'idle')
    await nextEvent(hub, 'notebook.kernelStatus', (p) => p.path === NB && p.kernel.status === 'idle');
  // Ten columns of ten million rows: v a shuffled 0..n-1 (so its order is known), eight more numbers, one text; the 0 of v is missing (NaN).
  await run(
    'import numpy as np, pandas as pd\n' +
      `n = ${ROWS}\nrng = np.random.default_rng(1)\n` +
      "df = pd.DataFrame({'v': rng.permutation(n).astype('float64')})\n" +
      "for i in range(8): df[f'c{i}'] = np.arange(n) * (i + 1)\n" +
      "df['label'] = np.array(['apple', 'pear', 'fig'], dtype=object)[np.arange(n) % 3]\n" +
      "df.loc[df.v == 0, 'v'] = np.nan\n" +
      'names_before = set(globals())',
  );
}, 300_000);

afterAll(async () => {
  await svc?.dispose();
  await jupyter?.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('the data viewer against a real kernel', () => {
  it('pages, sorts and filters a 10-million-row DataFrame kernel-side: small messages, silent, no names left', async () => {
    const viewer = await svc.dataViewer(NB);
    const wire = await watchWire();
    const first = ok(await viewer.page('df', { sort: null, filters: [] }, 0, 200));
    expect(first).toMatchObject({ kind: 'DataFrame', total: ROWS, rows: ROWS, offset: 0 });
    expect(first.columns.map((c) => [c.name, c.kind])).toEqual([
      ['v', 'number'],
      ...Array.from({ length: 8 }, (_, i) => [`c${i}`, 'number']),
      ['label', 'string'],
    ]);
    expect(first.data.every((column) => column.length === 200)).toBe(true);
    expect(first.index.slice(0, 3)).toEqual(['0', '1', '2']);

    // Sorted descending by v: the largest first, NaN last; a page deep into the sorted view is as cheap.
    const sorted = ok(await viewer.page('df', { sort: { column: 0, descending: true }, filters: [] }, 0, 200));
    expect(sorted.data[0].slice(0, 3)).toEqual([ROWS - 1, ROWS - 2, ROWS - 3]);
    const deep = ok(await viewer.page('df', { sort: { column: 0, descending: true }, filters: [] }, 5_000_000, 200));
    expect(deep.data[0][0]).toBe(ROWS - 1 - 5_000_000);
    const last = ok(await viewer.page('df', { sort: { column: 0, descending: true }, filters: [] }, ROWS - 1, 200));
    expect(last.data[0]).toEqual([null]);

    // Filtered: v < 1000 and label contains "PEA" (case-insensitive), sorted ascending by v.
    const filters = [
      { column: 0, op: 'lt' as const, value: '1000' },
      { column: 9, op: 'contains' as const, value: 'PEA' },
    ];
    const filtered = ok(await viewer.page('df', { sort: { column: 0, descending: false }, filters }, 0, 500));
    const expected = await run(
      "print(len(df[(df.v < 1000) & (df.label == 'pear')]), df[(df.v < 1000) & (df.label == 'pear')].v.min())",
    );
    const [count, min] = printed(expected.outputs).trim().split(' ');
    expect(filtered.rows).toBe(Number(count));
    expect(filtered.data[0][0]).toBe(Number(min));
    expect(filtered.data[9].every((label) => label === 'pear')).toBe(true);
    wire.stop();

    // Never the frame: no message from the kernel reached 200 KB (the frame is hundreds of MB).
    expect(wire.largest()).toBeLessThan(200_000);
    const ours = wire.sent.filter((m) => m.content.user_expressions && 'kiln' in m.content.user_expressions);
    expect(ours).toHaveLength(5);
    expect(ours.every((m) => m.content.silent && !m.content.store_history && m.content.code === '')).toBe(true);
    // The operator's namespace gained only the check run's own input: no name of the viewer's.
    const after = await run('print(sorted(set(globals()) - names_before - {"expected"}))');
    expect(printed(after.outputs)).toBe(`['_i${after.exec_count! - 1}', '_i${after.exec_count}', 'names_before']\n`);
  }, 300_000);

  it('summarises columns: count, missing, min/max of numbers, top values of text', async () => {
    const result = await (await svc.dataViewer(NB)).summary('df');
    if (result.status !== 'ok') throw new Error(result.message);
    expect(result.summaries[0]).toMatchObject({ count: ROWS - 1, missing: 1, min: 1, max: ROWS - 1, top: null });
    expect(result.summaries[9].top!.map(([value]) => value).sort()).toEqual(['apple', 'fig', 'pear']);
    expect(result.summaries[9].sampled).toBe(true);
  }, 120_000);

  it('shows a Series, a 2-D array and a list of dicts; says what it does not show', async () => {
    await run(
      "s = pd.Series([3, 1, 2], name='s', index=['a', 'b', 'c'])\narr = np.arange(6).reshape(2, 3)\n" +
        "records = [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]\nnumber = 5",
    );
    const viewer = await svc.dataViewer(NB);
    const series = ok(await viewer.page('s', { sort: { column: 0, descending: false }, filters: [] }, 0, 200));
    expect([series.kind, series.index, series.data]).toEqual(['Series', ['b', 'c', 'a'], [[1, 2, 3]]]);
    const arr = ok(await viewer.page('arr', { sort: { column: 2, descending: true }, filters: [] }, 0, 200));
    expect([arr.kind, arr.index, arr.data]).toEqual([
      'ndarray',
      [1, 0],
      [
        [3, 0],
        [4, 1],
        [5, 2],
      ],
    ]);
    const records = ok(
      await viewer.page('records', { sort: null, filters: [{ column: 1, op: 'eq', value: 'y' }] }, 0, 200),
    );
    expect([records.kind, records.rows, records.data]).toEqual(['records', 1, [[2], ['y']]]);
    expect(await viewer.page('number', { sort: null, filters: [] }, 0, 200)).toMatchObject({
      status: 'unsupported',
      message: expect.stringContaining('number is a int'),
    });
  }, 120_000);

  it('says a variable that disappeared is gone', async () => {
    await run('gone_soon = pd.DataFrame({"a": [1]})');
    const viewer = await svc.dataViewer(NB);
    expect(ok(await viewer.page('gone_soon', { sort: null, filters: [] }, 0, 200)).rows).toBe(1);
    await run('del gone_soon');
    expect(await viewer.page('gone_soon', { sort: null, filters: [] }, 0, 200)).toEqual({
      status: 'gone',
      message: 'gone_soon is no longer in the kernel',
    });
  }, 120_000);

  it("opens a cell's result by its Out[n] handle, sorted kernel-side; says so when Out was cleared", async () => {
    const result = await run('pd.DataFrame({"a": [3, 1, 2]})');
    const handle = `Out[${result.exec_count}]`;
    const viewer = await svc.dataViewer(NB);
    const sorted = ok(await viewer.page(handle, { sort: { column: 0, descending: false }, filters: [] }, 0, 200));
    expect(sorted).toMatchObject({ kind: 'DataFrame', rows: 3 });
    expect(sorted.data[0]).toEqual([1, 2, 3]);
    await run('Out.clear()');
    expect(await viewer.page(handle, { sort: null, filters: [] }, 0, 200)).toEqual({
      status: 'gone',
      message: `${handle} is no longer in the kernel: its output history was cleared or the kernel restarted`,
    });
  }, 120_000);

  it('answers for a notebook without a kernel, and never while a cell runs', async () => {
    const quiet = announcingNotebooks(hub, new NotebookService({ workspace, jupyter, autoStartKernel: false }));
    try {
      await quiet.create('quiet.ipynb');
      expect(await (await quiet.dataViewer('quiet.ipynb')).page('df', { sort: null, filters: [] }, 0, 200)).toEqual({
        status: 'unavailable',
        message: 'No kernel is running: run a cell to start one.',
      });
    } finally {
      await quiet.dispose();
    }
    const cellId = (await svc.insertCell(NB, { source: 'import time\nprint("start", flush=True)\ntime.sleep(30)' }))
      .cell.id;
    const started = nextEvent(hub, 'notebook.output', (p) => p.cellId === cellId);
    const running = svc.runCell(NB, cellId);
    await started;
    const wire = await watchWire();
    expect(await (await svc.dataViewer(NB)).page('df', { sort: null, filters: [] }, 0, 10)).toEqual({
      status: 'busy',
      message: 'A cell is running: the data shows when it ends.',
    });
    wire.stop();
    expect(wire.sent).toEqual([]);
    await svc.interrupt(NB);
    expect((await running).status).toBe('error');
    // A restarted kernel holds nothing: the frame is gone, said as such.
    await svc.restart(NB);
    expect(await (await svc.dataViewer(NB)).page('df', { sort: null, filters: [] }, 0, 10)).toMatchObject({
      status: 'gone',
    });
  }, 120_000);
});
