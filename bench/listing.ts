import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startWebHost } from '../main/hosts/web/server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { median, report, sample, type BenchResult } from './support';

const ENTRIES = 10_000;
const RUNS = 30;
/** More folders than main remembers orders of (4), so listing them in turn always sorts from scratch. */
const COLD_FOLDERS = 5;
/** The cold listing's most, against fs.readdir. */
const TARGET_RATIO = 2;

/**
 * Lists a 10,000-entry folder through the full contract (WebSocket host) and through raw fs.readdir,
 * samples interleaved, in three cases: a folder whose order main does not remember (the target), the
 * same folder again after one of its files was renamed, and again unchanged.
 */
export async function runListingBench(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-list-'));
  const folders = Array.from({ length: COLD_FOLDERS }, (_, f) => `big${f}`);
  for (const folder of folders) {
    await mkdir(path.join(root, folder));
    for (let i = 0; i < ENTRIES; i += 1000) {
      await Promise.all(
        Array.from({ length: 1000 }, (_, j) => writeFile(path.join(root, folder, `file-${i + j}.txt`), '')),
      );
    }
  }
  const services = await createServices({ root, dataDir: root, prefsStore: new MemoryStore() });
  const host = await startWebHost({ services, staticDir: root });
  const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`);
  await new Promise((resolve) => socket.once('open', resolve));
  let id = 0;
  const listOverContract = (folder: string) =>
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
      socket.send(JSON.stringify({ id: mine, channel: 'workspace.list', args: { path: folder } }));
    });
  const rawReaddir = () => readdir(path.join(root, folders[0]), { withFileTypes: true });
  let renamed = 0;
  const renameOne = () =>
    rename(
      path.join(root, folders[0], `file-${renamed}.txt`),
      path.join(root, folders[0], `file-${++renamed}0000.txt`),
    );

  await sample(3, () => listOverContract(folders[0]));
  await sample(3, rawReaddir);
  // Interleave so machine noise hits every side alike.
  const cold: number[] = [];
  const changed: number[] = [];
  const unchanged: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    cold.push(...(await sample(1, () => listOverContract(folders[1 + (i % (COLD_FOLDERS - 1))]))));
    await renameOne();
    changed.push(...(await sample(1, () => listOverContract(folders[0]))));
    unchanged.push(...(await sample(1, () => listOverContract(folders[0]))));
    baseline.push(...(await sample(1, rawReaddir)));
  }
  socket.close();
  await host.close();
  await services.dispose();
  await rm(root, { recursive: true, force: true });
  const result = {
    name: `list ${ENTRIES} entries, order not remembered (contract over WebSocket vs fs.readdir), median of ${RUNS}`,
    kiln: median(cold),
    baseline: median(baseline),
    unit: 'ms',
  };
  report(result, { ratio: TARGET_RATIO });
  report({ ...result, name: `list ${ENTRIES} entries again after one was renamed`, kiln: median(changed) });
  report({ ...result, name: `list ${ENTRIES} entries again unchanged`, kiln: median(unchanged) });
  return result;
}
