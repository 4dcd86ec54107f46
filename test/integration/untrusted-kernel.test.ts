/**
 * Untrusted means inert, for notebooks: real services, a real Jupyter, planted files beside the notebook and in
 * src/ that write a canary outside the workspace if Python ever imports them.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryStore } from '../../main/prefs';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';

let root: string;
let dataDir: string;
let canaries: string;
const cleanups: Array<() => Promise<void>> = [];

const plant = (name: string) => `open(${JSON.stringify(path.join(canaries, name))}, 'w').write('ran')\n`;

function notebook(sources: string[]): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: sources.map((source, i) => ({
      id: `c${i}`,
      cell_type: 'code',
      source,
      metadata: {},
      outputs: [],
      execution_count: null,
    })),
  });
}

beforeAll(async () => {
  canaries = await mkdtemp(path.join(os.tmpdir(), 'kiln-untrusted-canaries-'));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-untrusted-data-'));
  let cleanup: () => Promise<void>;
  ({ root, cleanup } = await makeTempTree({
    'nb/a.ipynb': notebook(['1+1', 'import mymodule\nmymodule.VALUE', 'import sys\nsys.path[0]']),
    'nb/ipykernel_launcher.py': plant('ipykernel_launcher'),
    'nb/mymodule.py': 'VALUE = 42\n',
    'src/sitecustomize.py': plant('sitecustomize'),
  }));
  cleanups.push(
    cleanup,
    () => rm(canaries, { recursive: true, force: true }),
    () => rm(dataDir, { recursive: true, force: true }),
  );
});
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** The embedded server's own list of kernels (from its runtime file); null when no server was ever started. */
async function serverKernels(): Promise<unknown[] | null> {
  const jupyterDir = path.join(dataDir, 'jupyter');
  const dirs = (await readdir(jupyterDir).catch(() => [] as string[])).filter((d) => d.startsWith('kiln-jupyter-'));
  if (!dirs.length) return null;
  const runtime = path.join(jupyterDir, dirs[0], 'runtime');
  const file = (await readdir(runtime)).find((f) => /^jpserver-\d+\.json$/.test(f));
  if (!file) return null;
  const { url, token } = JSON.parse(await readFile(path.join(runtime, file), 'utf8')) as { url: string; token: string };
  const res = await fetch(`${url.replace(/\/?$/, '/')}api/kernels`, { headers: { Authorization: `token ${token}` } });
  return (await res.json()) as unknown[];
}

async function open(): Promise<{ services: Services; call: (channel: string, args?: unknown) => Promise<unknown> }> {
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  const call = async (channel: string, args: unknown = {}) => {
    const reply = await dispatch(services.handlers, channel, args);
    if (!reply.ok) throw Object.assign(new Error(`${channel}: ${reply.error.message}`), { code: reply.error.code });
    return reply.value;
  };
  return { services, call };
}

const outputText = (result: unknown) =>
  JSON.stringify((result as { outputs: { data?: Record<string, unknown> }[] }).outputs.map((o) => o.data));

it('an untrusted notebook starts no kernel and runs nothing; after Trust it runs without the planted launcher; revoking stops it', async () => {
  const { services, call } = await open();
  try {
    const doc = (await call('notebook.open', { path: 'nb/a.ipynb' })) as { kernel: { status: string } };
    expect(doc.kernel.status).toBe('none');
    // The open's kernel start would be queued for the next task: let it pass, then look.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // Every way to a kernel is refused, and no Jupyter server (so no kernel) was started.
    for (const [channel, args] of [
      ['notebook.runCell', { path: 'nb/a.ipynb', cellId: 'c0' }],
      ['notebook.runCells', { path: 'nb/a.ipynb', scope: 'all' }],
      ['notebook.restart', { path: 'nb/a.ipynb' }],
      ['notebook.restartRunAll', { path: 'nb/a.ipynb' }],
      ['notebook.reconnect', { path: 'nb/a.ipynb' }],
      ['notebook.kernelSpecs', {}],
    ] as const) {
      await expect(call(channel, args), channel).rejects.toMatchObject({ code: 'E_UNTRUSTED' });
    }
    expect(((await call('notebook.get', { path: 'nb/a.ipynb' })) as { kernel: { status: string } }).kernel.status).toBe(
      'none',
    );
    // Kernel completion and inspection answer from a running kernel only: they start none either.
    await call('notebook.complete', { path: 'nb/a.ipynb', code: 'import o', cursor: 8, requestId: 1 });
    await call('notebook.inspect', { path: 'nb/a.ipynb', code: 'len', cursor: 3, detailLevel: 0, requestId: 2 });
    expect(await serverKernels()).toBeNull();
    expect(await readdir(canaries)).toEqual([]);

    // Trust: the open notebook's kernel starts; cells run; the folder beside the notebook imports; src/ is on the path.
    await call('trust.set', { trusted: true });
    expect(outputText(await call('notebook.runCell', { path: 'nb/a.ipynb', cellId: 'c0' }))).toContain('"2"');
    expect(outputText(await call('notebook.runCell', { path: 'nb/a.ipynb', cellId: 'c1' }))).toContain('42');
    expect(outputText(await call('notebook.runCell', { path: 'nb/a.ipynb', cellId: 'c2' }))).toContain(
      JSON.stringify(path.join(root, 'src')).slice(1, -1),
    );
    expect(await serverKernels()).toHaveLength(1);
    expect(await readdir(canaries)).toEqual([]);

    // Revoke: the workspace's kernel is shut down, and a run is refused again.
    await call('trust.set', { trusted: false });
    expect(await serverKernels()).toEqual([]);
    await until(
      async () =>
        ((await call('notebook.get', { path: 'nb/a.ipynb' })) as { kernel: { status: string } }).kernel.status ===
        'none',
      'the notebook to show no kernel',
    );
    await expect(call('notebook.runCell', { path: 'nb/a.ipynb', cellId: 'c0' })).rejects.toMatchObject({
      code: 'E_UNTRUSTED',
    });
    expect(await readdir(canaries)).toEqual([]);
  } finally {
    await services.dispose();
  }
}, 180_000);
