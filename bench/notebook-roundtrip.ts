/**
 * Execution round trip of `1+1`: Kiln's full path (a WebSocket request as the renderer sends it -> router ->
 * NotebookService -> the kernel of the embedded Jupyter server, over ZMQ -> notebook.output event back over the
 * socket) against a direct
 * jupyter_client BlockingKernelClient talking ZMQ to the same kind of kernel, in the same run with the two
 * sides' samples interleaved. Kiln is timed from sending `notebook.runCell` on the socket to reading the
 * `notebook.output` event that carries the execute_result; jupyter_client from `execute()` to reading the
 * execute_result from IOPub. Prints medians and their ratio (target ≤ 1.3x).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { trustFolder } from '../main/trust';
import { connectContract } from './contract-client';
import { median, report, runWhenMain } from './support';

export interface RoundTripResult {
  samples: number;
  kilnMedianMs: number;
  directMedianMs: number;
  /** kiln / direct; 1.0 means Kiln adds nothing. */
  ratio: number;
}

const PYTHON = '/usr/bin/python3';
const TARGET_RATIO = 1.3;

/** A direct jupyter_client that runs `1+1` once per line it reads, answering with the milliseconds it took. */
const DIRECT_CLIENT = String.raw`
import json, os, sys, time
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="python3")
def once():
    start = time.perf_counter()
    msg_id = kc.execute("1+1")
    elapsed = None
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result" and elapsed is None:
            elapsed = (time.perf_counter() - start) * 1000
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    kc.get_shell_msg(timeout=30)
    return elapsed
print("ready", flush=True)
try:
    for line in sys.stdin:
        if line.strip() != "run":
            break
        print(json.dumps(once()), flush=True)
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    # Skips interpreter teardown, where jupyter_client's destructors print noise.
    os._exit(0)
`;

interface Sampler {
  /** One `1+1` round trip, in ms. */
  once(): Promise<number>;
  close(): Promise<void>;
}

async function startDirect(scratch: string): Promise<Sampler> {
  const env = {
    ...process.env,
    JUPYTER_CONFIG_DIR: path.join(scratch, 'config'),
    JUPYTER_DATA_DIR: path.join(scratch, 'data'),
    JUPYTER_RUNTIME_DIR: path.join(scratch, 'runtime'),
    IPYTHONDIR: path.join(scratch, 'ipython'),
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  };
  const child = spawn(PYTHON, ['-c', DIRECT_CLIENT], { env, cwd: scratch, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let waiting: ((line: string) => void) | null = null;
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (waiting) {
        const resolve = waiting;
        waiting = null;
        resolve(line);
      } else lines.push(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const nextLine = () =>
    lines.length
      ? Promise.resolve(lines.shift()!)
      : new Promise<string>((resolve, reject) => {
          waiting = resolve;
          void exited.then(() => reject(new Error('the direct jupyter_client exited')));
        });
  if ((await nextLine()) !== 'ready') throw new Error('the direct jupyter_client did not start');
  return {
    async once() {
      child.stdin.write('run\n');
      return JSON.parse(await nextLine()) as number;
    },
    async close() {
      child.stdin.end('quit\n');
      await exited;
    },
  };
}

async function startKiln(scratch: string): Promise<Sampler> {
  const root = path.join(scratch, 'workspace');
  await fs.mkdir(root, { recursive: true });
  // The full path a renderer takes: WebSocket request -> router -> NotebookService -> kernel -> output event.
  // Kernels start only in a trusted folder (the bench's own).
  await trustFolder(scratch, root);
  const services = await createServices({ root, dataDir: scratch, prefsStore: new MemoryStore() });
  const client = await connectContract(services, scratch);
  const close = async () => {
    await client.close();
    await services.dispose();
  };
  try {
    await client.request('notebook.create', { path: 'bench.ipynb' });
    const { cell } = await client.request('notebook.insertCell', { path: 'bench.ipynb', source: '1+1' });
    return {
      async once() {
        const start = performance.now();
        const arrived = client
          .next(
            'notebook.output',
            ({ cellId, change }) =>
              cellId === cell.id && change.kind === 'append' && change.output.output_type === 'execute_result',
          )
          .then(() => performance.now() - start);
        await client.request('notebook.runCell', { path: 'bench.ipynb', cellId: cell.id });
        return arrived;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Measures both paths; prints and returns medians and the ratio. */
export async function benchNotebookRoundTrip(options: { samples?: number } = {}): Promise<RoundTripResult> {
  const samples = Math.max(50, options.samples ?? 60);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-bench-nb-'));
  const kiln = await startKiln(scratch);
  const direct = await startDirect(scratch).catch(async (err: unknown) => {
    await kiln.close();
    throw err;
  });
  try {
    // Both warm up, then their samples alternate so machine noise hits both alike.
    for (let i = 0; i < 5; i++) {
      await kiln.once();
      await direct.once();
    }
    const kilnTimes: number[] = [];
    const directTimes: number[] = [];
    for (let i = 0; i < samples; i++) {
      kilnTimes.push(await kiln.once());
      directTimes.push(await direct.once());
    }
    const kilnMedianMs = median(kilnTimes);
    const directMedianMs = median(directTimes);
    const result = { samples, kilnMedianMs, directMedianMs, ratio: kilnMedianMs / directMedianMs };
    report(
      {
        name: `notebook 1+1 round trip, run request sent to execute_result event (Kiln over WebSocket vs jupyter_client), median of ${samples} interleaved`,
        kiln: kilnMedianMs,
        baseline: directMedianMs,
        unit: 'ms',
      },
      { ratio: TARGET_RATIO },
    );
    return result;
  } finally {
    await direct.close();
    await kiln.close();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, benchNotebookRoundTrip);
