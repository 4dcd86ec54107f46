/**
 * The explorer with 100,000 files in one folder, against a bare virtualized list of the same rows:
 * time from expanding the folder to its first rows painted, and the main thread's long tasks while
 * scrolling (work per frame; animation-frame gaps floor at 16.7 ms and would read a slow list as 1.0x).
 * Needs the built renderer (`npx electron-vite build`). Run: `node --import tsx bench/tree/tree-bench.ts`.
 */
import type { Page } from '@playwright/test';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { VIEWPORT, serveLoopback, startKilnInBrowser, startLongTasks, stopLongTasks, type LongTasks } from '../browser';
import { median, report, type BenchResult } from '../support';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FILES = Number(process.env.KILN_BENCH_TREE_FILES ?? 100_000);
const RUNS = 5;
const SCROLL_FRAMES = 240;
const FIRST_ROW = `big/f${'0'.repeat(6)}.txt`;

export interface TreeBenchResult {
  files: number;
  expand: BenchResult & { ratio: number };
  scrollLongTasks: BenchResult;
}

async function makeWorkspace(): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-tree-'));
  await mkdir(path.join(root, 'big'));
  for (let i = 0; i < FILES; i += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, FILES - i) }, (_, j) =>
        writeFile(path.join(root, 'big', `f${String(i + j).padStart(6, '0')}.txt`), ''),
      ),
    );
  }
  await writeFile(path.join(root, 'README.md'), '# bench\n');
  return root;
}

/** The bare page: its HTML plus the folder's names as JSON, from a plain local HTTP server. */
async function startBaselineServer(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const html = await readFile(path.join(HERE, 'baseline.html'));
  return serveLoopback(async (req, res) => {
    if (req.url === '/list') {
      const names = (await readdir(path.join(root, 'big'))).sort();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(names));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
}

// Page scripts are plain strings: tsx would otherwise inject helpers the page does not have.

/** Clicks the folder and waits until its first row is in the DOM and two frames have been painted. */
async function timeExpand(page: Page, firstRow: string): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const opener = document.querySelector('[role="treeitem"][aria-label="big"]');
    const start = performance.now();
    const painted = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
    const observer = new MutationObserver(() => {
      if (document.querySelector('[data-path="${firstRow}"]')) { observer.disconnect(); painted(); }
    });
    observer.observe(document.body, { childList: true, subtree: true });
    opener.click();
  })`) as Promise<number>;
}

/** Scrolls the list by a page-ish step per frame and returns the long tasks meanwhile. */
async function scrollWork(page: Page, scroller: string): Promise<LongTasks> {
  await startLongTasks(page);
  await page.evaluate(`new Promise((resolve) => {
    const list = document.querySelector('${scroller}');
    let n = 0;
    const step = () => {
      list.scrollTop += 397; // not a multiple of the row height, so every frame shows new rows
      if (++n < ${SCROLL_FRAMES}) requestAnimationFrame(step); else requestAnimationFrame(() => resolve());
    };
    requestAnimationFrame(step);
  })`);
  return stopLongTasks(page);
}

function withRatio(result: BenchResult): BenchResult & { ratio: number } {
  report(result);
  return { ...result, ratio: result.kiln / result.baseline };
}

export async function runTreeBench(): Promise<TreeBenchResult> {
  console.log(`tree bench: ${FILES.toLocaleString()} files in one folder`);
  const root = await makeWorkspace();
  const baseline = await startBaselineServer(root);
  const kiln = await startKilnInBrowser(root);
  try {
    const page = await kiln.browser.newPage({ viewport: VIEWPORT });
    const kilnExpand: number[] = [];
    const bareExpand: number[] = [];
    const kilnScroll: LongTasks[] = [];
    const bareScroll: LongTasks[] = [];
    for (let run = 0; run < RUNS; run++) {
      await page.goto(kiln.url);
      await page.getByRole('treeitem', { name: 'big', exact: true }).waitFor();
      kilnExpand.push(await timeExpand(page, FIRST_ROW));
      kilnScroll.push(await scrollWork(page, '[role="tree"]'));

      await page.goto(baseline.url);
      bareExpand.push(await timeExpand(page, FIRST_ROW));
      bareScroll.push(await scrollWork(page, '#list'));
    }
    const expand = withRatio({
      name: 'tree expand 100k: to first rows painted (target ≤ 2x)',
      kiln: median(kilnExpand),
      baseline: median(bareExpand),
      unit: 'ms',
    });
    console.log(
      `tree expand 100k: ratio ${expand.ratio.toFixed(2)}x against a target of 2x: ${expand.ratio <= 2 ? 'meets target' : 'MISSES target'}`,
    );
    const total = (runs: LongTasks[]) => runs.reduce((sum, t) => sum + t.totalMs, 0);
    const scrollLongTasks: BenchResult = {
      name: `tree scroll 100k: long-task time over ${RUNS} x ${SCROLL_FRAMES} frames of scrolling`,
      kiln: total(kilnScroll),
      baseline: total(bareScroll),
      unit: 'ms',
    };
    console.log(
      `${scrollLongTasks.name}: kiln ${scrollLongTasks.kiln.toFixed(0)} ms (${kilnScroll.reduce((n, t) => n + t.count, 0)} tasks), bare list ${scrollLongTasks.baseline.toFixed(0)} ms (${bareScroll.reduce((n, t) => n + t.count, 0)} tasks); target: no long tasks beyond the bare list's (60 fps)`,
    );
    return { files: FILES, expand, scrollLongTasks };
  } finally {
    await baseline.close();
    await kiln.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runTreeBench();
  process.exit(0);
}
