/**
 * Typing in a 5 MB file: the main-thread time of each key, from its keydown to the end of the work it queues
 * (Monaco's edit, every listener, and the app's re-render the edit schedules), Monaco's own paint left out on
 * both sides. Kiln's editor, opened from the tree, against a bare Monaco editor with the same text and Kiln's
 * large-file options, in the same run and browser. Before this bench's change Kiln read the model's whole text
 * on every key (~5 MB copied per key). Target ≤ 1.5x, or within 1 ms of the bare editor.
 * Needs the built app (`npm run build`). Run: `npm run bench -- editor-typing`.
 */
import type { Page } from '@playwright/test';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serveBarePage } from '../edit-diff';
import { VIEWPORT, startKilnInBrowser } from '../browser';
import { median, report, runWhenMain } from '../support';

const KEYS = 60;
const WARMUP = 10;
const FILE = 'big.py';

function bigText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `value_${i} = compute(${i}, scale=${i % 7})  # step ${i}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

/** Types `KEYS` letters into the focused editor; each key's time from keydown to the end of the work it queued. */
async function timeKeys(page: Page): Promise<number[]> {
  await page.evaluate(`(() => {
    window.__keyTimes = [];
    // Two hops through the task queue from the keydown: the key's own input handling runs in the keydown's task,
    // and the second hop comes after the tasks that work queued (React's render).
    addEventListener('keydown', () => {
      const start = performance.now();
      const channel = new MessageChannel();
      let hops = 0;
      channel.port1.onmessage = () => {
        if (++hops < 2) return channel.port2.postMessage(null);
        window.__keyTimes.push(performance.now() - start);
        channel.port1.close();
      };
      channel.port2.postMessage(null);
    }, true);
  })()`);
  for (let i = 0; i < WARMUP + KEYS; i++) {
    await page.keyboard.press(i % 2 ? 'b' : 'a');
    await page.waitForFunction((n) => (window as unknown as { __keyTimes: number[] }).__keyTimes.length > n, i);
  }
  const times = (await page.evaluate('window.__keyTimes')) as number[];
  return times.slice(WARMUP);
}

export async function runEditorTypingBench(): Promise<void> {
  const text = bigText(5 * 1024 * 1024);
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-typing-'));
  await writeFile(path.join(root, FILE), text);
  const kiln = await startKilnInBrowser(root);
  const bare = await serveBarePage(new Map(), path.join(import.meta.dirname, 'bare'));
  try {
    const page = await kiln.browser.newPage({ viewport: VIEWPORT });
    await page.goto(kiln.url);
    await page.getByRole('treeitem', { name: FILE }).click();
    await page.locator('.code-editor .view-lines').click();
    await page.keyboard.press('Control+End');
    const kilnTimes = await timeKeys(page);
    await page.screenshot({ path: path.join(os.tmpdir(), 'kiln-bench-typing.png') });

    const barePage = await kiln.browser.newPage({ viewport: VIEWPORT });
    await barePage.goto(bare.url);
    await barePage.waitForFunction('typeof window.openBare === "function"');
    await barePage.evaluate(`window.openBare(${JSON.stringify(text)})`);
    await barePage.locator('.view-lines').click();
    await barePage.keyboard.press('Control+End');
    const bareTimes = await timeKeys(barePage);

    report(
      { name: 'keystroke in a 5 MB file (median)', kiln: median(kilnTimes), baseline: median(bareTimes), unit: 'ms' },
      { ratio: 1.5, orOverBaseline: 1 },
    );
  } finally {
    await bare.close();
    await kiln.close();
  }
}

runWhenMain(import.meta.url, runEditorTypingBench);
