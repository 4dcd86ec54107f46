/**
 * Notebook work-per-frame benchmark: the main thread's long tasks (PerformanceObserver 'longtask': work of
 * 50 ms or more that the page could not split, i.e. frames it dropped) while a notebook cell streams
 * 100,000 lines through Kiln's full path (kernel → main → WebSocket → renderer → output area).
 *
 * Kiln's output area paints the stream's first 200 and last 300 lines with a note of the lines between.
 * Timed from the click on Run to the cell idle with its last line shown.
 *
 * Baselines, in the same run and the same Chromium:
 * - a bare page that paints what Kiln paints: the same 100,000 lines arrive 1,000 per animation frame, as
 *   fast as it can (its own pace and chunking, nothing taken from Kiln's run), kept as one string, and each
 *   frame shows its first 200 lines, the note, and its last 300 lines; timed until the last chunk is painted;
 * - the same Kiln page idle (the floor).
 * Reported: long-task time of each (median over runs) and the ratio; gaps between animation frames are not
 * used, since they bottom out at 16.7 ms and would read a slow page as 1.0x.
 *
 * Needs the built app (`npm run build`). Run alone: `node --import tsx bench/notebook-frames/index.ts`.
 */
import { chromium, type Page } from '@playwright/test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/support/chromium';
import { startWebHost } from '../../main/hosts/web/server';
import { MemoryStore } from '../../main/prefs';
import { createServices } from '../../main/services';
import { trustFolder } from '../../main/trust';
import { describeLongTasks, startLongTasks, stopLongTasks, VIEWPORT, type LongTasks } from '../browser';
import { median, report, type BenchResult, runWhenMain } from '../support';

const LINES = 100_000;
const LINES_PER_FRAME = 1_000;
/** What Kiln's output area shows of a long stream (renderer/src/notebook/Outputs.tsx). */
const HEAD_LINES = 200;
const TAIL_LINES = 300;
const RUNS = 5;
const IDLE_MS = 2000;
const REPO = path.resolve(import.meta.dirname, '../..');

/** One Kiln run: Run cell, long tasks recorded until the cell is idle with its last line shown. */
async function kilnRun(page: Page): Promise<LongTasks> {
  const cell = page.getByRole('region', { name: 'stream.ipynb' }).getByRole('group', { name: 'Cell 1', exact: true });
  const prompt = cell.locator('.nb-prompt');
  const before = await prompt.innerText();
  await startLongTasks(page);
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
  return stopLongTasks(page);
}

/**
 * The baseline: the same lines arriving LINES_PER_FRAME per animation frame, the output kept as one string
 * and painted as Kiln paints it: its first HEAD_LINES lines, a note of how many are hidden, its last
 * TAIL_LINES lines. Done once the last chunk has been painted.
 */
async function bareRun(page: Page): Promise<LongTasks> {
  await page.setContent(
    '<!doctype html><html><body style="margin:0;font:13px monospace"><pre id="out" style="white-space:pre-wrap"><span id="head"></span><span id="note"></span><span id="tail"></span></pre></body></html>',
  );
  await startLongTasks(page);
  await page.evaluate(`new Promise((resolve) => {
    const head = document.getElementById('head');
    const note = document.getElementById('note');
    const tail = document.getElementById('tail');
    let text = '';
    let next = 0;
    const step = () => {
      const end = Math.min(${LINES}, next + ${LINES_PER_FRAME});
      for (let i = next; i < end; i++) text += 'line ' + i + '\\n';
      next = end;
      if (next <= ${HEAD_LINES + TAIL_LINES}) {
        head.textContent = text;
      } else {
        let headEnd = 0;
        for (let n = 0; n < ${HEAD_LINES}; n++) headEnd = text.indexOf('\\n', headEnd) + 1;
        let tailStart = text.length - 1;
        for (let n = 0; n < ${TAIL_LINES}; n++) tailStart = text.lastIndexOf('\\n', tailStart - 1);
        head.textContent = text.slice(0, headEnd);
        note.textContent = '… ' + (next - ${HEAD_LINES + TAIL_LINES}).toLocaleString('en-US') + ' more lines (' + next.toLocaleString('en-US') + ' in all)';
        tail.textContent = text.slice(tailStart + 1);
      }
      requestAnimationFrame(next < ${LINES} ? step : () => requestAnimationFrame(() => resolve()));
    };
    requestAnimationFrame(step);
  })`);
  return stopLongTasks(page);
}

export async function runNotebookFramesBench(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-frames-'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-frames-data-'));
  const notebook = {
    cells: [
      {
        cell_type: 'code',
        execution_count: null,
        id: 'stream',
        metadata: {},
        outputs: [],
        source: `for i in range(${LINES}):\n    print("line", i)`,
      },
    ],
    metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  await writeFile(path.join(root, 'stream.ipynb'), `${JSON.stringify(notebook, null, 1)}\n`);

  // Kernels start only in a trusted folder (the bench's own).
  await trustFolder(dataDir, root);
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore() });
  const host = await startWebHost({ services, staticDir: path.join(REPO, 'out/renderer') });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const results: BenchResult[] = [];
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(host.url);
    await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'stream.ipynb' }).click();
    const nb = page.getByRole('region', { name: 'stream.ipynb' });
    await nb
      .getByRole('status')
      .filter({ hasText: /^idle$/ })
      .waitFor({ timeout: 120_000 });
    const bare = await browser.newPage({ viewport: VIEWPORT });

    // Idle floor first, then interleaved Kiln / bare runs (the first Kiln run also warms the kernel and JIT).
    await startLongTasks(page);
    await page.waitForTimeout(IDLE_MS);
    const idle = await stopLongTasks(page);
    await kilnRun(page);

    const kiln: LongTasks[] = [];
    const baseline: LongTasks[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.bringToFront();
      kiln.push(await kilnRun(page));
      await bare.bringToFront();
      baseline.push(await bareRun(bare));
    }

    console.log(
      `notebook main-thread long tasks while a cell streams ${LINES.toLocaleString('en-US')} lines (${RUNS} runs):`,
    );
    for (const [i, k] of kiln.entries()) {
      console.log(describeLongTasks(`kiln run ${i + 1}`, k));
      console.log(describeLongTasks(`bare head-and-tail page run ${i + 1}`, baseline[i]));
    }
    console.log(describeLongTasks('kiln idle', idle));

    const vsBare: BenchResult = {
      name: `notebook: long-task time while a cell streams ${LINES.toLocaleString('en-US')} lines (Kiln vs a bare page painting the same head and tail), median of ${RUNS}`,
      kiln: median(kiln.map((t) => t.totalMs)),
      baseline: median(baseline.map((t) => t.totalMs)),
      unit: 'ms',
    };
    const longest: BenchResult = {
      name: `notebook: longest task while a cell streams ${LINES.toLocaleString('en-US')} lines (Kiln vs the bare head-and-tail page), median of ${RUNS}`,
      kiln: median(kiln.map((t) => t.maxMs)),
      baseline: median(baseline.map((t) => t.maxMs)),
      unit: 'ms',
    };
    report(vsBare);
    report(longest);
    console.log(`notebook: kiln idle long-task time ${idle.totalMs.toFixed(0)} ms in ${IDLE_MS} ms (the floor)`);
    results.push(vsBare, longest);
  } finally {
    await browser.close();
    await host.close();
    await services.dispose();
    await rm(root, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
  return results;
}

runWhenMain(import.meta.url, runNotebookFramesBench);
