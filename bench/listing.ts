import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startWebHost } from '../main/hosts/web/server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { openContractSocket } from './contract-client';
import { median, report, sample, type BenchResult } from './support';

const ENTRIES = 10_000;
const RUNS = 30;
/** A listing's most, against fs.readdir. */
const TARGET_RATIO = 2;

/**
 * Lists a 10,000-entry folder through the full contract and through raw fs.readdir with file types,
 * samples interleaved. Kiln is timed from sending `workspace.list` on the WebSocket to its reply parsed
 * (main reads the folder and sorts it afresh every time: it keeps no order between listings), the
 * baseline from calling readdir to its entries. After the watcher's walk, as the operator browses.
 */
export async function runListingBench(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-list-'));
  const folder = path.join(root, 'big');
  await mkdir(folder);
  for (let i = 0; i < ENTRIES; i += 1000) {
    await Promise.all(Array.from({ length: 1000 }, (_, j) => writeFile(path.join(folder, `file-${i + j}.txt`), '')));
  }
  const services = await createServices({ root, dataDir: root, prefsStore: new MemoryStore() });
  await services.watching();
  const host = await startWebHost({ services, staticDir: root });
  const socket = await openContractSocket(host.port, host.token);
  let id = 0;
  const listOverContract = () =>
    new Promise<void>((resolve, reject) => {
      const mine = ++id;
      const onMessage = (data: WebSocket.RawData) => {
        const reply = JSON.parse(String(data)) as { id: number; ok: boolean; value: { names: string[] } };
        if (reply.id !== mine) return;
        socket.off('message', onMessage);
        if (!reply.ok || reply.value.names.length !== ENTRIES) reject(new Error('listing failed'));
        else resolve();
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id: mine, channel: 'workspace.list', args: { path: 'big' } }));
    });
  const rawReaddir = () => readdir(folder, { withFileTypes: true });

  await sample(3, listOverContract);
  await sample(3, rawReaddir);
  // Interleave so machine noise hits both sides alike.
  const kiln: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    kiln.push(...(await sample(1, listOverContract)));
    baseline.push(...(await sample(1, rawReaddir)));
  }
  socket.close();
  await host.close();
  await services.dispose();
  await rm(root, { recursive: true, force: true });
  const result = {
    name: `list ${ENTRIES} entries (contract over WebSocket vs fs.readdir), median of ${RUNS}`,
    kiln: median(kiln),
    baseline: median(baseline),
    unit: 'ms',
  };
  report(result, { ratio: TARGET_RATIO });
  return result;
}
