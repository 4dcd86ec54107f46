/**
 * The paint half of the notebook-diff benchmark (bench/notebook-diff.ts says what the two notebooks are).
 * - Kiln: the built web host on a git repository whose HEAD holds the base notebook and whose working tree the
 *   new one, open in the page as a notebook (untimed). Timed in the page from the click on "Open Changes" (the
 *   file's context menu) to the first screen of the review painted: the "Notebook changes" region in the DOM,
 *   every changed cell's source diff on that screen made and showing its changes, then the next animation frame.
 *   So git's HEAD read, both notebooks over the socket, main's parse and diff, and the view's first paint count.
 * - Baseline, in the same run and browser with samples interleaved: a bare page (bench/notebook-diff-bare, built
 *   here with Vite, served on loopback) that from its call fetches the two files, parses them, concatenates each
 *   one's cell sources and paints them as one plain Monaco diff: to the frame after Monaco's diff is computed.
 */
import type { Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NAME_SHIM, VIEWPORT, startKilnInBrowser } from './browser';
import { serveBarePage } from './edit-diff';
import { median, report, type BenchResult } from './support';

const RUNS = Number(process.env.KILN_BENCH_NBDIFF_RUNS ?? 7);
const WARMUP = 2;
const TARGET_RATIO = 1.5;
const NAME = 'run.ipynb';

/** In the page: resolves with performance.now() at the frame after the review's first screen is painted. */
function waitForReviewPaint(): Promise<number> {
  const onScreen = (el: Element) => {
    const box = el.getBoundingClientRect();
    return box.bottom > 0 && box.top < innerHeight && box.height > 0;
  };
  const painted = () => {
    const region = document.querySelector('section[aria-label="Notebook changes"]');
    if (!region || !region.querySelector('[role="group"]')) return false;
    // A changed source on screen is first a placeholder box, then a diff editor, then its change marks.
    for (const box of region.querySelectorAll('.nbd-source-diff')) {
      if (!onScreen(box)) continue;
      if (!box.querySelector('.line-insert, .char-insert, .line-delete, .char-delete')) return false;
    }
    return true;
  };
  return new Promise((resolve, reject) => {
    const done = () => requestAnimationFrame(() => resolve(performance.now()));
    // A review that never paints is a failed run, said with what was missing, not a hung benchmark.
    setTimeout(() => {
      const region = document.querySelector('section[aria-label="Notebook changes"]');
      const boxes = region ? [...region.querySelectorAll('.nbd-source-diff')].filter(onScreen) : [];
      reject(
        new Error(
          `no review painted in 120 s: region ${Boolean(region)}, ${boxes.length} source diffs on screen, ` +
            `${boxes.filter((b) => b.querySelector('.monaco-diff-editor')).length} of them made`,
        ),
      );
    }, 120_000);
    const observer = new MutationObserver(() => {
      if (!painted()) return;
      observer.disconnect();
      done();
    });
    observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
  });
}

async function kilnSample(page: Page): Promise<number> {
  await page.bringToFront();
  await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: NAME, exact: true }).click({
    button: 'right',
  });
  await page.getByRole('menuitem', { name: 'Open Changes' }).waitFor();
  await page.evaluate(`${NAME_SHIM}; globalThis.__waitForReviewPaint = ${waitForReviewPaint.toString()};`);
  const ms = await page.evaluate(async () => {
    const item = [...document.querySelectorAll<HTMLElement>('[role="menuitem"]')].find(
      (el) => el.textContent?.trim() === 'Open Changes',
    )!;
    const wait = (window as unknown as { __waitForReviewPaint: () => Promise<number> }).__waitForReviewPaint;
    const start = performance.now();
    const painted = wait();
    item.click();
    return (await painted) - start;
  });
  await page.getByRole('button', { name: 'Close changes' }).click();
  // Untimed; 50 diff editors closing take more than Playwright's 30 s default on a machine this loaded.
  await page.getByRole('region', { name: 'Notebook changes' }).waitFor({ state: 'detached', timeout: 120_000 });
  return ms;
}

async function bareSample(page: Page): Promise<number> {
  await page.bringToFront();
  return page.evaluate(() => window.runBareNotebookDiff('/base.ipynb', '/next.ipynb'));
}

/** Kiln's review vs the bare page, on the two files written by the engine half. */
export async function runNotebookDiffPaint(baseFile: string, nextFile: string): Promise<BenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-nbdiff-paint-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd: root });
  git('init', '-q');
  await copyFile(baseFile, path.join(root, NAME));
  git('add', NAME);
  git('commit', '-q', '-m', 'base');
  await copyFile(nextFile, path.join(root, NAME));

  const [baseText, nextText] = await Promise.all([readFile(baseFile, 'utf8'), readFile(nextFile, 'utf8')]);
  const bare = await serveBarePage(
    new Map([
      ['/base.ipynb', baseText],
      ['/next.ipynb', nextText],
    ]),
    path.join(import.meta.dirname, 'notebook-diff-bare'),
  );
  const kiln = await startKilnInBrowser(root);
  try {
    const kilnPage = await kiln.browser.newPage({ viewport: VIEWPORT });
    // The untimed steps between samples (menus, closing the review) wait as long as the timed ones may.
    kilnPage.setDefaultTimeout(120_000);
    await kilnPage.goto(kiln.url);
    await kilnPage.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: NAME, exact: true }).click();
    await kilnPage
      .getByRole('region', { name: NAME, exact: true })
      .getByRole('group', { name: 'Cell 1', exact: true })
      .waitFor({ timeout: 120_000 });
    const barePage = await kiln.browser.newPage({ viewport: VIEWPORT });
    await barePage.goto(bare.url);
    await barePage.waitForFunction(() => typeof window.runBareNotebookDiff === 'function');

    const kilnMs: number[] = [];
    const bareMs: number[] = [];
    // Interleaved, which side goes first alternating; the first rounds warm caches and JITs.
    for (let i = 0; i < WARMUP + RUNS; i++) {
      let b = i % 2 ? await bareSample(barePage) : 0;
      const k = await kilnSample(kilnPage);
      if (i % 2 === 0) b = await bareSample(barePage);
      console.log(
        `  round ${i + 1}: Kiln ${k.toFixed(0)} ms, bare ${b.toFixed(0)} ms${i < WARMUP ? ' (warm-up)' : ''}`,
      );
      if (i < WARMUP) continue;
      kilnMs.push(k);
      bareMs.push(b);
    }
    const result: BenchResult = {
      name: `notebook review: "Open Changes" click → first screen of the cell diff painted (Kiln vs a bare Monaco diff of the sources concatenated), median of ${RUNS}`,
      kiln: median(kilnMs),
      baseline: median(bareMs),
      unit: 'ms',
    };
    report(result, { ratio: TARGET_RATIO });
    return result;
  } finally {
    await kiln.close();
    await bare.close();
  }
}
