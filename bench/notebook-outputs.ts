/**
 * Rich outputs benchmark: opening a notebook of 200 formulas (text/latex) and 20 Vega-Lite charts until every
 * output is painted (KaTeX typeset, every chart's SVG marks drawn), against the same notebook with each output
 * as its text/plain only, in the same run and Chromium (goal: 3x or less). Then long tasks while scrolling the
 * rich notebook from top to bottom and back (goal: none over 200 ms), the plain one as its baseline. Each open is a fresh page, so the KaTeX
 * and Vega chunks load every time, as for a first notebook. Last, what the renderers add to the app's first load
 * (bench/first-load.ts; goal: 5% at most).
 *
 * Needs the built app (`npm run build`). Run alone: `npm run bench -- notebook-outputs`.
 */
import type { Page } from '@playwright/test';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  describeLongTasks,
  startKilnInBrowser,
  startLongTasks,
  stopLongTasks,
  VIEWPORT,
  type LongTasks,
} from './browser';
import { measureFirstLoad } from './first-load';
import { median, report, reportValue, type BenchResult } from './support';

const FORMULAS = 200;
const CHARTS = 20;
const RUNS = 3;
/** Pixels per animation frame while scrolling: a fast wheel flick. */
const SCROLL_STEP = 400;

function output(rich: boolean, i: number): object {
  if (i % 11 === 10) {
    const chart = {
      $schema: 'https://vega.github.io/schema/vega-lite/v4.17.0.json',
      title: `Chart ${i}`,
      data: { values: Array.from({ length: 12 }, (_, k) => ({ k: `m${k}`, v: (k * 7 + i) % 13 })) },
      mark: 'bar',
      encoding: { x: { field: 'k', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } },
    };
    const data = rich
      ? { 'application/vnd.vegalite.v4+json': chart, 'text/plain': '<VegaLite 4 object>' }
      : { 'text/plain': '<VegaLite 4 object>' };
    return { output_type: 'display_data', metadata: {}, data };
  }
  const latex = `$\\displaystyle \\int_{0}^{${i}} \\frac{x^{2} + ${i}}{\\sqrt{x + 1}}\\, dx = \\sum_{k=1}^{${i}} \\binom{${i}}{k}$`;
  const data = rich ? { 'text/latex': latex, 'text/plain': `formula ${i}` } : { 'text/plain': `formula ${i}` };
  return { output_type: 'execute_result', execution_count: i + 1, metadata: {}, data };
}

function notebook(rich: boolean): string {
  const cells = Array.from({ length: FORMULAS + CHARTS }, (_, i) => ({
    cell_type: 'code',
    execution_count: i + 1,
    id: `c${i}`,
    metadata: {},
    outputs: [output(rich, i)],
    source: `out_${i}`,
  }));
  return `${JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 })}\n`;
}

/**
 * Opens the notebook in a fresh page; resolves the milliseconds from the click to every output painted. Outputs
 * are made as their cells come near the view, so both sides scroll down a screen a frame until all are there.
 */
async function openUntilPainted(page: Page, url: string, name: string, rich: boolean): Promise<number> {
  await page.goto(url);
  await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name, exact: true }).click();
  const start = Date.now();
  await page.waitForFunction(
    ([rich, formulas, charts]) => {
      const nb = document.querySelector('section.nb');
      if (!nb) return false;
      const list = nb.querySelector('.nb-cells');
      if (list) list.scrollTop += list.clientHeight;
      // Live collections, made once: a selector query each frame walked the whole notebook (every formula's
      // spans), a probe whose own cost grew with the rich side. The page holds no other output text, math or marks
      // (a formula still pending is `.nb-math-pending`, a chart not drawn has no `.mark-rect`).
      const probe = window as unknown as { __outputs?: Record<'text' | 'math' | 'bars', HTMLCollection> };
      probe.__outputs ??= {
        text: document.getElementsByClassName('nb-out-text'),
        math: document.getElementsByClassName('katex'),
        bars: document.getElementsByClassName('mark-rect'),
      };
      const { text, math, bars } = probe.__outputs;
      if (!rich) return text.length >= formulas + charts;
      return math.length >= formulas && bars.length >= charts;
    },
    [rich, FORMULAS, CHARTS] as const,
    { polling: 'raf', timeout: 180_000 },
  );
  // Painted: one more frame after the DOM is complete.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  return Date.now() - start;
}

/** Long tasks while the notebook scrolls to the bottom and back to the top, SCROLL_STEP pixels a frame. */
async function scrollDownAndUp(page: Page): Promise<LongTasks> {
  await startLongTasks(page);
  // A string, not a function: tsx's __name helper does not exist in the page.
  await page.evaluate(`new Promise((resolve) => {
    const list = document.querySelector('.nb-cells');
    let direction = 1;
    let last = -1;
    const step = () => {
      list.scrollTop += direction * ${SCROLL_STEP};
      const top = list.scrollTop;
      // The end is where a step no longer moves the list: down to the bottom, then back to the top.
      if (top === last && direction > 0) direction = -1;
      else if (top === last) return resolve();
      last = top;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  })`);
  return stopLongTasks(page);
}

export async function runNotebookOutputsBench(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-outputs-'));
  await writeFile(path.join(root, 'rich.ipynb'), notebook(true));
  await writeFile(path.join(root, 'plain.ipynb'), notebook(false));
  // No kernel: its start-up would take the CPU while one notebook paints and not the other. Outputs come
  // from the file; the notebooks open and draw without Jupyter.
  await mkdir(path.join(root, '.kiln'));
  await writeFile(path.join(root, '.kiln/config.yaml'), 'jupyter:\n  command: /nonexistent/jupyter\n');
  const kiln = await startKilnInBrowser(root);
  try {
    const rich: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      for (const [name, isRich, into] of [
        ['plain.ipynb', false, plain],
        ['rich.ipynb', true, rich],
      ] as const) {
        const page = await kiln.browser.newPage({ viewport: VIEWPORT });
        into.push(await openUntilPainted(page, kiln.url, name, isRich));
        await page.close();
      }
    }
    const painted: BenchResult = {
      name: `notebook outputs: open to all painted, ${FORMULAS} formulas + ${CHARTS} Vega-Lite charts (vs the same outputs as text/plain), median of ${RUNS}`,
      kiln: median(rich),
      baseline: median(plain),
      unit: 'ms',
    };
    report(painted, { ratio: 3 });

    // The renderers load on first use: what they add to the first load (before, the same load without them).
    const firstLoad = await measureFirstLoad();
    const growth = (100 * firstLoad.rendererBytes) / (firstLoad.bytes - firstLoad.rendererBytes);
    reportValue(
      `notebook outputs: the first load's JS and CSS (${(firstLoad.bytes / 1e6).toFixed(2)} MB) grown by the renderers`,
      growth,
      '%',
      {
        max: 5,
      },
    );

    for (const [name, isRich] of [
      ['plain.ipynb', false],
      ['rich.ipynb', true],
    ] as const) {
      const page = await kiln.browser.newPage({ viewport: VIEWPORT });
      await openUntilPainted(page, kiln.url, name, isRich);
      const scrolling = await scrollDownAndUp(page);
      console.log(describeLongTasks(`notebook outputs: scrolling ${name} down and up`, scrolling));
      if (isRich)
        reportValue('notebook outputs: longest task scrolling the rich notebook', scrolling.maxMs, 'ms', { max: 200 });
      await page.close();
    }
    return [painted];
  } finally {
    await kiln.close();
  }
}
