/** What the browser benchmarks share: Kiln's web host on a workspace, a Chromium to load it, and loopback pages for baselines. */
import { chromium, type Browser, type Page } from '@playwright/test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startWebHost } from '../main/hosts/web/server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { trustFolder } from '../main/trust';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/support/chromium';

const REPO = path.resolve(import.meta.dirname, '..');

export const VIEWPORT = { width: 1400, height: 900 };

/** tsx keeps function names with a `__name` helper that a page doesn't have. */
export const NAME_SHIM = 'globalThis.__name = globalThis.__name || ((f) => f)';

export interface KilnInBrowser {
  url: string;
  browser: Browser;
  /** Closes everything and removes the workspace and the data dir. */
  close(): Promise<void>;
}

/** The built renderer (`out/renderer`) served on real services over `root`, and a Chromium to load it. */
export async function startKilnInBrowser(root: string): Promise<KilnInBrowser> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-data-'));
  // Benchmarks run the workspace's own config (the edit bench names a scripted model server).
  await trustFolder(dataDir, root);
  const host = await startKilnHost(root, dataDir);
  const browser = await launchChromium();
  return {
    url: host.url,
    browser,
    async close() {
      await browser.close();
      await host.close();
      await rm(root, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Fresh services (nothing remembered from an earlier host) and the web host serving the built renderer. */
export async function startKilnHost(root: string, dataDir: string): Promise<{ url: string; close(): Promise<void> }> {
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore() });
  const host = await startWebHost({ services, staticDir: path.join(REPO, 'out/renderer') });
  return {
    url: host.url,
    async close() {
      await host.close();
      await services.dispose();
    },
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** A plain HTTP server on 127.0.0.1 (a baseline page needs no app around it). */
export async function serveLoopback(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Main-thread work the page could not split: its long tasks (50 ms or more, from PerformanceObserver). */
export interface LongTasks {
  count: number;
  totalMs: number;
  maxMs: number;
  /** How long the observation lasted. */
  durationMs: number;
}

/** Starts collecting the page's long tasks; work per frame, where animation-frame gaps would floor at 16.7 ms. */
export async function startLongTasks(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__longTasks = [];
    window.__longStart = performance.now();
    window.__longObserver?.disconnect();
    window.__longObserver = new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); });
    window.__longObserver.observe({ type: 'longtask' });
  })()`);
}

export async function stopLongTasks(page: Page): Promise<LongTasks> {
  const { tasks, durationMs } = (await page.evaluate(`(() => {
    for (const e of window.__longObserver.takeRecords()) window.__longTasks.push(e.duration);
    window.__longObserver.disconnect();
    return { tasks: window.__longTasks, durationMs: performance.now() - window.__longStart };
  })()`)) as { tasks: number[]; durationMs: number };
  return { count: tasks.length, totalMs: tasks.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...tasks), durationMs };
}

export function describeLongTasks(label: string, t: LongTasks): string {
  return `  ${label}: ${t.count} long tasks, ${t.totalMs.toFixed(0)} ms of ${t.durationMs.toFixed(0)} ms, longest ${t.maxMs.toFixed(0)} ms`;
}
