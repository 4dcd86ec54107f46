/**
 * Drag-reorder benchmark: a cell of a 500-cell notebook dragged by its handle past 9 cells (the pointer ending over
 * the target cell's code) and dropped, through Kiln's whole path: the drop line while dragging, the move request to
 * main over the WebSocket, its answer's re-render and the focus on the moved cell.
 *
 * Timed from just before the mouse goes down until two animation frames after the moved cell shows in its new
 * place (so the frame that paints it is in). Over that span: every long animation frame (Chromium's
 * long-animation-frame entries: a frame of 50 ms or more from its first task to its paint, with the scripts that
 * ran in it), the longest gap between requestAnimationFrame callbacks (what the eye sees, in whole vsyncs), and the
 * long tasks.
 *
 * Baseline, in the same run and the same Chromium, alternating with Kiln's runs: a bare page of 500 plain cells
 * with the same HTML5 drag (a drop line, and the cell's node moved on drop), dragged by the same mouse path.
 * Target, as issue 23 states it ("keeps frames under 50 ms"): the median run has no frame of 50 ms or more, and
 * no task of 50 ms or more (a task that long holds a frame as long); the bench fails otherwise. The longest frame
 * in any run is reported too, without a target: on a loaded machine a run can hold a frame with no script and no
 * rendering in it (the page not scheduled), as the bare page's runs sometimes do. The rAF gap is
 * reported against the bare page's, without a target (whole vsyncs: 50 ms there can be a 34 ms frame). Each run
 * prints its worst frame's rendering time and scripts, to see what to cut.
 */
import type { Page } from '@playwright/test';
import { mkdtemp, writeFile } from 'node:fs/promises';
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
import { median, report, reportValue, type BenchResult, runWhenMain } from './support';

const CELLS = 500;
const RUNS = 6;
const FROM = 2;
/** The cell (1-based) the dragged one is dropped below. */
const TO = 11;
const FRAME_BUDGET_MS = 50;

function notebookJson(): string {
  const cells = Array.from({ length: CELLS }, (_, i) => ({
    cell_type: 'code',
    execution_count: null,
    id: `cell-${i}`,
    metadata: {},
    outputs: [],
    source: `value_${i} = ${i} * 2\nprint(value_${i})`,
  }));
  const metadata = { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } };
  return `${JSON.stringify({ cells, metadata, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
}

/** A bare page: 500 cells of the same text, dragged with HTML5 drag and drop and moved on drop. */
const BARE_PAGE = `<!doctype html><html><body style="margin:0;font:13px monospace">
<div id="list" style="position:relative;padding:10px">${Array.from(
  { length: CELLS },
  (_, i) =>
    `<div class="cell" data-cell-id="cell-${i}" style="display:flex;padding:5px 0"><div class="handle" draggable="true" style="width:6px;background:#1976d2"></div><pre style="margin:0 0 0 60px;padding:5px;border:1px solid #ccc;flex:1">value_${i} = ${i} * 2\nprint(value_${i})</pre></div>`,
).join('')}<div id="line" hidden style="position:absolute;left:0;right:0;height:2px;background:#1976d2"></div></div>
<script>
  const list = document.getElementById('list'), line = document.getElementById('line');
  let dragged = null, target = null;
  list.addEventListener('dragstart', (e) => { dragged = e.target.closest('.cell'); e.dataTransfer.setData('text/plain', 'x'); });
  list.addEventListener('dragover', (e) => {
    e.preventDefault();
    const cell = e.target.closest('.cell'); if (!cell) return;
    const box = cell.getBoundingClientRect(), after = e.clientY > box.top + box.height / 2;
    target = after ? cell.nextElementSibling : cell;
    line.hidden = false; line.style.top = (cell.offsetTop + (after ? cell.offsetHeight : 0)) + 'px';
  });
  list.addEventListener('drop', (e) => { e.preventDefault(); line.hidden = true; if (dragged && target !== dragged) list.insertBefore(dragged, target); });
</script></body></html>`;

/** One long animation frame (50 ms or more from its first task to its paint), with the scripts that ran in it. */
interface LongFrame {
  duration: number;
  blocking: number;
  /** From the rendering step's start (requestAnimationFrame and ResizeObserver callbacks first) to the frame's end. */
  renderMs: number;
  /** Style and layout at the frame's end. */
  styleLayoutMs: number;
  scripts: { what: string; ms: number; forcedLayoutMs: number }[];
}

interface Frames {
  /** Longest gap between two animation-frame callbacks (vsync-quantised: 16.7, 33.3, 50 ms ...). */
  maxGapMs: number;
  /** Chromium's long-animation-frame entries: every frame of 50 ms or more. */
  long: LongFrame[];
}

/**
 * Starts recording frames two ways: requestAnimationFrame gaps (what a user sees, to the vsync), and Chromium's
 * long-animation-frame entries (each frame's real length from its first task to its paint, and which scripts ran).
 */
async function startFrames(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__frames = { last: performance.now(), max: 0, on: true, long: [] };
    const tick = (t) => { const f = window.__frames; if (!f.on) return; f.max = Math.max(f.max, t - f.last); f.last = t; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    const keep = (e) => window.__frames.long.push({
      duration: e.duration,
      blocking: e.blockingDuration,
      renderMs: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
      styleLayoutMs: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
      scripts: e.scripts.map((s) => ({
        what: (s.invoker || s.invokerType) + (s.sourceFunctionName ? ' ' + s.sourceFunctionName : ''),
        ms: s.duration,
        forcedLayoutMs: s.forcedStyleAndLayoutDuration,
      })),
    });
    window.__loafObserver?.disconnect();
    window.__loafObserver = new PerformanceObserver((list) => list.getEntries().forEach(keep));
    window.__loafObserver.observe({ type: 'long-animation-frame' });
    window.__keepLoaf = keep;
  })()`);
}

async function stopFrames(page: Page): Promise<Frames> {
  return (await page.evaluate(`(() => {
    const f = window.__frames;
    f.on = false;
    window.__loafObserver.takeRecords().forEach(window.__keepLoaf);
    window.__loafObserver.disconnect();
    return { maxGapMs: f.max, long: f.long };
  })()`)) as Frames;
}

function longestFrame(frames: Frames): number {
  return Math.max(0, ...frames.long.map((f) => f.duration));
}

function describeFrames(label: string, frames: Frames): string {
  const worst = [...frames.long].sort((a, b) => b.duration - a.duration)[0];
  const scripts = worst
    ? `; worst: rendering ${worst.renderMs.toFixed(0)} ms (style and layout ${worst.styleLayoutMs.toFixed(0)}), scripts: ${worst.scripts
        .filter((s) => s.ms >= 1)
        .map(
          (s) =>
            `${s.what} ${s.ms.toFixed(0)} ms${s.forcedLayoutMs >= 1 ? ` (forced layout ${s.forcedLayoutMs.toFixed(0)})` : ''}`,
        )
        .join(', ')}`
    : '';
  return `  ${label}: longest rAF gap ${frames.maxGapMs.toFixed(0)} ms, ${frames.long.length} frames of 50 ms or more${
    worst ? ` (longest ${worst.duration.toFixed(0)} ms)` : ''
  }${scripts}`;
}

/** The ids of the first cells, in their order on screen. */
function firstIds(page: Page, scope: string): Promise<string[]> {
  return page.evaluate(
    (sel) => [...document.querySelectorAll(sel)].slice(0, 40).map((el) => (el as HTMLElement).dataset.cellId ?? ''),
    `${scope} [data-cell-id]`,
  );
}

interface DragRun {
  tasks: LongTasks;
  frames: Frames;
}

/**
 * Drags cell FROM below cell TO (or back up) by its handle and waits until the order on screen shows it; long tasks
 * and frames recorded throughout.
 */
async function dragOnce(page: Page, scope: string, handle: string, down: boolean): Promise<DragRun> {
  const before = await firstIds(page, scope);
  const from = down ? FROM : TO;
  const to = down ? TO : FROM;
  const cells = page.locator(`${scope} [data-cell-id]`);
  const source = await cells
    .nth(from - 1)
    .locator(handle)
    .boundingBox();
  const target = await cells.nth(to - 1).boundingBox();
  if (!source || !target) throw new Error('cells not laid out');
  const moved = before[from - 1];
  const expected = before.filter((id) => id !== moved);
  expected.splice(down ? to - 1 : to - 1, 0, moved);
  await startLongTasks(page);
  await startFrames(page);
  await page.mouse.move(source.x + source.width / 2, source.y + 8);
  await page.mouse.down();
  await page.mouse.move(source.x + 30, source.y + 30, { steps: 4 });
  // Down: below the middle of the target (after it). Up: above its middle (before it).
  await page.mouse.move(target.x + 120, target.y + target.height * (down ? 0.75 : 0.25), { steps: 40 });
  await page.mouse.up();
  await page
    .waitForFunction(
      ([sel, want]) =>
        [...document.querySelectorAll(sel)]
          .slice(0, want.length)
          .every((el, i) => (el as HTMLElement).dataset.cellId === want[i]),
      [`${scope} [data-cell-id]`, expected.slice(0, 40)] as const,
      { polling: 'raf', timeout: 30_000 },
    )
    .catch(async (err: unknown) => {
      console.log('expected', expected.slice(0, 20), 'shown', (await firstIds(page, scope)).slice(0, 20));
      throw err;
    });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const frames = await stopFrames(page);
  return { tasks: await stopLongTasks(page), frames };
}

export async function runNotebookDragBench(): Promise<BenchResult[]> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-drag-'));
  await writeFile(path.join(root, 'long.ipynb'), notebookJson());
  const kiln = await startKilnInBrowser(root);
  const results: BenchResult[] = [];
  try {
    const page = await kiln.browser.newPage({ viewport: VIEWPORT });
    await page.goto(kiln.url);
    await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'long.ipynb' }).click();
    const nb = page.getByRole('region', { name: 'long.ipynb' });
    await nb
      .locator('.nb-cell')
      .nth(CELLS - 1)
      .waitFor({ state: 'attached', timeout: 60_000 });
    await nb.locator('.nb-editor[data-live="true"]').first().waitFor({ timeout: 60_000 });
    const bare = await kiln.browser.newPage({ viewport: VIEWPORT });
    await bare.setContent(BARE_PAGE);

    // A first drag warms up both pages, then runs alternate down and back up.
    await page.bringToFront();
    await dragOnce(page, 'section.nb', '.nb-handle', true);
    await bare.bringToFront();
    await dragOnce(bare, '#list', '.handle', true);
    const kilnRuns: DragRun[] = [];
    const bareRuns: DragRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      const down = i % 2 === 1;
      await page.bringToFront();
      kilnRuns.push(await dragOnce(page, 'section.nb', '.nb-handle', down));
      await bare.bringToFront();
      bareRuns.push(await dragOnce(bare, '#list', '.handle', down));
    }

    console.log(`notebook drag-reorder in a ${CELLS}-cell notebook, cell ${FROM} ↔ below cell ${TO} (${RUNS} runs):`);
    for (const [i, run] of kilnRuns.entries()) {
      console.log(describeLongTasks(`kiln run ${i + 1}`, run.tasks));
      console.log(describeFrames(`kiln run ${i + 1}`, run.frames));
      console.log(describeFrames(`bare page run ${i + 1}`, bareRuns[i].frames));
    }
    const frames: BenchResult = {
      name: `notebook drag: longest rAF gap while dragging a cell of ${CELLS} and dropping it (Kiln vs a bare page of ${CELLS} cells), median of ${RUNS}`,
      kiln: median(kilnRuns.map((r) => r.frames.maxGapMs)),
      baseline: median(bareRuns.map((r) => r.frames.maxGapMs)),
      unit: 'ms',
    };
    report(frames);
    reportValue(
      `notebook drag: longest frame (long-animation-frame entry; 0 = no frame reached 50 ms), median of ${RUNS} (bare page: ${median(bareRuns.map((r) => longestFrame(r.frames))).toFixed(0)} ms)`,
      median(kilnRuns.map((r) => longestFrame(r.frames))),
      'ms',
      { max: FRAME_BUDGET_MS, below: true },
    );
    // Every run, not only the median one: a frame of 50 ms or more in any run is one an operator can see.
    reportValue(
      `notebook drag: longest frame in any of the ${RUNS} runs (bare page: ${Math.max(...bareRuns.map((r) => longestFrame(r.frames))).toFixed(0)} ms)`,
      Math.max(...kilnRuns.map((r) => longestFrame(r.frames))),
      'ms',
      null,
    );
    const longest = median(kilnRuns.map((r) => r.tasks.maxMs));
    reportValue(`notebook drag: longest task, median of ${RUNS}`, longest, 'ms', { max: FRAME_BUDGET_MS, below: true });
    results.push(frames);
  } finally {
    await kiln.close();
  }
  return results;
}

runWhenMain(import.meta.url, runNotebookDragBench);
