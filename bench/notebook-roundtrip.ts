/**
 * Execution round trip of `1+1`: Kiln's full path (a WebSocket request as the renderer sends it -> router ->
 * NotebookService -> Jupyter server -> kernel -> notebook.output event back over the socket) against a direct jupyter_client BlockingKernelClient talking ZMQ to
 * the same kind of kernel, measured in the same run. Prints medians and their ratio.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { startWebHost } from '../main/hosts/web/server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { median } from './support';

export interface RoundTripResult {
  samples: number;
  kilnMedianMs: number;
  directMedianMs: number;
  /** kiln / direct; 1.0 means Kiln adds nothing. */
  ratio: number;
}

const PYTHON = '/usr/bin/python3';

const DIRECT_CLIENT = String.raw`
import json, statistics, sys, time
from jupyter_client.manager import start_new_kernel
n = int(sys.argv[1])
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
try:
    for _ in range(5):
        once()
    times = [once() for _ in range(n)]
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
print(json.dumps({"median": statistics.median(times)}))
`;

async function measureDirect(samples: number, scratch: string): Promise<number> {
  const env = {
    ...process.env,
    JUPYTER_CONFIG_DIR: path.join(scratch, 'config'),
    JUPYTER_DATA_DIR: path.join(scratch, 'data'),
    JUPYTER_RUNTIME_DIR: path.join(scratch, 'runtime'),
    IPYTHONDIR: path.join(scratch, 'ipython'),
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(PYTHON, ['-c', DIRECT_CLIENT, String(samples)], { env, cwd: scratch, timeout: 180_000 }, (err, out, errOut) => {
      if (err) reject(new Error(`direct jupyter_client run failed: ${err.message}\n${errOut}`));
      else resolve(out);
    });
  });
  const line = stdout.trim().split('\n').at(-1)!;
  return (JSON.parse(line) as { median: number }).median;
}

async function measureKiln(samples: number, scratch: string): Promise<number> {
  const root = path.join(scratch, 'workspace');
  await fs.mkdir(root, { recursive: true });
  // The full path a renderer takes: WebSocket request -> router -> NotebookService -> kernel -> output event.
  const services = await createServices({ root, dataDir: scratch, prefsStore: new MemoryStore() });
  const host = await startWebHost({ services, staticDir: scratch });
  const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`);
  await new Promise((resolve) => socket.once('open', resolve));
  let nextId = 1;
  const call = (channel: string, args: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      const onMessage = (data: WebSocket.RawData) => {
        const frame = JSON.parse(String(data)) as { id?: number; ok?: boolean; value?: unknown; error?: { message: string } };
        if (frame.id !== id) return;
        socket.off('message', onMessage);
        if (frame.ok) resolve(frame.value);
        else reject(new Error(frame.error?.message));
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, channel, args }));
    });
  try {
    await call('notebook.create', { path: 'bench.ipynb' });
    const { cell } = (await call('notebook.insertCell', { path: 'bench.ipynb', source: '1+1' })) as { cell: { id: string } };
    const once = async (): Promise<number> => {
      const start = performance.now();
      const arrived = new Promise<number>((resolve) => {
        const onMessage = (data: WebSocket.RawData) => {
          const frame = JSON.parse(String(data)) as { event?: string; payload?: { cellId: string; change: { kind: string; output?: { output_type: string } } } };
          const change = frame.payload?.change;
          if (frame.event === 'notebook.output' && frame.payload?.cellId === cell.id && change?.kind === 'append' && change.output?.output_type === 'execute_result') {
            socket.off('message', onMessage);
            resolve(performance.now() - start);
          }
        };
        socket.on('message', onMessage);
      });
      await call('notebook.runCell', { path: 'bench.ipynb', cellId: cell.id });
      return arrived;
    };
    for (let i = 0; i < 5; i++) await once();
    const times: number[] = [];
    for (let i = 0; i < samples; i++) times.push(await once());
    return median(times);
  } finally {
    socket.close();
    await host.close();
    await services.dispose();
  }
}

/** Measures both paths; prints and returns medians and the ratio. */
export async function benchNotebookRoundTrip(options: { samples?: number } = {}): Promise<RoundTripResult> {
  const samples = Math.max(50, options.samples ?? 60);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-bench-nb-'));
  try {
    const kilnMedianMs = await measureKiln(samples, scratch);
    const directMedianMs = await measureDirect(samples, scratch);
    const result = { samples, kilnMedianMs, directMedianMs, ratio: kilnMedianMs / directMedianMs };
    console.log(
      `notebook 1+1 round trip (median of ${samples}): Kiln ${kilnMedianMs.toFixed(2)} ms, ` +
        `jupyter_client ${directMedianMs.toFixed(2)} ms, ratio ${result.ratio.toFixed(2)}x`,
    );
    return result;
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchNotebookRoundTrip().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
