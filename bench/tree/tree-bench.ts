/**
 * The explorer with 100,000 files in one folder, against a bare virtualized list of the same rows.
 * - Expand, timed in the page from the click on the folder to its first row in the DOM plus two animation
 *   frames, on both sides. Kiln cold: fresh services and a freshly loaded page; Kiln warm: the page loaded
 *   again on the same services (main keeps no order between listings; its code and the OS's caches are warm). Reported
 *   separately, cold first. The bare page does the least a page must to show the same first rows: its
 *   server reads the folder (with file types), picks the first 200 names without a full sort, and the page
 *   paints the visible ones; it fetches the rest afterwards, for scrolling.
 * - Scrolling: the main thread's long tasks over 240 frames (work per frame; animation-frame gaps floor at
 *   16.7 ms and would read a slow list as 1.0x), after the cold expand on Kiln and once the bare page has
 *   all the names.
 * Needs the built renderer (`npm run build`). Run: `npm run bench -- tree`.
 */
import type { Page } from '@playwright/test';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  VIEWPORT,
  launchChromium,
  serveLoopback,
  startKilnHost,
  startLongTasks,
  stopLongTasks,
  type LongTasks,
} from '../browser';
import { median, report, runWhenMain, type Figure } from '../support';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FILES = Number(process.env.KILN_BENCH_TREE_FILES ?? 100_000);
const RUNS = 5;
const SCROLL_FRAMES = 240;
const FIRST_ROW = `big/f${'0'.repeat(6)}.txt`;

const TARGET_RATIO = 2;

export interface TreeBenchResult {
  files: number;
  cold: Figure;
  warm: Figure;
  scrollLongTasks: Figure;
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

/**
 * The bare page's server: its HTML, `/list?first=N` (the folder's size and its first N names, picked
 * without sorting the rest) and `/list` (every name, sorted).
 */
async function startBaselineServer(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const html = await readFile(path.join(HERE, 'baseline.html'));
  const dir = path.join(root, 'big');
  return serveLoopback(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/list') {
      const entries = await readdir(dir, { withFileTypes: true });
      const names = entries.map((entry) => entry.name);
      const first = Number(url.searchParams.get('first') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(first ? { total: names.length, names: smallest(names, first) } : names.sort()));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
}

/** The `count` smallest names in order, kept in a small sorted array as the names stream by. */
function smallest(names: string[], count: number): string[] {
  const kept: string[] = [];
  for (const name of names) {
    if (kept.length === count && name >= kept[count - 1]) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid] < name) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, name);
    if (kept.length > count) kept.pop();
  }
  return kept;
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
  // Each side scrolls once it holds every name: the bare page's rest fetched, Kiln's folder no longer busy.
  await page.evaluate('window.__rest');
  await page.locator('[role="treeitem"][aria-label="big"][aria-busy]').waitFor({ state: 'detached' });
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

export async function runTreeBench(): Promise<TreeBenchResult> {
  console.log(`tree bench: ${FILES.toLocaleString()} files in one folder`);
  const root = await makeWorkspace();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-tree-data-'));
  const baseline = await startBaselineServer(root);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const kilnCold: number[] = [];
    const kilnWarm: number[] = [];
    const bareExpand: number[] = [];
    const kilnScroll: LongTasks[] = [];
    const bareScroll: LongTasks[] = [];
    const expandKiln = async (url: string) => {
      await page.goto(url);
      await page.getByRole('treeitem', { name: 'big', exact: true }).waitFor();
      return timeExpand(page, FIRST_ROW);
    };
    // Interleaved, so machine noise hits every side alike.
    for (let run = 0; run < RUNS; run++) {
      const kiln = await startKilnHost(root, dataDir);
      try {
        kilnCold.push(await expandKiln(kiln.url));
        kilnScroll.push(await scrollWork(page, '[role="tree"]'));
        kilnWarm.push(await expandKiln(kiln.url));
      } finally {
        await kiln.close();
      }
      await page.goto(baseline.url);
      bareExpand.push(await timeExpand(page, FIRST_ROW));
      bareScroll.push(await scrollWork(page, '#list'));
    }
    const expand = (which: string, samples: number[]) =>
      report(
        {
          name: `tree expand ${FILES.toLocaleString()}, ${which}: click to first rows painted (Kiln vs bare list), median of ${RUNS}`,
          kiln: median(samples),
          baseline: median(bareExpand),
          unit: 'ms',
        },
        { ratio: TARGET_RATIO },
      );
    const cold = expand('cold (fresh services and page)', kilnCold);
    const warm = expand('warm (page loaded again)', kilnWarm);
    const total = (runs: LongTasks[]) => runs.reduce((sum, t) => sum + t.totalMs, 0);
    const tasks = (runs: LongTasks[]) => runs.reduce((n, t) => n + t.count, 0);
    const scrollLongTasks = report(
      {
        name: `tree scroll ${FILES.toLocaleString()}: long-task time over ${RUNS} x ${SCROLL_FRAMES} frames (Kiln ${tasks(kilnScroll)} tasks, bare ${tasks(bareScroll)})`,
        kiln: total(kilnScroll),
        baseline: total(bareScroll),
        unit: 'ms',
      },
      // None beyond the bare list's: 60 fps.
      { overBaseline: 0 },
    );
    return { files: FILES, cold, warm, scrollLongTasks };
  } finally {
    await browser.close();
    await baseline.close();
    await rm(root, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, runTreeBench);
