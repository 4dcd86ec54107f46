import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startWebHost } from '../main/hosts/web/server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { median, report, sample, type BenchResult } from './support';

const ENTRIES = 10_000;
const RUNS = 30;

/** Lists a 10,000-entry folder through the full contract (WebSocket host) and through raw fs.readdir. */
export async function runListingBench(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-list-'));
  const big = path.join(root, 'big');
  await mkdir(big);
  for (let i = 0; i < ENTRIES; i++) await writeFile(path.join(big, `file-${i}.txt`), '');
  const services = await createServices({ root, dataDir: root, prefsStore: new MemoryStore() });
  const host = await startWebHost({ services, staticDir: root });
  const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`);
  await new Promise((resolve) => socket.once('open', resolve));
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
  const rawReaddir = () => readdir(big, { withFileTypes: true });

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
  const result = { name: `list ${ENTRIES} entries (contract over WebSocket vs fs.readdir), median of ${RUNS}`, kiln: median(kiln), baseline: median(baseline), unit: 'ms' };
  report(result);
  const ratio = result.kiln / result.baseline;
  console.log(`list ${ENTRIES} entries: ratio ${ratio.toFixed(2)}x against a target of 3x: ${ratio <= 3 ? 'meets target' : 'MISSES target'}`);
  return result;
}
