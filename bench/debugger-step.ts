/**
 * A debugger step (Step Over) while paused in a cell: Kiln's full path (a `debugger.command` `next` sent over the
 * WebSocket as the renderer sends it -> router -> NotebookDebugger -> debug_request on the kernel's control
 * channel -> debugpy -> the `stopped` debug_event on IOPub -> stackTrace -> the `debugger.state` event, paused with
 * its frames, back over the socket: what moves the marker) against the same requests sent directly on a second
 * `@jupyterlab/services` connection to the same kernel (`next`, then its `stopped` event, then `stackTrace`),
 * samples interleaved in one run. Target ≤ 1.3x.
 *
 * Not timed: the renderer painting the marker after the event (one decoration update in one cell editor).
 */
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KernelAPI, KernelConnection, type KernelMessage } from '@jupyterlab/services';
import { makeServerSettings } from '../main/kernel/jupyter-server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { trustFolder } from '../main/trust';
import { connectContract } from './contract-client';
import { interleaved, median, report, runWhenMain } from './support';

const NOTEBOOK = 'bench.ipynb';
/** A loop to step through for as long as the bench wants: each Step Over moves between its two lines. */
const LOOP = 'for i in range(10**9):\n    x = i\n';

/** The embedded server's URL and token, and its runtime folder (where the kernels' connection files are). */
async function findServer(dir: string): Promise<{ url: string; token: string; runtimeDir: string }> {
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /^jpserver-\d+\.json$/.test(entry.name)) {
      const info = JSON.parse(await fs.readFile(path.join(entry.parentPath, entry.name), 'utf8')) as {
        url: string;
        token: string;
      };
      return { ...info, runtimeDir: entry.parentPath };
    }
  }
  throw new Error('the embedded Jupyter server wrote no jpserver-*.json');
}

/** A second connection to the notebook's kernel, once the kernel runs (the notebook starts it on open). */
async function connectDirect(scratch: string, idle: Promise<unknown>): Promise<KernelConnection> {
  await idle;
  const server = await findServer(path.join(scratch, 'jupyter'));
  // ZMQ straight to the kernel, as Kiln's own connection: the baseline pays no relay Kiln does not pay.
  const settings = makeServerSettings(server.url, server.token, server.runtimeDir);
  const [model] = await KernelAPI.listRunning(settings);
  const kernel = new KernelConnection({ model, serverSettings: settings, username: 'bench', handleComms: false });
  await kernel.info;
  return kernel;
}

export async function benchDebuggerStep(options: { samples?: number } = {}): Promise<void> {
  const samples = Math.max(30, options.samples ?? 60);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-bench-debug-'));
  const root = path.join(scratch, 'workspace');
  await fs.mkdir(root, { recursive: true });
  await trustFolder(scratch, root);
  const services = await createServices({ root, dataDir: scratch, prefsStore: new MemoryStore() });
  const client = await connectContract(services, scratch);
  let direct: KernelConnection | null = null;
  try {
    const idle = client.next('notebook.kernelStatus', (p) => p.path === NOTEBOOK && p.kernel.status === 'idle');
    const document = await client.request('notebook.create', { path: NOTEBOOK });
    const cellId = document.cells[0].id;
    await client.request('notebook.editCell', { path: NOTEBOOK, cellId, source: LOOP });
    await client.request('debugger.setBreakpoints', { path: NOTEBOOK, cellId, lines: [2] });
    // The direct connection is made before the pause: a connection is ready only once the kernel answered its
    // kernel_info on shell, which a paused cell holds.
    const kernel = await connectDirect(scratch, idle);
    direct = kernel;
    const firstPause = client.next('debugger.state', (s) => s.status === 'paused');
    const run = client.request('debugger.debugCell', { path: NOTEBOOK, cellId });
    await firstPause;
    let seq = 1;
    const debugRequest = async (command: string, args: Record<string, unknown>) => {
      const future = kernel.requestDebug({ seq: seq++, type: 'request', command, arguments: args });
      const reply = await new Promise<KernelMessage.IDebugReplyMsg>((resolve) => (future.onReply = resolve));
      return reply.content as unknown as { success: boolean; body?: Record<string, unknown> };
    };
    const stopped = () =>
      new Promise<number>((resolve) => {
        const onIopub = (_: unknown, msg: KernelMessage.IIOPubMessage) => {
          const content = msg.content as { event?: string; body?: { threadId?: number } };
          if (msg.header.msg_type !== 'debug_event' || content.event !== 'stopped') return;
          kernel.iopubMessage.disconnect(onIopub);
          resolve(content.body!.threadId!);
        };
        kernel.iopubMessage.connect(onIopub);
      });
    const threads = await debugRequest('threads', {});
    const mainThread = (threads.body!.threads as { id: number; name: string }[]).find((t) => t.name === 'MainThread')!;

    const kilnOnce = async () => {
      const start = performance.now();
      const paused = client.next('debugger.state', (s) => s.status === 'paused' && s.frames.length > 0);
      await client.request('debugger.command', { path: NOTEBOOK, command: 'next' });
      await paused;
      return performance.now() - start;
    };
    const directOnce = async () => {
      // Kiln's debugger hears this step's events too: the next Kiln sample starts once it is paused again.
      const kilnSettled = client.next('debugger.state', (s) => s.status === 'paused' && s.frames.length > 0);
      const start = performance.now();
      const stop = stopped();
      const reply = await debugRequest('next', { threadId: mainThread.id });
      if (!reply.success) throw new Error('the direct next was refused');
      const threadId = await stop;
      const trace = await debugRequest('stackTrace', { threadId });
      if (!trace.success) throw new Error('the direct stackTrace was refused');
      const elapsed = performance.now() - start;
      await kilnSettled;
      return elapsed;
    };
    const { kiln, baseline } = await interleaved(kilnOnce, directOnce, samples);
    report(
      {
        name: `debugger step (Step Over to the paused state, median of ${samples})`,
        kiln: median(kiln),
        baseline: median(baseline),
        unit: 'ms',
      },
      { ratio: 1.3 },
    );
    await client.request('debugger.command', { path: NOTEBOOK, command: 'stop' });
    await run;
  } finally {
    direct?.dispose();
    await client.close();
    await services.dispose();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, benchDebuggerStep);
