import fuzzysort from 'fuzzysort';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { connectContract } from './contract-client';
import { median, report, type BenchResult } from './support';

const FILES = 200_000;
const PER_DIR = 500;
const LIMIT = 100;
const QUERIES = ['mod', 'pkg12util', 'readme', 'tst_3', 'utilsviewsrow', 'hndlrs9', 'compnt42', 'handlers'];
const ROUNDS = 5;

/**
 * Quick Open on a 200,000-file workspace: a query typed to its results over the WebSocket contract,
 * against the same matcher (fuzzysort, same limit) over an in-memory array of the prepared paths.
 */
export async function runQuickOpenBench(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-qo-'));
  try {
    return await measure(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function measure(root: string): Promise<BenchResult> {
  const paths: string[] = [];
  const words = ['src', 'views', 'components', 'utils', 'handlers', 'tests', 'models', 'pkg'];
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const dir = `${words[d % words.length]}/${words[(d * 3) % words.length]}${d}/mod${d % 37}`;
    await mkdir(path.join(root, dir), { recursive: true });
    const batch: Promise<void>[] = [];
    for (let f = 0; f < PER_DIR; f++) {
      const rel = `${dir}/${['row', 'util', 'compnt', 'tst', 'readme'][f % 5]}_${f}.${['py', 'ts', 'md'][f % 3]}`;
      paths.push(rel);
      batch.push(writeFile(path.join(root, rel), ''));
    }
    await Promise.all(batch);
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-qo-data-'));
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore() });
  const client = await connectContract(services, root);
  // Wait for the background scan.
  const indexed = client.next('quickOpen.indexed');
  if ((await client.request('quickOpen.search', { query: '', limit: 1 })).indexing) await indexed;
  const prepared = paths.map((p) => fuzzysort.prepare(p));
  const throughKiln = async (query: string) => {
    const start = performance.now();
    const result = await client.request('quickOpen.search', { query, limit: LIMIT });
    if (!result.matches.length) throw new Error(`no matches for ${query}`);
    return performance.now() - start;
  };
  const direct = (query: string) => {
    const start = performance.now();
    fuzzysort.go(query, prepared, { limit: LIMIT });
    return performance.now() - start;
  };
  for (const q of QUERIES) {
    await throughKiln(q);
    direct(q);
  }
  const kiln: number[] = [];
  const baseline: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of QUERIES) {
      kiln.push(await throughKiln(q));
      baseline.push(direct(q));
    }
  }
  await client.close();
  await services.dispose();
  await rm(dataDir, { recursive: true, force: true });
  const result = {
    name: `quick-open: ${FILES.toLocaleString('en-US')} files, query to first results (contract over WebSocket vs fuzzysort over an in-memory array), median of ${kiln.length}`,
    kiln: median(kiln),
    baseline: median(baseline),
    unit: 'ms',
  };
  report(result);
  return result;
}
