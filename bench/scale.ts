/**
 * Start-up on a 200,000-file workspace (20 folders of 10,000) against an empty one, in the same run:
 * from launching the web host to its URL line, and to the first tree rows painted in Chromium. Then,
 * once the host reports its background walk of the big workspace done (`watch.walked`), the host's
 * resident memory and inotify watches. Start-up is timed from spawning `out/main/web.js` to the URL line
 * on its stdout, and to the tree's README row in the DOM plus two animation frames. Each figure is
 * printed against its target. Needs the build (`npm run bench` builds first).
 */
import { chromium, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/support/chromium';
import { VIEWPORT } from './browser';
import { openContractSocket } from './contract-client';
import { median, report, reportValue } from './support';

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

/**
 * Waits for the host to report its background walk finished: `watch.walked`, or `walked` on `watch.status`
 * when the walk ended before this asked.
 */
async function walkEnd(launched: Launched): Promise<void> {
  const url = new URL(launched.url);
  const socket = await openContractSocket(Number(url.port), url.searchParams.get('token') ?? '', url.host);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { id?: number; value?: { walked: boolean }; event?: string };
        if (message.event === 'watch.walked' || (message.id === 1 && message.value?.walked)) resolve();
      });
      // Listening first, then asking: the walk may end either before the answer or after it.
      socket.send(JSON.stringify({ id: 1, channel: 'watch.status', args: {} }));
    });
  } finally {
    socket.close();
  }
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
            await walkEnd(launched);
            const watches = await inotifyWatches(launched.child.pid!);
            const rss = await residentMb(launched.child.pid!);
            // The workspace's folders (root included), plus the folder of the user's config.yaml, which is hot-reloaded too.
            const folders = (FILES ? FOLDERS + 1 : 1) + 1;
            reportValue(
              `scale ${FILES.toLocaleString()} files: inotify watches once the walk is done (at most the ${folders} folders, the user-config folder included)`,
              watches,
              'watches',
              { max: folders },
            );
            reportValue(`scale ${FILES.toLocaleString()} files: host RSS once the walk is done`, rss, 'MB', {
              max: TARGET_RSS_MB,
              below: true,
            });
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
      report(
        {
          name: `scale start-up to ${what}: ${FILES.toLocaleString()} files vs an empty workspace, median of ${RUNS}`,
          kiln,
          baseline,
          unit: 'ms',
        },
        { ratio: TARGET_RATIO },
      );
    }
  } finally {
    await browser.close();
    await Promise.all([empty, big, dataDir].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
