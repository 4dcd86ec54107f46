/**
 * Notebook frame-time benchmark: the window's frame time (requestAnimationFrame deltas) while a notebook cell
 * streams 100,000 lines through Kiln's full path (kernel → main → WebSocket → renderer → output area).
 *
 * Baselines, in the same run and the same Chromium:
 * - a bare page that appends the same 100,000 lines to a <pre>, in as many chunks and over as long as the
 *   Kiln run took (what a naive output area does), and
 * - the same Kiln page idle (the floor: what a frame costs when nothing happens).
 * Reported: the 95th-percentile frame time of each, and the ratios.
 *
 * Needs the built app (`npm run build`). Run alone: `node --import tsx bench/notebook-frames/index.ts`.
 */
import { chromium, type Page } from '@playwright/test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/support/chromium';
import { startWebHost } from '../../main/hosts/web/server';
import { MemoryStore } from '../../main/prefs';
import { createServices } from '../../main/services';
import { median, report, type BenchResult } from '../support';

const LINES = 100_000;
const RUNS = 5;
const IDLE_MS = 2000;
const REPO = path.resolve(import.meta.dirname, '../..');
const VIEWPORT = { width: 1400, height: 900 };

export interface FrameStats {
  frames: number;
  meanMs: number;
  p95Ms: number;
  maxMs: number;
  /** Frames longer than 50 ms (what the eye notices as a stutter). */
  longFrames: number;
  durationMs: number;
}

function stats(deltas: number[], durationMs: number): FrameStats {
  const sorted = [...deltas].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    frames: deltas.length,
    meanMs: deltas.reduce((a, b) => a + b, 0) / Math.max(1, deltas.length),
    p95Ms: pick(0.95),
    maxMs: sorted[sorted.length - 1] ?? 0,
    longFrames: deltas.filter((d) => d > 50).length,
    durationMs,
  };
}

function describe(label: string, s: FrameStats): string {
  return `  ${label}: ${s.frames} frames in ${s.durationMs.toFixed(0)} ms, mean ${s.meanMs.toFixed(1)} ms, p95 ${s.p95Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms, ${s.longFrames} frames > 50 ms`;
}

/** tsx keeps function names with a `__name` helper that a page doesn't have. */
const NAME_SHIM = 'globalThis.__name = globalThis.__name || ((f) => f)';

/** Starts recording rAF deltas in the page. */
async function startRecording(page: Page): Promise<void> {
  await page.evaluate(NAME_SHIM);
  await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __recording: boolean; __start: number };
    w.__frames = [];
    w.__recording = true;
    w.__start = performance.now();
    let last = performance.now();
    const tick = (t: number) => {
      w.__frames.push(t - last);
      last = t;
      if (w.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
  });
}

async function stopRecording(page: Page): Promise<FrameStats> {
  const { frames, duration } = await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __recording: boolean; __start: number };
    w.__recording = false;
    return { frames: w.__frames, duration: performance.now() - w.__start };
  });
  return stats(frames, duration);
}

/** One Kiln run: Run cell, frames recorded until the cell is idle with its last line shown. */
async function kilnRun(page: Page): Promise<FrameStats> {
  const cell = page.getByRole('region', { name: 'stream.ipynb' }).getByRole('group', { name: 'Cell 1', exact: true });
  const prompt = cell.locator('.nb-prompt');
  const before = await prompt.innerText();
  await startRecording(page);
  await cell.getByRole('button', { name: 'Run cell', exact: true }).click();
  await page.waitForFunction(
    ([previous, last]) => {
      const group = document.querySelector('[role="group"][aria-label="Cell 1"]');
      const text = group?.querySelector('.nb-prompt')?.textContent ?? '';
      const output = group?.querySelector('[role="region"][aria-label="Output"]')?.textContent ?? '';
      return /^\[\d+\]:$/.test(text) && text !== previous && output.includes(last);
    },
    [before, `line ${LINES - 1}`] as const,
    { polling: 100, timeout: 180_000 },
  );
  return stopRecording(page);
}

/** The baseline: the same lines appended to a bare <pre>, chunk by chunk, spread over `durationMs`. */
async function bareRun(page: Page, durationMs: number, chunks: number): Promise<FrameStats> {
  await page.setContent('<!doctype html><html><body style="margin:0;font:13px monospace"><pre id="out" style="white-space:pre-wrap"></pre></body></html>');
  await startRecording(page);
  await page.evaluate(
    ([lines, duration, count]) =>
      new Promise<void>((resolve) => {
        const out = document.getElementById('out')!;
        const perChunk = Math.ceil(lines / count);
        const interval = duration / count;
        let next = 0;
        const step = () => {
          const end = Math.min(lines, next + perChunk);
          let text = '';
          for (let i = next; i < end; i++) text += `line ${i}\n`;
          out.appendChild(document.createTextNode(text));
          next = end;
          if (next < lines) setTimeout(step, interval);
          // Done once the last chunk has been painted.
          else requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
        };
        step();
      }),
    [LINES, durationMs, chunks] as const,
  );
  return stopRecording(page);
}

export async function runNotebookFramesBench(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-frames-'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-frames-data-'));
  const notebook = {
    cells: [{ cell_type: 'code', execution_count: null, id: 'stream', metadata: {}, outputs: [], source: `for i in range(${LINES}):\n    print("line", i)` }],
    metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  await writeFile(path.join(root, 'stream.ipynb'), `${JSON.stringify(notebook, null, 1)}\n`);

  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore() });
  const host = await startWebHost({ services, staticDir: path.join(REPO, 'out/renderer') });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const results: BenchResult[] = [];
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(host.url);
    await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'stream.ipynb' }).click();
    const nb = page.getByRole('region', { name: 'stream.ipynb' });
    await nb.getByRole('status').filter({ hasText: /^idle$/ }).waitFor({ timeout: 120_000 });
    const bare = await browser.newPage({ viewport: VIEWPORT });

    // Idle floor first, then interleaved Kiln / bare runs (the first Kiln run also warms the kernel and JIT).
    await startRecording(page);
    await page.waitForTimeout(IDLE_MS);
    const idle = await stopRecording(page);
    await kilnRun(page);

    const kiln: FrameStats[] = [];
    const baseline: FrameStats[] = [];
    for (let i = 0; i < RUNS; i++) {
      const k = await kilnRun(page);
      kiln.push(k);
      // Kiln's output area repaints at most once per frame, so the bare page gets one chunk per frame of the Kiln run.
      baseline.push(await bareRun(bare, k.durationMs, Math.max(1, k.frames)));
    }

    console.log(`notebook frames while a cell streams ${LINES.toLocaleString('en-US')} lines (${RUNS} runs):`);
    for (const [i, k] of kiln.entries()) {
      console.log(describe(`kiln run ${i + 1}`, k));
      console.log(describe(`bare <pre> run ${i + 1}`, baseline[i]));
    }
    console.log(describe('kiln idle', idle));

    const vsBare: BenchResult = {
      name: `notebook: p95 frame time while a cell streams ${LINES.toLocaleString('en-US')} lines (Kiln vs a bare page appending them to a <pre>), median of ${RUNS}`,
      kiln: median(kiln.map((s) => s.p95Ms)),
      baseline: median(baseline.map((s) => s.p95Ms)),
      unit: 'ms',
    };
    const vsIdle: BenchResult = {
      name: `notebook: p95 frame time while a cell streams ${LINES.toLocaleString('en-US')} lines (Kiln vs the same page idle)`,
      kiln: vsBare.kiln,
      baseline: idle.p95Ms,
      unit: 'ms',
    };
    report(vsBare);
    report(vsIdle);
    results.push(vsBare, vsIdle);
  } finally {
    await browser.close();
    await host.close();
    await services.dispose();
    await rm(root, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runNotebookFramesBench();
  process.exit(0);
}
