/**
 * The data viewer through the whole service graph: refused in an untrusted folder (no kernel is started for it);
 * once trusted, a filtered, sorted view exported as CSV lands in the workspace as an operator's write (its
 * change in the feed, the version it replaced in local history).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { MemoryStore } from '../../main/prefs';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { UNTRUSTED_KERNEL_MESSAGE } from '../../main/notebook';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';

let root: string;
let cleanup: () => Promise<void>;
let dataCleanup: () => Promise<void>;
let services: Services;

const NB = 'nb/a.ipynb';
const notebook = JSON.stringify({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  cells: [
    {
      id: 'c0',
      cell_type: 'code',
      source:
        "import pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Lima', 'Pune', 'Kobe'], 'temp': [3.5, 19, 31, 12]})",
      metadata: {},
      outputs: [],
      execution_count: null,
    },
  ],
});

async function call(channel: string, args: unknown = {}): Promise<unknown> {
  const reply = await dispatch(services.handlers, channel, args);
  if (!reply.ok) throw Object.assign(new Error(`${channel}: ${reply.error.message}`), { code: reply.error.code });
  return reply.value;
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempTree({ [NB]: notebook, 'out/view.csv': 'old export\n' }));
  const data = await makeTempTree({});
  dataCleanup = data.cleanup;
  services = await createServices({
    root,
    dataDir: data.root,
    prefsStore: new MemoryStore(),
    trash: async () => false,
  });
});
afterAll(async () => {
  await services?.dispose();
  await cleanup?.();
  await dataCleanup?.();
});

it('an untrusted folder: the viewer says why and starts nothing; trusted, the view exports as CSV through the workspace', async () => {
  await call('notebook.open', { path: NB });
  const view = {
    path: NB,
    name: 'df',
    sort: { column: 1, descending: true },
    filters: [{ column: 1, op: 'gt', value: '10' }],
  };
  expect(await call('notebook.dataPage', view)).toEqual({ status: 'unavailable', message: UNTRUSTED_KERNEL_MESSAGE });
  expect(await call('notebook.dataExport', { ...view, to: 'out/view.csv' })).toEqual({
    status: 'unavailable',
    message: UNTRUSTED_KERNEL_MESSAGE,
  });
  expect(await readFile(path.join(root, 'out/view.csv'), 'utf8')).toBe('old export\n');

  await call('trust.set', { trusted: true });
  await call('notebook.runCell', { path: NB, cellId: 'c0' });
  const changes: FsChange[] = [];
  const watching = services.changes.onDidChange((change) => changes.push(change));
  try {
    const written = await call('notebook.dataExport', { ...view, to: 'out/view.csv' });
    expect(written).toMatchObject({ status: 'ok', path: 'out/view.csv', rows: 3 });
    expect(await readFile(path.join(root, 'out/view.csv'), 'utf8')).toBe(
      ',city,temp\n2,Pune,31.0\n1,Lima,19.0\n3,Kobe,12.0\n',
    );
    await until(
      () => changes.some((c) => 'path' in c && c.path === 'out/view.csv' && c.origin === 'operator'),
      'the export in the change feed',
    );
  } finally {
    await watching.dispose();
  }
  const history = (await call('history.list', { path: 'out/view.csv' })) as { entries: { id: string }[] };
  expect(history.entries.length).toBeGreaterThan(0);
  const before = await call('history.read', { path: 'out/view.csv', id: history.entries.at(-1)!.id });
  expect(JSON.stringify(before)).toContain('old export');
}, 180_000);
