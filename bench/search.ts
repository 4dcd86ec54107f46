import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../main/process';
import { MemoryStore } from '../main/prefs';
import { parseQuery, ripgrepArgs } from '../main/search';
import { createServices } from '../main/services';
import { unpackSearchFile } from '../shared/search-results';
import { connectContract } from './contract-client';
import { median, report, type BenchResult } from './support';

const TOTAL_BYTES = 200 * 1024 * 1024;
const FILE_BYTES = 100 * 1024;
const RUNS = 15;
/** Every 97th line has a `needle_`; every 997th a `rare_`: a typical search, and one heavy with results. */
const PATTERNS = [
  { pattern: 'rare_[0-9]+', target: null },
  { pattern: 'needle_[0-9]+', target: { ratio: 1.3 } },
];

/**
 * Find in Files over a 200 MB tree: a search through Kiln (request, streamed result events, done event
 * over the WebSocket) against running `rg` directly with the same arguments, reading all its output.
 * Kiln is timed from sending `search.start` on the socket to reading `search.done`, every result event
 * read and unpacked into match objects on the way as the Search view does; rg from spawning it to its exit
 * with all its output read. Target on the frequent pattern: ≤ 1.3x. Kiln lists the notebooks a search covers
 * in a second walk and keeps that list while the change feed vouches for it (search/kept-notebook-lists.ts), as
 * it does for searches the operator types one after another; the frequent pattern is also reported with the
 * list walked again for every search (a folder created, and its feed event read, before each one, untimed).
 */
export async function runSearchBench(): Promise<BenchResult[]> {
  const rg = await findExecutable('rg', process.env.PATH);
  if (!rg) {
    console.log('search: skipped, no rg on PATH (npm run setup installs ripgrep)');
    return [];
  }
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-search-'));
  const words = 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega'.split(' ');
  let line = '';
  for (let i = 0; i < 12; i++) line += `${words[(i * 7) % words.length]} `;
  const files = TOTAL_BYTES / FILE_BYTES;
  for (let f = 0; f < files; f++) {
    const lines: string[] = [];
    let size = 0;
    for (let l = 0; size < FILE_BYTES; l++) {
      const text = `${line}${l % 97 === 0 ? `needle_${f}_${l}` : l}${l % 997 === 0 ? ` rare_${l}` : ''}`;
      lines.push(text);
      size += text.length + 1;
    }
    const dir = path.join(root, `pkg${f % 40}`, `mod${f % 7}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, `file${f}.txt`), `${lines.join('\n')}\n`);
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-search-data-'));
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore() });
  // As the operator searches: after the watcher's walk, which start-up does not wait for.
  await services.watching();
  const client = await connectContract(services, root);
  let n = 0;
  let expected = -1;
  const throughKiln = async (query: { pattern: string; isRegex: boolean }) => {
    const searchId = `bench-${++n}`;
    const done = client.next('search.done', (d) => d.searchId === searchId);
    let received = 0;
    const stopReading = client.on('search.results', (batch) => {
      if (batch.searchId !== searchId) return;
      for (const file of batch.files) received += unpackSearchFile(file).matches.length;
    });
    const start = performance.now();
    await client.request('search.start', { ...query, searchId, maxMatches: 100_000 });
    const result = await done;
    const elapsed = performance.now() - start;
    stopReading();
    if (result.error || result.cancelled) throw new Error(`search failed: ${result.error?.message}`);
    if (received !== result.matches) throw new Error(`kiln reported ${result.matches} matches, sent ${received}`);
    if (expected >= 0 && result.matches !== expected) throw new Error(`kiln found ${result.matches}, rg ${expected}`);
    return elapsed;
  };
  const direct = (query: { pattern: string; isRegex: boolean }) =>
    new Promise<number>((resolve, reject) => {
      const start = performance.now();
      const child = spawn(rg, ripgrepArgs({ query: parseQuery(query) }), {
        cwd: root,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      // Reading all of its output, counting matches (ripgrep marks each one) to check Kiln found as many.
      let matches = 0;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        for (let at = chunk.indexOf('\u0001'); at >= 0; at = chunk.indexOf('\u0001', at + 1)) matches++;
      });
      child.once('error', reject);
      child.once('close', () => {
        expected = matches;
        resolve(performance.now() - start);
      });
    });
  const results: BenchResult[] = [];
  for (const { pattern, target } of PATTERNS) {
    const query = { pattern, isRegex: true };
    expected = -1;
    // Warm the page cache for both.
    await direct(query);
    await throughKiln(query);
    const kiln: number[] = [];
    const walkedAgain: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      baseline.push(await direct(query));
      kiln.push(await throughKiln(query));
      if (!target) continue;
      const folder = `new-folder-${pattern.length}-${i}`;
      const reported = client.next('fs.change', (c) => c.type === 'created' && c.path === folder);
      await mkdir(path.join(root, folder));
      await reported;
      walkedAgain.push(await throughKiln(query));
    }
    const result = {
      name: `search: 200 MB in ${files} files, /${pattern}/ with ${expected} matches (Kiln over WebSocket vs rg directly, same arguments), median of ${RUNS}`,
      kiln: median(kiln),
      baseline: median(baseline),
      unit: 'ms',
    };
    report(result, target);
    results.push(result);
    if (!walkedAgain.length) continue;
    const walked = { ...result, name: `${result.name}, the notebook list walked again`, kiln: median(walkedAgain) };
    report(walked);
    results.push(walked);
  }
  await client.close();
  await services.dispose();
  await rm(root, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
  return results;
}
