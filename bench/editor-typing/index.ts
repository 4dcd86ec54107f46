/**
 * Typing in a 5 MB file: the page's main-thread time a key while typing (Monaco's edit and paint, every
 * listener, the app's re-render). Kiln's editor, opened from the tree, against a bare Monaco editor with the same text and Kiln's
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
import { report, runWhenMain } from '../support';

const KEYS = 150;
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

/**
 * Types `KEYS` letters into the focused editor and returns the page's main-thread time per key (Chromium's
 * TaskDuration over the typing): every task a key causes while keys keep coming, Monaco's paint included on both
 * sides. Work that waits for a pause in typing (once per pause, not per key) is not in it.
 */
async function mainThreadMsPerKey(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const taskSeconds = async () =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value;
  const settle = () => page.evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r)))');
  for (let i = 0; i < WARMUP; i++) await page.keyboard.press('a');
  await settle();
  const before = await taskSeconds();
  for (let i = 0; i < KEYS; i++) await page.keyboard.press(i % 2 ? 'b' : 'a');
  await settle();
  const ms = ((await taskSeconds()) - before) * 1000;
  await cdp.detach();
  return ms / KEYS;
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
    const kilnMs = await mainThreadMsPerKey(page);
    await page.screenshot({ path: path.join(os.tmpdir(), 'kiln-bench-typing.png') });

    const barePage = await kiln.browser.newPage({ viewport: VIEWPORT });
    await barePage.goto(bare.url);
    await barePage.waitForFunction('typeof window.openBare === "function"');
    await barePage.evaluate(`window.openBare(${JSON.stringify(text)})`);
    await barePage.bringToFront();
    await barePage.locator('.view-lines').click();
    await barePage.keyboard.press('Control+End');
    const bareMs = await mainThreadMsPerKey(barePage);

    report(
      { name: 'main-thread time a keystroke, 5 MB file', kiln: kilnMs, baseline: bareMs, unit: 'ms' },
      { ratio: 1.5, orOverBaseline: 1 },
    );
  } finally {
    await bare.close();
    await kiln.close();
  }
}

runWhenMain(import.meta.url, runEditorTypingBench);
