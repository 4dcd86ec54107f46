import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { median, report, reportValue, runWhenMain } from './support';
import {
  cpuMsOf,
  downloadTicketUrl,
  MiB,
  printPairedSamples,
  rssOf,
  runCounted,
  startBareServer,
  startKilnHost,
  syscallsOf,
  watchPeakRss,
  writePatternFile,
} from './transfer-processes';

const run = promisify(execFile);
/** 1 GiB by default; KILN_BENCH_DOWNLOAD_MB makes a quick run smaller. */
const SIZE_MB = Number(process.env.KILN_BENCH_DOWNLOAD_MB ?? 1024);
const RUNS = 5;

/**
 * The floor: `node -e BARE_SERVER <file>` answers every request with that file, sent the way Kiln sends one (two
 * 1 MiB buffers used in turn: one read while the other is written), and nothing else: no token, guard or headers.
 */
const BARE_SERVER = `
const [file] = process.argv.slice(1);
const fs = require('node:fs');
const CHUNK = 1024 * 1024;
const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
const server = require('node:http').createServer(async (req, res) => {
  const handle = await fs.promises.open(file);
  res.writeHead(200, { 'content-length': String((await handle.stat()).size) });
  let writing = Promise.resolve();
  for (let turn = 0, at = 0; ; turn ^= 1) {
    const { bytesRead } = await handle.read(buffers[turn], 0, CHUNK, at);
    await writing;
    if (bytesRead === 0) break;
    at += bytesRead;
    writing = new Promise((resolve) => res.write(buffers[turn].subarray(0, bytesRead), resolve));
  }
  await handle.close();
  res.end();
});
server.listen(0, '127.0.0.1', () => console.log('bare server on port ' + server.address().port));
`;

/**
 * Downloads a 1 GiB workspace file from the web host (the built `out/main/web.js` in its own process, as `npm run
 * serve` runs it): `GET /download` with a single-use ticket over loopback HTTP, by curl writing to a file on the same
 * disk, timed from curl's spawn to its exit; against `cp` of the same file on the same disk, spawn to exit. Samples
 * interleaved, all reading a warm page cache, each starting with no dirty pages of another's (`sync` before, not
 * timed); medians of RUNS. Also the host's RSS growth during the downloads, read from /proc, and each server's CPU
 * time (user + system, every thread) and read and write system calls per download.
 *
 * The floor, which the target judges (≤ 1.25x; cp is reported, not judged): curl downloading the same file from a
 * bare Node HTTP server (`BARE_SERVER`, its own process) sending it exactly as Kiln does, with nothing else. What
 * Kiln adds is per download (the ticket checked, the path pinned and opened inside the workspace, its headers),
 * none per byte: the same reads and writes. What the floor costs over cp is loopback HTTP: the
 * file read into the server (one copy), into the socket (two), out of it into curl (three) and into the page cache
 * (four, through stdio in 8 KiB writes: ~130,000 a GiB), where cp's copy_file_range is one copy in the kernel.
 * Also curl from the floor into /dev/null: the transfer with nothing written, a bound no client writing a file beats.
 */
export async function runDownloadBench(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-download-'));
  const workspace = path.join(dir, 'ws');
  const source = path.join(workspace, 'big.bin');
  const host = await startKilnHost(workspace, path.join(dir, 'data'));
  const bare = await startBareServer(BARE_SERVER, [source]);
  try {
    const bytes = SIZE_MB * MiB;
    await writePatternFile(source, bytes);

    // curl stands in for the browser: a client process of its own, as cp is a process of its own.
    // Each run's own single-use ticket, asked for before its clock starts.
    let url = '';
    const bareUrl = `http://127.0.0.1:${bare.port}/big.bin`;
    const curl = (args: string[]) => runCounted('curl', ['--silent', '--show-error', '--fail', ...args]);
    const side = (copy: (to: string) => Promise<{ cpuMs: number }>, pid: number | null) => ({
      copy,
      pid,
      ms: [] as number[],
      /** The server's CPU time (cp: none). */
      cpu: [] as number[],
      /** The server's read and write system calls (cp: none). */
      calls: [] as number[],
      /** The client's CPU time (cp: cp's). */
      clientCpu: [] as number[],
    });
    const sides = {
      kiln: side((to) => curl(['-o', to, url]), host.pid),
      cp: side((to) => runCounted('cp', [source, to]), null),
      floor: side((to) => curl(['-o', to, bareUrl]), bare.pid),
      // The bytes over loopback HTTP and nothing written: what the transfer alone costs, against cp's whole copy.
      floorToNull: side(() => curl(['-o', '/dev/null', bareUrl]), bare.pid),
    };

    const rssBefore = await rssOf(host.pid);
    const peak = watchPeakRss(host.pid, rssBefore);
    // One of each first, so all read a warm cache. The order turns round every run (Kiln first, then last), so no
    // side always follows the same one (cp's 1 GiB deleted, or nothing written).
    for (let i = -1; i < RUNS; i++) {
      const order = Object.values(sides);
      for (const side of i % 2 === 0 ? order : order.reverse()) {
        const target = path.join(dir, 'copy.bin');
        await run('sync');
        if (side === sides.kiln) url = await downloadTicketUrl(host, 'big.bin');
        const cpuBefore = side.pid ? await cpuMsOf(side.pid) : 0;
        const callsBefore = side.pid ? await syscallsOf(side.pid) : 0;
        const started = performance.now();
        const { cpuMs: clientCpu } = await side.copy(target);
        const elapsed = performance.now() - started;
        const cpu = side.pid ? (await cpuMsOf(side.pid)) - cpuBefore : 0;
        const calls = side.pid ? (await syscallsOf(side.pid)) - callsBefore : 0;
        if (side !== sides.floorToNull) {
          if ((await stat(target)).size !== bytes) throw new Error('the copy has the wrong size');
          await rm(target);
        }
        if (i >= 0) {
          side.ms.push(elapsed);
          side.cpu.push(cpu);
          side.calls.push(calls);
          side.clientCpu.push(clientCpu);
        }
      }
    }
    const rssPeak = await peak.stop();
    printPairedSamples(sides.kiln.ms, sides.floor.ms);
    const { kiln, cp, floor, floorToNull } = sides;
    report(
      {
        name: `download a ${SIZE_MB} MiB file from the web host vs cp on the same disk, median of ${RUNS}`,
        kiln: median(kiln.ms),
        baseline: median(cp.ms),
        unit: 'ms',
      },
      null,
    );
    report(
      {
        name: `download a ${SIZE_MB} MiB file from the web host vs from a bare Node HTTP server (the floor)`,
        kiln: median(kiln.ms),
        baseline: median(floor.ms),
        unit: 'ms',
      },
      // Judged against the floor: what Kiln adds to the same transfer. cp (the disk's floor) is reported only.
      { ratio: 1.25 },
    );
    report(
      {
        name: `curl from a bare Node HTTP server (the floor) vs cp, ${SIZE_MB} MiB`,
        kiln: median(floor.ms),
        baseline: median(cp.ms),
        unit: 'ms',
      },
      null,
    );
    report(
      {
        name: `curl from the floor into /dev/null (loopback HTTP alone, nothing written) vs cp, ${SIZE_MB} MiB`,
        kiln: median(floorToNull.ms),
        baseline: median(cp.ms),
        unit: 'ms',
      },
      null,
    );
    reportValue(`web host CPU time for a ${SIZE_MB} MiB download`, median(kiln.cpu), 'ms', null);
    reportValue(`bare Node HTTP server CPU time for a ${SIZE_MB} MiB download`, median(floor.cpu), 'ms', null);
    // The same work, counted: the file's reads and the socket's writes (plus Kiln's few for its ticket and guard).
    report(
      {
        name: `read and write system calls for a ${SIZE_MB} MiB download: web host vs the bare server`,
        kiln: median(kiln.calls),
        baseline: median(floor.calls),
        unit: 'calls',
      },
      null,
    );
    // What each side costs whatever the load: cp's one in-kernel copy against curl's receiving and writing.
    reportValue(`cp CPU time for the same ${SIZE_MB} MiB`, median(cp.clientCpu), 'ms', null);
    reportValue(`curl CPU time downloading ${SIZE_MB} MiB from the web host`, median(kiln.clientCpu), 'ms', null);
    reportValue('web host RSS growth during the downloads', (rssPeak - rssBefore) / MiB, 'MB', {
      max: 100,
      below: true,
    });
  } finally {
    host.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, runDownloadBench);
