/**
 * Edit panel benchmark: from the end of a `propose_file` stream as main receives it (the model's HTTP
 * stream read to its end by main's provider, which runs in this process) to the proposal's diff painted
 * in the centre, for a 1 KB and a 256 KB file. So main's parsing, line counting and the socket hop count.
 * Baseline, in the same run and browser: the same two texts opened in a bare Monaco diff editor page
 * with no app around it (built here with Vite from `bare/`, served from loopback, no CDN).
 *
 * Needs the built app (`npm run build`). Run alone: `node --import tsx bench/edit-diff/index.ts`.
 */
import type { Page } from '@playwright/test';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';
import { LARGE_FILE_BYTES } from '../../shared/contract';
import { ModelServer, reply } from '../../test-support/model-server';
import { NAME_SHIM, VIEWPORT, serveLoopback, startKilnInBrowser } from '../browser';
import { median, report, type BenchResult } from '../support';
import { waitForDiffPaint } from './paint';

const RUNS = 11;
const WARMUP = 2;

/** A Python-looking file of exactly `bytes` bytes, and a proposal that changes a few lines of it. */
export function benchTexts(bytes: number): { original: string; proposal: string } {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `value_${i} = compute(${i}, scale=${i % 7})  # step ${i}\n`;
    lines.push(line);
    size += line.length;
  }
  let original = lines.join('').slice(0, bytes - 1);
  original += '\n';
  const all = original.split('\n');
  const changed = all.map((line, i) =>
    i % Math.max(1, Math.floor(all.length / 6)) === 1 ? line.replace('compute', 'evaluate') : line,
  );
  changed.splice(3, 0, 'import math  # added by the proposal');
  return { original, proposal: changed.join('\n') };
}

/** Builds the bare diff page once (Vite, programmatically) and serves it on loopback. */
export async function serveBarePage(): Promise<{ url: string; close(): Promise<void> }> {
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-bare-diff-'));
  await build({
    configFile: false,
    root: path.join(import.meta.dirname, 'bare'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 10_000 },
    worker: { format: 'es' },
  });
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.ttf': 'font/ttf',
  };
  const server = await serveLoopback((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = path.join(outDir, rel === '/' ? 'index.html' : rel);
    if (!file.startsWith(outDir)) return void res.writeHead(403).end();
    readFile(file).then(
      (body) =>
        res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  return {
    url: server.url,
    async close() {
      await server.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

/**
 * Records when main reads each model stream to its end: main (the services) runs in this process and its
 * provider calls `globalThis.fetch` per request. Wall-clock milliseconds, comparable with the page's
 * `performance.timeOrigin + performance.now()`.
 */
function recordStreamEnds(modelUrl: string): { last(): number | undefined; clear(): void; restore(): void } {
  const original = globalThis.fetch;
  let ends: number[] = [];
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(modelUrl) || !response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          ends.push(performance.timeOrigin + performance.now());
          controller.close();
        } else {
          controller.enqueue(value);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return {
    last: () => ends.at(-1),
    clear: () => void (ends = []),
    restore: () => void (globalThis.fetch = original),
  };
}

/** Kiln: clear the session, send, and time main's end of the stream → diff painted (the paint measured inside the page). */
async function kilnSample(
  page: Page,
  model: ModelServer,
  streams: ReturnType<typeof recordStreamEnds>,
  proposal: string,
): Promise<number> {
  // Only the front page gets full-rate frames; each side is timed in front.
  await page.bringToFront();
  const panel = page.getByRole('complementary', { name: 'Edit assistant' });
  await panel.getByRole('button', { name: 'Clear' }).click();
  await page.locator('.proposal-review').waitFor({ state: 'detached' });
  await page.getByRole('log', { name: 'Transcript' }).getByText('Ask for a change').waitFor();
  model.enqueue(reply.propose(proposal));
  await page.evaluate(`${NAME_SHIM}; globalThis.__waitForDiffPaint = ${waitForDiffPaint.toString()};`);
  await page.evaluate(() => {
    const w = window as unknown as { __waitForDiffPaint: typeof waitForDiffPaint; __benchResult: Promise<number> };
    w.__benchResult = w.__waitForDiffPaint(document.body).then((painted) => performance.timeOrigin + painted);
  });
  streams.clear();
  await panel.getByRole('textbox', { name: 'Message' }).fill('Rename compute to evaluate in a few places');
  await panel.getByRole('button', { name: 'Send', exact: true }).click();
  const paintedAt = await page.evaluate(() => (window as unknown as { __benchResult: Promise<number> }).__benchResult);
  const streamEnd = streams.last();
  if (streamEnd === undefined) throw new Error('main never read a model stream to its end');
  return paintedAt - streamEnd;
}

async function bareSample(page: Page, original: string, proposal: string): Promise<number> {
  await page.bringToFront();
  return page.evaluate(([o, m]) => window.runBareDiff(o, m, 'python'), [original, proposal] as const);
}

export async function runEditDiffBench(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-edit-'));
  const model = await ModelServer.start();
  const sizes = [
    { label: '1 KB', file: 'small.py', bytes: 1024 },
    { label: '256 KB', file: 'large.py', bytes: LARGE_FILE_BYTES },
  ];
  const texts = new Map(sizes.map((s) => [s.file, benchTexts(s.bytes)]));
  for (const s of sizes) await writeFile(path.join(root, s.file), texts.get(s.file)!.original);
  await mkdir(path.join(root, '.kiln'));
  await writeFile(
    path.join(root, '.kiln/config.yaml'),
    `models:\n  bench:\n    provider: openai-compatible\n    base_url: ${model.url}\n    model: bench-model\nfile_editing:\n  model: bench\n`,
  );

  const bare = await serveBarePage();
  const streams = recordStreamEnds(model.url);
  const kiln = await startKilnInBrowser(root);
  const { browser } = kiln;
  const results: BenchResult[] = [];
  try {
    const kilnPage = await browser.newPage({ viewport: VIEWPORT });
    await kilnPage.goto(kiln.url);
    await kilnPage.getByRole('tree', { name: 'Files' }).waitFor();
    const barePage = await browser.newPage({ viewport: VIEWPORT });
    await barePage.goto(bare.url);
    await barePage.waitForFunction(() => typeof window.runBareDiff === 'function');

    for (const size of sizes) {
      const { original, proposal } = texts.get(size.file)!;
      await kilnPage
        .getByRole('tree', { name: 'Files' })
        .getByRole('treeitem', { name: size.file, exact: true })
        .click();
      await kilnPage.getByRole('tab', { name: size.file, exact: true }).waitFor();
      await kilnPage
        .getByRole('complementary', { name: 'Edit assistant' })
        .getByRole('textbox', { name: 'Message' })
        .waitFor({ state: 'visible' });
      const kiln: number[] = [];
      const baseline: number[] = [];
      // Interleaved, so machine noise hits both sides alike; the first runs warm caches and JITs.
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const k = await kilnSample(kilnPage, model, streams, proposal);
        const b = await bareSample(barePage, original, proposal);
        if (i >= WARMUP) {
          kiln.push(k);
          baseline.push(b);
        }
      }
      const result: BenchResult = {
        name: `edit panel: end of the propose_file stream in main → diff painted, ${size.label} file (Kiln vs bare Monaco diff page), median of ${RUNS}`,
        kiln: median(kiln),
        baseline: median(baseline),
        unit: 'ms',
      };
      report(result);
      results.push(result);
    }
  } finally {
    streams.restore();
    await kiln.close();
    await bare.close();
    await model.close();
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEditDiffBench();
  process.exit(0);
}
