import { execFile, spawn } from 'node:child_process';
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
/** The floor: `node -e BARE_SERVER <file>` answers every request with that file, read 1 MiB at a time. */
const BARE_SERVER = `
const [file] = process.argv.slice(1);
const fs = require('node:fs');
const server = require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-length': String(fs.statSync(file).size) });
  fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
});
server.listen(0, '127.0.0.1', () => console.log('bare server on port ' + server.address().port));
`;

/**
 * Downloads a 1 GiB workspace file from the web host (`GET /download` with the token cookie, over loopback HTTP, by
 * curl writing to a file on the same disk), timed from curl's spawn to its exit; against `cp` of the same file on
 * the same disk, spawn to exit. Samples interleaved, all reading a warm page cache, each starting with no dirty pages
 * of another's. Also reports how much the host's RSS grew during the downloads (the file is streamed, never held).
 * Every temp file is deleted after.
 *
 * The floor, reported beside: curl downloading the same file from a bare Node HTTP server (`BARE_SERVER`, plain
 * JavaScript in a process of its own) that streams it with the same 1 MiB reads and nothing else (no token, guard or Kiln headers). What the floor costs
 * over cp is loopback HTTP (each byte copied into the socket, out of it and into the page cache) and curl's own
 * writing (through stdio, 4-12 KiB a call: ~130,000 calls a GiB), which cp's in-kernel copy skips. A Node client
 * writing 4 MiB at a time, tried instead, was no faster.
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
  // Its own process, so the host's RSS below is the host's alone.
  const bare = spawn(process.execPath, ['-e', BARE_SERVER, path.join(root, 'big.bin')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const barePort = await new Promise<number>((resolve, reject) => {
    let said = '';
    bare.stdout.on('data', (chunk: Buffer) => {
      said += chunk;
      const match = /bare server on port (\d+)/.exec(said);
      if (match) resolve(Number(match[1]));
    });
    bare.once('exit', (code) => reject(new Error(`the bare server exited with ${code}: ${said}`)));
  });
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
    const bareUrl = `http://127.0.0.1:${barePort}/big.bin`;
    const viaKiln = (target: string) =>
      run('curl', ['--silent', '--show-error', '--fail', '-H', cookie, '-o', target, url]);
    const viaBare = (target: string) => run('curl', ['--silent', '--show-error', '--fail', '-o', target, bareUrl]);
    const viaCp = (target: string) => run('cp', [source, target]);

    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const watch = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
    const kiln: number[] = [];
    const cp: number[] = [];
    const floor: number[] = [];
    try {
      // One of each first, so all read a warm cache.
      for (let i = -1; i < RUNS; i++) {
        for (const [times, copy] of [
          [kiln, viaKiln],
          [cp, viaCp],
          [floor, viaBare],
        ] as const) {
          const target = path.join(out, 'copy.bin');
          // Each side starts with no dirty pages of another's to write back (the kernel throttles writers by them).
          await run('sync');
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
    report(
      {
        name: `download a ${SIZE_MB} MiB file from the web host vs from a bare Node HTTP server (the floor)`,
        kiln: median(kiln),
        baseline: median(floor),
        unit: 'ms',
      },
      null,
    );
    report(
      {
        name: `curl from a bare Node HTTP server (the floor) vs cp, ${SIZE_MB} MiB`,
        kiln: median(floor),
        baseline: median(cp),
        unit: 'ms',
      },
      null,
    );
    reportValue('host RSS growth during the downloads', (rssPeak - rssBefore) / 1024 / 1024, 'MB', {
      max: 100,
      below: true,
    });
  } finally {
    bare.kill('SIGTERM');
    await host.close();
    await services.dispose();
    await rm(root, { recursive: true, force: true });
    await rm(out, { recursive: true, force: true });
  }
}
