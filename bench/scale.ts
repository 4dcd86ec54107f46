/**
 * Start-up on a 200,000-file workspace (20 folders of 10,000) against an empty one, in the same run:
 * from launching the web host to its URL line, and to the first tree rows painted in Chromium. Then,
 * after the watcher has settled on the big workspace, the host's resident memory and inotify watches.
 * Each figure is printed against its target. Needs the build (`npm run bench` builds first).
 */
import { chromium, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/support/chromium';
import { VIEWPORT } from './browser';
import { median } from './support';

const REPO = path.resolve(import.meta.dirname, '..');
const FOLDERS = 20;
const FILES = Number(process.env.KILN_BENCH_SCALE_FILES ?? 200_000);
const RUNS = 5;
const TARGET_RATIO = 1.5;
const TARGET_RSS_MB = 250;

/** `files` files in FOLDERS folders, plus a README at the root so both workspaces have a first row to paint. */
async function makeWorkspace(files: number): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-scale-'));
  await writeFile(path.join(root, 'README.md'), '# bench\n');
  const perFolder = Math.ceil(files / FOLDERS);
  for (let d = 0; d < (files ? FOLDERS : 0); d++) {
    const dir = path.join(root, `shard-${String(d).padStart(2, '0')}`);
    await mkdir(dir);
    for (let i = 0; i < perFolder; i += 1000) {
      await Promise.all(
        Array.from({ length: Math.min(1000, perFolder - i) }, (_, j) =>
          writeFile(path.join(dir, `part-${i + j}.bin`), ''),
        ),
      );
    }
  }
  return root;
}

interface Launched {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the URL line. */
  urlMs: number;
  spawnedAt: number;
}

async function launch(root: string, dataDir: string): Promise<Launched> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [path.join(REPO, 'out/main/web.js'), root, '--port', '0'], {
    env: { ...process.env, KILN_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const match = /Kiln web host: (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`web host exited with ${code}: ${out}`)));
  });
  return { child, url, urlMs: performance.now() - spawnedAt, spawnedAt };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Loads the URL and waits for the tree's first row; ms since the host was spawned. */
async function firstPaint(page: Page, launched: Launched): Promise<number> {
  // A slow first paint is the figure, not a failure.
  await page.goto(launched.url, { timeout: 120_000 });
  await page.getByRole('treeitem', { name: 'README.md' }).waitFor({ timeout: 120_000 });
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  return performance.now() - launched.spawnedAt;
}

/** Inotify watches a process holds, from /proc (what `fs.inotify.max_user_watches` counts). */
async function inotifyWatches(pid: number): Promise<number> {
  let count = 0;
  for (const fd of await readdir(`/proc/${pid}/fdinfo`).catch(() => [])) {
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
    count += info.match(/^inotify wd:/gm)?.length ?? 0;
  }
  return count;
}

async function residentMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Waits until the watch count has not moved for two seconds (the background walk is done). */
async function settle(pid: number): Promise<number> {
  let last = -1;
  let stableSince = performance.now();
  for (;;) {
    const now = await inotifyWatches(pid);
    if (now !== last) {
      last = now;
      stableSince = performance.now();
    } else if (performance.now() - stableSince > 2000) {
      return now;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function verdict(ok: boolean): string {
  return ok ? 'meets target' : 'MISSES target';
}

export async function runScaleBench(): Promise<void> {
  console.log(`scale bench: a one-file workspace vs ${FILES.toLocaleString()} files in ${FOLDERS} folders`);
  const empty = await makeWorkspace(0);
  const big = await makeWorkspace(FILES);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-scale-data-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: VIEWPORT });
  const times = {
    empty: { url: [] as number[], paint: [] as number[] },
    big: { url: [] as number[], paint: [] as number[] },
  };
  try {
    // Interleaved, so machine noise hits both alike.
    for (let run = 0; run < RUNS; run++) {
      for (const [kind, root] of [
        ['empty', empty],
        ['big', big],
      ] as const) {
        const launched = await launch(root, dataDir);
        try {
          times[kind].paint.push(await firstPaint(page, launched));
          times[kind].url.push(launched.urlMs);
          if (kind === 'big' && run === RUNS - 1) {
            const watches = await settle(launched.child.pid!);
            const rss = await residentMb(launched.child.pid!);
            // The workspace's folders (root included), plus the folder of the user's config.yaml, which is hot-reloaded too.
            const folders = (FILES ? FOLDERS + 1 : 1) + 1;
            console.log(
              `scale ${FILES.toLocaleString()} files: inotify watches after settling ${watches} (target: at most the ${folders} folders watched, the user-config folder included): ${verdict(watches <= folders)}`,
            );
            console.log(
              `scale ${FILES.toLocaleString()} files: host RSS after settling ${rss.toFixed(0)} MB (target < ${TARGET_RSS_MB} MB): ${verdict(rss < TARGET_RSS_MB)}`,
            );
          }
        } finally {
          await stop(launched.child);
        }
      }
    }
    for (const [what, key] of [
      ['URL line', 'url'],
      ['first tree rows painted', 'paint'],
    ] as const) {
      const kiln = median(times.big[key]);
      const baseline = median(times.empty[key]);
      const ratio = kiln / baseline;
      console.log(
        `scale start-up to ${what}: ${FILES.toLocaleString()} files ${kiln.toFixed(0)} ms, empty ${baseline.toFixed(0)} ms, ratio ${ratio.toFixed(2)}x (target ≤ ${TARGET_RATIO}x): ${verdict(ratio <= TARGET_RATIO)}`,
      );
    }
  } finally {
    await browser.close();
    await Promise.all([empty, big, dataDir].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
