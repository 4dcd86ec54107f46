/**
 * Opening a big notebook: 1,000 code cells with 20 MB of outputs (per cell a 4 KB stream and a 16 KB PNG),
 * written by Python's nbformat.
 * - Kiln: fresh services (nothing of the notebook in main) and a freshly loaded page; timed in the page
 *   from the click on the file in the tree to the first 3 cells' source and output text in the DOM plus
 *   two animation frames (the frame that shows them has started). Main reads, parses and validates the whole
 *   file before it answers; the answer carries the first 20 cells and the page fetches the rest once those
 *   painted. Also printed, untimed against a target: the click to every cell of the notebook in the DOM.
 * - Baseline, in the same run with samples interleaved, the sum of: Python's `nbformat.read` of the same
 *   file (timed inside a warm `/usr/bin/python3`, from the call to its return: parsing and validating),
 *   and a bare page timed the same way as Kiln from a click to the same first 3 cells painted (it fetches
 *   the file from a loopback server, parses it, and renders those cells' source, stream text and image).
 * Target ≤ 2x. Needs the built renderer (`npm run build`). Run: `npm run bench -- open-notebook`.
 */
import type { Page } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { VIEWPORT, launchChromium, serveLoopback, startKilnHost } from '../browser';
import { median, report, type Figure, runWhenMain } from '../support';

const PYTHON = '/usr/bin/python3';
const CELLS = 1000;
const FIRST_CELLS = 3;
const RUNS = Number(process.env.KILN_BENCH_OPEN_RUNS ?? 7);
const TARGET_RATIO = 2;
const HERE = import.meta.dirname;

/** Writes the notebook with nbformat; each cell's source, stream and image say which cell they belong to. */
const MAKE_NOTEBOOK = String.raw`
import base64, random, struct, sys, zlib
import nbformat
from nbformat.v4 import new_notebook, new_code_cell, new_output

def png(seed, side=64):
    rnd = random.Random(seed)
    rows = b"".join(b"\x00" + bytes(rnd.getrandbits(8) for _ in range(side * 3)) for _ in range(side))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    head = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")

cells = []
for i in range(int(sys.argv[2])):
    text = "".join(f"cell_{i}_output line {n} " + "x" * 40 + "\n" for n in range(70))
    image = base64.b64encode(png(i)).decode()
    cells.append(new_code_cell(
        source=f"# cell_{i}_source\nvalues = compute({i})\nplot(values)",
        execution_count=i + 1,
        outputs=[
            new_output("stream", name="stdout", text=text),
            new_output("display_data", data={"image/png": image, "text/plain": "<Figure size 640x480 with 1 Axes>"}),
        ],
    ))
nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbformat.write(nb, sys.argv[1])
`;

/** Answers each "read" line with the milliseconds nbformat.read took. */
const NBFORMAT_READER = String.raw`
import json, sys, time
import nbformat
path = sys.argv[1]
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() != "read":
        break
    start = time.perf_counter()
    nb = nbformat.read(path, as_version=4)
    print(json.dumps((time.perf_counter() - start) * 1000), flush=True)
`;

interface Reader {
  once(): Promise<number>;
  close(): Promise<void>;
}

async function startNbformatReader(file: string): Promise<Reader> {
  const child = spawn(PYTHON, ['-c', NBFORMAT_READER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const nextLine = () =>
    lines.length
      ? Promise.resolve(lines.shift()!)
      : Promise.race([
          new Promise<string>((resolve) => waiting.push(resolve)),
          exited.then(() => Promise.reject(new Error('the nbformat reader exited'))),
        ]);
  if ((await nextLine()) !== 'ready') throw new Error('the nbformat reader did not start');
  return {
    async once() {
      child.stdin.write('read\n');
      return JSON.parse(await nextLine()) as number;
    },
    async close() {
      child.stdin.end('quit\n');
      await exited;
    },
  };
}

/**
 * In the page: clicks `opener` and resolves with the ms until the first cells' source and output text are
 * in the DOM and two frames have started. The same test on both sides; cells are `[aria-label="Cell N"]`.
 */
function timeOpen(page: Page, opener: string): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const shown = () => {
      for (let i = 0; i < ${FIRST_CELLS}; i++) {
        const cell = document.querySelector('[role="group"][aria-label="Cell ' + (i + 1) + '"]');
        const text = cell && cell.textContent;
        if (!text || !text.includes('cell_' + i + '_source') || !text.includes('cell_' + i + '_output line 69')) return false;
      }
      return true;
    };
    const start = performance.now();
    window.__openStart = start;
    const painted = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
    const observer = new MutationObserver(() => {
      if (shown()) { observer.disconnect(); painted(); }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    document.querySelector(${JSON.stringify(opener)}).click();
  })`) as Promise<number>;
}

export async function runOpenNotebookBench(): Promise<Figure> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-open-nb-'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-open-nb-data-'));
  const file = path.join(root, 'big.ipynb');
  execFileSync(PYTHON, ['-c', MAKE_NOTEBOOK, file, String(CELLS)], { stdio: 'inherit' });
  const bytes = (await readFile(file)).length;
  console.log(`open-notebook: ${CELLS} cells, ${(bytes / 2 ** 20).toFixed(1)} MB`);
  const bareHtml = await readFile(path.join(HERE, 'bare.html'));
  const bare = await serveLoopback((req, res) => {
    if (req.url === '/big.ipynb') {
      void readFile(file).then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bareHtml);
  });
  const reader = await startNbformatReader(file);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const kilnSample = async () => {
      const kiln = await startKilnHost(root, dataDir);
      try {
        await page.goto(kiln.url);
        await page.getByRole('treeitem', { name: 'big.ipynb', exact: true }).waitFor();
        const ms = await timeOpen(page, '[role="treeitem"][aria-label="big.ipynb"]');
        await page
          .locator(`[role="group"][aria-label="Cell ${CELLS}"]`)
          .waitFor({ state: 'attached', timeout: 120_000 });
        wholeMounted.push((await page.evaluate('performance.now() - window.__openStart')) as number);
        // Closed once its kernel has started, not mid-start (Jupyter logs a traceback for that); untimed.
        await page
          .getByRole('region', { name: 'big.ipynb' })
          .getByRole('status')
          .filter({ hasText: /^idle$/ })
          .waitFor({ timeout: 120_000 })
          .catch(() => undefined);
        return ms;
      } finally {
        await page.goto('about:blank');
        await kiln.close();
      }
    };
    /** Kiln's click to its last cell in the DOM (every cell arrived and mounted), per sample. */
    const wholeMounted: number[] = [];
    const bareSample = async () => {
      await page.goto(bare.url);
      return timeOpen(page, '#open');
    };
    // The first of each warms caches and JITs; then interleaved, so machine noise hits both alike.
    await kilnSample();
    await bareSample();
    await reader.once();
    const kiln: number[] = [];
    const python: number[] = [];
    const paint: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      kiln.push(await kilnSample());
      python.push(await reader.once());
      paint.push(await bareSample());
    }
    console.log(
      `open-notebook: Kiln, click to all ${CELLS} cells in the DOM, median ${median(wholeMounted.slice(1)).toFixed(0)} ms`,
    );
    console.log(
      `open-notebook: nbformat.read median ${median(python).toFixed(0)} ms, bare page to first cells median ${median(paint).toFixed(0)} ms`,
    );
    return report(
      {
        name: `open-notebook: ${CELLS} cells, ${(bytes / 2 ** 20).toFixed(0)} MB, click to first ${FIRST_CELLS} cells painted (Kiln vs nbformat.read + a bare page), median of ${RUNS}`,
        kiln: median(kiln),
        baseline: median(python.map((ms, i) => ms + paint[i])),
        unit: 'ms',
      },
      { ratio: TARGET_RATIO },
    );
  } finally {
    await browser.close();
    await reader.close();
    await bare.close();
    await rm(root, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, runOpenNotebookBench);
