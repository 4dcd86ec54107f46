/**
 * Notebook work-per-frame benchmark: the main thread's long tasks (PerformanceObserver 'longtask': work of
 * 50 ms or more that the page could not split, i.e. frames it dropped) while a notebook cell streams
 * 100,000 lines through Kiln's full path (kernel → main → WebSocket → renderer → output area).
 *
 * Baselines, in the same run and the same Chromium:
 * - a bare page that appends the same 100,000 lines to a <pre>, 1,000 lines per animation frame, as fast as
 *   it can (its own pace and chunking, nothing taken from Kiln's run), and
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
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/support/chromium';
import { startWebHost } from '../../main/hosts/web/server';
import { MemoryStore } from '../../main/prefs';
import { createServices } from '../../main/services';
import { describeLongTasks, startLongTasks, stopLongTasks, VIEWPORT, type LongTasks } from '../browser';
import { median, report, type BenchResult } from '../support';

const LINES = 100_000;
const LINES_PER_FRAME = 1_000;
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

/** The baseline: the same lines appended to a bare <pre>, LINES_PER_FRAME per animation frame, until all are painted. */
async function bareRun(page: Page): Promise<LongTasks> {
  await page.setContent(
    '<!doctype html><html><body style="margin:0;font:13px monospace"><pre id="out" style="white-space:pre-wrap"></pre></body></html>',
  );
  await startLongTasks(page);
  await page.evaluate(`new Promise((resolve) => {
    const out = document.getElementById('out');
    let next = 0;
    const step = () => {
      const end = Math.min(${LINES}, next + ${LINES_PER_FRAME});
      let text = '';
      for (let i = next; i < end; i++) text += 'line ' + i + '\\n';
      out.appendChild(document.createTextNode(text));
      next = end;
      // Done once the last chunk has been painted.
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
      console.log(describeLongTasks(`bare <pre> run ${i + 1}`, baseline[i]));
    }
    console.log(describeLongTasks('kiln idle', idle));

    const vsBare: BenchResult = {
      name: `notebook: long-task time while a cell streams ${LINES.toLocaleString('en-US')} lines (Kiln vs a bare page appending them to a <pre>), median of ${RUNS}`,
      kiln: median(kiln.map((t) => t.totalMs)),
      baseline: median(baseline.map((t) => t.totalMs)),
      unit: 'ms',
    };
    const longest: BenchResult = {
      name: `notebook: longest task while a cell streams ${LINES.toLocaleString('en-US')} lines (Kiln vs the bare <pre>), median of ${RUNS}`,
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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runNotebookFramesBench();
  process.exit(0);
}
