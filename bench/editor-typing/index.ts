/**
 * Typing in a 5 MB file: the page's main-thread CPU time a key while typing (Monaco's edit and paint, every
 * listener, the app's re-render). Kiln's editor, opened from the tree, against a bare Monaco editor with the same
 * text and Kiln's own options, in the same run and browser. Kiln once read the model's whole text on every key;
 * now only after a pause in typing. Target ≤ 1.5x, or within 1 ms of the bare editor.
 * Needs the built app (`npm run build`). Run: `npm run bench -- editor-typing`.
 */
import type { Page } from '@playwright/test';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchTexts, serveBarePage } from '../edit-diff';
import { VIEWPORT, startKilnInBrowser } from '../browser';
import { median, report, runWhenMain } from '../support';

/** Kiln and the bare editor take turns, a batch of keys each, so the machine's load falls on both alike. */
const ROUNDS = 7;
const KEYS_A_BATCH = 20;
const FILE = 'big.py';

/**
 * The page's main-thread CPU time (Chromium's ThreadTime) a key over `keys` letters typed into its focused editor:
 * every task a key causes while keys keep coming, Monaco's paint included on both sides. Work that waits for a
 * pause in typing (once a pause, not a key) is not in it.
 */
async function msPerKey(page: Page, keys: number): Promise<number> {
  await page.bringToFront();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const threadSeconds = async () =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')!.value;
  const settle = () => page.evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r)))');
  await settle();
  const before = await threadSeconds();
  for (let i = 0; i < keys; i++) await page.keyboard.press(i % 2 ? 'b' : 'a');
  await settle();
  const ms = ((await threadSeconds()) - before) * 1000;
  await cdp.detach();
  return ms / keys;
}

export async function runEditorTypingBench(): Promise<void> {
  const text = benchTexts(5 * 1024 * 1024 + 1024).original;
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

    const barePage = await kiln.browser.newPage({ viewport: VIEWPORT });
    await barePage.goto(bare.url);
    await barePage.waitForFunction('typeof window.openBare === "function"');
    await barePage.evaluate(`window.openBare(${JSON.stringify(text)})`);
    await barePage.locator('.view-lines').click();
    await barePage.keyboard.press('Control+End');

    // The first round warms both up.
    const kilnMs: number[] = [];
    const bareMs: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const k = await msPerKey(page, KEYS_A_BATCH);
      const b = await msPerKey(barePage, KEYS_A_BATCH);
      if (round === 0) continue;
      kilnMs.push(k);
      bareMs.push(b);
    }
    await page.screenshot({ path: path.join(os.tmpdir(), 'kiln-bench-typing.png') });
    report(
      { name: 'main-thread time a keystroke, 5 MB file', kiln: median(kilnMs), baseline: median(bareMs), unit: 'ms' },
      { ratio: 1.5, orOverBaseline: 1 },
    );
  } finally {
    await bare.close();
    await kiln.close();
  }
}

runWhenMain(import.meta.url, runEditorTypingBench);
