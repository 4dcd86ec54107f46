import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWebHost } from '../main/hosts/web/server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { median, report, reportValue } from './support';

const run = promisify(execFile);
/** 1 GiB by default; KILN_BENCH_DOWNLOAD_MB makes a quick run smaller. */
const SIZE_MB = Number(process.env.KILN_BENCH_DOWNLOAD_MB ?? 1024);
const RUNS = 3;
const TARGET_RATIO = 2;

/**
 * Downloads a 1 GiB workspace file from the web host (`GET /download` with the token cookie, over loopback HTTP, by
 * curl writing to a file on the same disk), timed from curl's spawn to its exit;
 * against `cp` of the same file on the same disk, spawn to exit. Samples interleaved, both reading a warm page
 * cache. Also reports how much the host's RSS grew during the downloads (the file is streamed, never held).
 * Every temp file is deleted after.
 */
export async function runDownloadBench(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-download-'));
  const out = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-download-out-'));
  const services = await createServices({
    root,
    dataDir: out,
    prefsStore: new MemoryStore(),
    trash: async () => false,
  });
  const host = await startWebHost({ services, staticDir: out });
  try {
    const source = path.join(root, 'big.bin');
    const chunk = randomBytes(1024 * 1024);
    const file = await open(source, 'w');
    for (let i = 0; i < SIZE_MB; i++) await file.write(chunk);
    await file.close();
    const bytes = SIZE_MB * 1024 * 1024;

    // curl stands in for the browser: a client process of its own, as cp is a process of its own.
    const url = `http://127.0.0.1:${host.port}/download?path=big.bin`;
    const cookie = `Cookie: kiln_token_${host.port}=${host.token}`;
    const viaKiln = (target: string) =>
      run('curl', ['--silent', '--show-error', '--fail', '-H', cookie, '-o', target, url]);
    const viaCp = (target: string) => run('cp', [source, target]);

    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const watch = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
    const kiln: number[] = [];
    const cp: number[] = [];
    try {
      // One of each first, so both read a warm cache.
      for (let i = -1; i < RUNS; i++) {
        for (const [times, copy] of [
          [kiln, viaKiln],
          [cp, viaCp],
        ] as const) {
          const target = path.join(out, 'copy.bin');
          const started = performance.now();
          await copy(target);
          const elapsed = performance.now() - started;
          if ((await stat(target)).size !== bytes) throw new Error('the copy has the wrong size');
          await rm(target);
          if (i >= 0) times.push(elapsed);
        }
      }
    } finally {
      clearInterval(watch);
    }
    report(
      {
        name: `download a ${SIZE_MB} MiB file from the web host vs cp on the same disk, median of ${RUNS}`,
        kiln: median(kiln),
        baseline: median(cp),
        unit: 'ms',
      },
      { ratio: TARGET_RATIO },
    );
    reportValue('host RSS growth during the downloads', (rssPeak - rssBefore) / 1024 / 1024, 'MB', {
      max: 100,
      below: true,
    });
  } finally {
    await host.close();
    await services.dispose();
    await rm(root, { recursive: true, force: true });
    await rm(out, { recursive: true, force: true });
  }
}
