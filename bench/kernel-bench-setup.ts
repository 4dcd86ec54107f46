/**
 * What the variables and data viewer benchmarks share: Kiln's services over a WebSocket (as the renderer talks to
 * them) with a notebook whose kernel is up, and a second, direct `@jupyterlab/services` connection to the same
 * kernel for the baseline.
 */
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KernelAPI, KernelConnection, type KernelMessage } from '@jupyterlab/services';
import { makeServerSettings } from '../main/kernel/jupyter-server';
import { execute } from '../main/kernel/variables';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { trustFolder } from '../main/trust';
import { connectContract, type ContractClient } from './contract-client';

export const NOTEBOOK = 'bench.ipynb';

export interface KernelBench {
  client: ContractClient;
  direct: KernelConnection;
  /** Runs `source` as a new cell through Kiln (as the operator does), to its end. */
  run(source: string): Promise<void>;
  /** Runs the notebook's last cell again, to its end (the notebook does not grow between samples). */
  rerun(): Promise<void>;
  /** The direct side's execute_request: silent, no history, `expression` as the one user expression. */
  directExpression(expression: string): Promise<KernelMessage.IExecuteReplyMsg>;
  close(): Promise<void>;
}

async function findServer(dir: string): Promise<{ url: string; token: string }> {
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /^jpserver-\d+\.json$/.test(entry.name))
      return JSON.parse(await fs.readFile(path.join(entry.parentPath, entry.name), 'utf8')) as {
        url: string;
        token: string;
      };
  }
  throw new Error('the embedded Jupyter server wrote no jpserver-*.json');
}

export async function startKernelBench(prefix: string): Promise<KernelBench> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const root = path.join(scratch, 'workspace');
  await fs.mkdir(root, { recursive: true });
  await trustFolder(scratch, root);
  const services = await createServices({ root, dataDir: scratch, prefsStore: new MemoryStore() });
  const client = await connectContract(services, scratch);
  const close = async () => {
    await client.close();
    await services.dispose();
    await fs.rm(scratch, { recursive: true, force: true });
  };
  try {
    await client.request('notebook.create', { path: NOTEBOOK });
    let last = '';
    const runCell = async (cellId: string) => {
      const result = await client.request('notebook.runCell', { path: NOTEBOOK, cellId });
      if (result.status !== 'ok') throw new Error(`the bench's cell failed: ${JSON.stringify(result.outputs)}`);
    };
    const run = async (source: string) => {
      const { cell } = await client.request('notebook.insertCell', { path: NOTEBOOK, source });
      last = cell.id;
      await runCell(cell.id);
    };
    await run('pass');
    const server = await findServer(path.join(scratch, 'jupyter'));
    const settings = makeServerSettings(server.url, server.token);
    const [model] = await KernelAPI.listRunning(settings);
    const direct = new KernelConnection({ model, serverSettings: settings, username: 'bench', handleComms: false });
    await direct.info;
    // The same silent, no-history request Kiln sends (main/kernel/variables.ts), on the direct connection.
    const directExpression = async (expression: string) => {
      const reply = await execute(direct, expression);
      const value = reply.content.status === 'ok' ? reply.content.user_expressions.kiln : undefined;
      if ((value as { status?: string } | undefined)?.status !== 'ok')
        throw new Error(`the direct request failed: ${JSON.stringify(value)}`);
      return reply;
    };
    return {
      client,
      direct,
      run,
      rerun: () => runCell(last),
      directExpression,
      close: async () => {
        direct.dispose();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
