/**
 * Completion round trip of `import os; os.pa`: Kiln's full path (a `notebook.complete` request over the
 * WebSocket as the renderer sends it -> router -> NotebookService -> KernelAssist -> Jupyter server -> kernel
 * -> the reply back over the socket) against a direct `@jupyterlab/services` `requestComplete` on a second
 * connection to the same kernel, samples interleaved in one run. Prints medians and their ratio (target ≤ 1.3x).
 */
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KernelAPI, KernelConnection } from '@jupyterlab/services';
import { makeServerSettings } from '../main/kernel/jupyter-server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { trustFolder } from '../main/trust';
import { connectContract } from './contract-client';
import { interleaved, median, runWhenMain } from './support';

export interface CompleteRoundTripResult {
  samples: number;
  kilnMedianMs: number;
  directMedianMs: number;
  /** kiln / direct; 1.0 means Kiln adds nothing. */
  ratio: number;
}

const CODE = 'import os; os.pa';
const NOTEBOOK = 'bench.ipynb';

/** The embedded server's URL and token, from the `jpserver-*.json` Jupyter writes in Kiln's private runtime folder. */
async function findServer(dir: string): Promise<{ url: string; token: string }> {
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /^jpserver-\d+\.json$/.test(entry.name)) {
      const info = JSON.parse(await fs.readFile(path.join(entry.parentPath, entry.name), 'utf8')) as {
        url: string;
        token: string;
      };
      return info;
    }
  }
  throw new Error('the embedded Jupyter server wrote no jpserver-*.json');
}

/** Measures both paths; prints and returns medians and the ratio. */
export async function benchNotebookComplete(options: { samples?: number } = {}): Promise<CompleteRoundTripResult> {
  const samples = Math.max(50, options.samples ?? 100);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-bench-complete-'));
  const root = path.join(scratch, 'workspace');
  await fs.mkdir(root, { recursive: true });
  // Kernels start only in a trusted folder (the bench's own).
  await trustFolder(scratch, root);
  const services = await createServices({ root, dataDir: scratch, prefsStore: new MemoryStore() });
  const client = await connectContract(services, scratch);
  // Each completion a newer one than the last, as the editor sends them.
  let requestId = 0;
  let direct: KernelConnection | null = null;
  try {
    await client.request('notebook.create', { path: NOTEBOOK });
    // The kernel starts on open; wait until it answers completions.
    for (let tries = 0; ; tries++) {
      const reply = await client.request('notebook.complete', {
        path: NOTEBOOK,
        code: CODE,
        cursor: CODE.length,
        requestId: ++requestId,
      });
      if (reply.status === 'ok') break;
      if (tries > 600) throw new Error(`the kernel never answered a completion (${reply.status})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const server = await findServer(path.join(scratch, 'jupyter'));
    const settings = makeServerSettings(server.url, server.token);
    const [model] = await KernelAPI.listRunning(settings);
    direct = new KernelConnection({ model, serverSettings: settings, username: 'bench', handleComms: false });
    await direct.info;
    const kernel = direct;

    const kilnOnce = async () => {
      const start = performance.now();
      const reply = await client.request('notebook.complete', {
        path: NOTEBOOK,
        code: CODE,
        cursor: CODE.length,
        requestId: ++requestId,
      });
      if (reply.status !== 'ok' || !reply.matches.includes('path'))
        throw new Error(`Kiln's completion missed path (${reply.status})`);
      return performance.now() - start;
    };
    const directOnce = async () => {
      const start = performance.now();
      const reply = await kernel.requestComplete({ code: CODE, cursor_pos: CODE.length });
      const content = reply.content as { matches?: string[] };
      if (!content.matches?.includes('path')) throw new Error('the direct completion missed path');
      return performance.now() - start;
    };
    // Both warm up first: jedi's first completion loads it.
    const { kiln: kilnTimes, baseline: directTimes } = await interleaved(kilnOnce, directOnce, samples);
    const kilnMedianMs = median(kilnTimes);
    const directMedianMs = median(directTimes);
    const result = { samples, kilnMedianMs, directMedianMs, ratio: kilnMedianMs / directMedianMs };
    console.log(
      `notebook completion round trip (median of ${samples}, interleaved): Kiln ${kilnMedianMs.toFixed(2)} ms, ` +
        `@jupyterlab/services requestComplete ${directMedianMs.toFixed(2)} ms, ratio ${result.ratio.toFixed(2)}x (target ≤ 1.3x)`,
    );
    return result;
  } finally {
    direct?.dispose();
    await client.close();
    await services.dispose();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, benchNotebookComplete);
