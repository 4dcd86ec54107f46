/**
 * Find in a notebook: find-all over a 2,000-cell notebook, from the query typed into the find bar to its first
 * highlight painted (Kiln's whole path: the find model over every cell, the view, Monaco's decorations or the
 * not-yet-mounted cells' marks). Target: at most 100 ms on this machine; the benchmark fails past it.
 *
 * Baseline, in the same run and the same page: a plain regex scan (the same pattern) over the same 2,000
 * sources, the least any find could do.
 *
 * Needs the built app (`npm run build`). Run alone: `npm run bench -- notebook-find`.
 */
import type { Page } from '@playwright/test';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NAME_SHIM, startKilnInBrowser, VIEWPORT } from './browser';
import { median, report, type BenchResult } from './support';

const CELLS = 2_000;
const QUERIES = ['total', 'result_1', 'frame', 'value_19', 'import'];
const ROUNDS = 3;
const TARGET_MS = 100;

function sourceOf(i: number): string {
  if (i % 10 === 0) return `## Section ${i / 10}\n\nWhat the frame of step ${i} shows, and why.`;
  return `import math\nvalue_${i} = math.sqrt(${i})\nresult_${i} = value_${i} * 2  # total so far\nprint(result_${i})`;
}

function notebookJson(): string {
  const cells = Array.from({ length: CELLS }, (_, i) => {
    const source = sourceOf(i);
    const base = { id: `c${i}`, metadata: i % 200 === 100 ? { heading_collapsed: true } : {}, source };
    return i % 10 === 0
      ? { ...base, cell_type: 'markdown' }
      : { ...base, cell_type: 'code', execution_count: null, outputs: [] };
  });
  return JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1);
}

/**
 * Types a query into the find bar and resolves the ms until the first highlight is in the page, in the frame that
 * paints it: a mark inserted (seen by a MutationObserver as it lands) or a CSS highlight registered (rendered markdown).
 */
function timeToFirstHighlight(page: Page, query: string): Promise<number> {
  return page.evaluate(
    (text) =>
      new Promise<number>((resolve) => {
        const input = document.querySelector<HTMLInputElement>('[role="search"] input[aria-label="Find"]')!;
        const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
        let done = false;
        const seen = () => {
          if (done) return true;
          const marked = document.querySelector('.nb-find-match, .nb-find-current');
          if (!marked && !((CSS.highlights.get('nb-find')?.size ?? 0) > 0)) return false;
          done = true;
          observer.disconnect();
          resolve(performance.now() - start);
          return true;
        };
        const observer = new MutationObserver(() => void seen());
        observer.observe(document.body, {
          childList: true,
          subtree: true,
          attributes: true,
          attributeFilter: ['class'],
        });
        const start = performance.now();
        setValue.call(input, text);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const poll = () => {
          if (!seen()) requestAnimationFrame(poll);
        };
        poll();
      }),
    query,
  );
}

async function clearQuery(page: Page): Promise<void> {
  await page.evaluate(() => {
    const input = document.querySelector<HTMLInputElement>('[role="search"] input[aria-label="Find"]')!;
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, '');
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.waitForFunction(
    () => !document.querySelector('.nb-find-match, .nb-find-current') && !CSS.highlights.get('nb-find')?.size,
  );
}

/** The baseline: the same regex over the same sources, in the page. */
function plainScan(page: Page, sources: string[], query: string): Promise<number> {
  return page.evaluate(
    ([all, text]) => {
      const start = performance.now();
      const regex = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
      let n = 0;
      for (const source of all) {
        regex.lastIndex = 0;
        while (regex.exec(source)) n++;
      }
      return performance.now() - start + (n < 0 ? 1 : 0);
    },
    [sources, query] as const,
  );
}

export async function runNotebookFindBench(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-find-'));
  await writeFile(path.join(root, 'big.ipynb'), notebookJson());
  const kiln = await startKilnInBrowser(root);
  try {
    const page = await kiln.browser.newPage({ viewport: VIEWPORT });
    await page.addInitScript(NAME_SHIM);
    await page.goto(kiln.url);
    await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'big.ipynb' }).click();
    const nb = page.getByRole('region', { name: 'big.ipynb', exact: true });
    // Every cell mounted (they mount a chunk per task after the first screen), so no sample shares the page with that.
    await nb.locator('.nb-cell-grid[data-all-mounted="true"]').waitFor({ state: 'attached', timeout: 60_000 });
    await nb.getByRole('group', { name: 'Cell 1', exact: true }).click();
    await page.keyboard.press(process.platform === 'darwin' ? 'Meta+f' : 'Control+f');
    await nb.getByRole('search', { name: 'Find in notebook' }).waitFor();
    const sources = Array.from({ length: CELLS }, (_, i) => sourceOf(i));
    const kilnTimes: number[] = [];
    const baseTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const query of QUERIES) {
        kilnTimes.push(await timeToFirstHighlight(page, query));
        baseTimes.push(await plainScan(page, sources, query));
        await clearQuery(page);
      }
    }
    const result: BenchResult = {
      name: `notebook-find (${CELLS.toLocaleString()} cells, query to first highlight, median of ${kilnTimes.length})`,
      kiln: median(kilnTimes),
      baseline: median(baseTimes),
      unit: 'ms',
    };
    report(result, { max: TARGET_MS });
    console.log(`  slowest ${Math.max(...kilnTimes).toFixed(1)} ms`);
    return result;
  } finally {
    await kiln.close();
  }
}
