import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { UPLOAD_ENDPOINT } from '../shared/contract';
import { report, reportValue, runWhenMain } from './support';

const FILE_BYTES = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;
const RUNS = 2;

/**
 * Upload of a 1 GB file through the web host's upload endpoint (the bytes a browser's PUT sends, streamed from
 * disk by a client process, `PUT_CLIENT`), timed by the client from its request to the host's answer (the file whole
 * in place; the client's own start-up left out, as a browser is running already), against `cp` of the same
 * file on the same disk, spawn to exit; and how much the host's resident memory grows meanwhile. The host runs in
 * its own process (the built `out/main/web.js`, as `npm run serve` runs it), so its memory and CPU time are its own.
 *
 * The floor, reported beside: a bare Node HTTP server (`BARE_SERVER`, its own process too) that pipes the same
 * PUT into a file on the same disk and answers, with nothing else: no token, no path guard, no temp and rename,
 * no change feed. What Kiln costs above it is Kiln's; what the floor costs above cp is loopback HTTP through
 * Node (socket reads of 64 KiB, each byte copied out of the socket and into the page cache), which cp's
 * in-kernel copy skips.
 */
export async function runUploadBench(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-upload-'));
  const workspace = path.join(dir, 'ws');
  const bareDir = path.join(dir, 'bare');
  const source = path.join(dir, 'big.bin');
  const host = await startKiln(workspace, path.join(dir, 'data'));
  const bare = await startBare(bareDir);
  try {
    await writeBigFile(source);
    // All sides read a file the page cache already holds, and write to the same disk; interleaved, best of
    // RUNS each, so a burst of other load on a shared machine does not decide the ratio.
    let cpMs = Infinity;
    let upMs = Infinity;
    let bareMs = Infinity;
    let hostCpuMs = Infinity;
    let bareCpuMs = Infinity;
    const before = await rssOf(host.pid);
    let peak = before;
    const flush = () => promisify(execFile)('sync');
    for (let run = 0; run < RUNS; run++) {
      // Each side starts with no dirty pages of the other's to write back (the kernel throttles writers by them).
      await flush();
      const cpStart = performance.now();
      await promisify(execFile)('cp', [source, path.join(dir, 'cp-copy.bin')]);
      cpMs = Math.min(cpMs, performance.now() - cpStart);
      await rm(path.join(dir, 'cp-copy.bin'));
      await flush();

      const bareCpuBefore = await cpuMsOf(bare.pid);
      bareMs = Math.min(bareMs, await put(bare.port, bare.token, `big-${run}.bin`, source));
      bareCpuMs = Math.min(bareCpuMs, (await cpuMsOf(bare.pid)) - bareCpuBefore);
      await checkSize(path.join(bareDir, `big-${run}.bin`));
      await flush();

      const sampler = setInterval(() => void rssOf(host.pid).then((rss) => (peak = Math.max(peak, rss))), 25);
      const cpuBefore = await cpuMsOf(host.pid);
      upMs = Math.min(upMs, await put(host.port, host.token, `big-${run}.bin`, source));
      hostCpuMs = Math.min(hostCpuMs, (await cpuMsOf(host.pid)) - cpuBefore);
      clearInterval(sampler);
      peak = Math.max(peak, await rssOf(host.pid));
      await checkSize(path.join(workspace, `big-${run}.bin`));
    }

    report({ name: 'upload 1 GB through the web host vs cp', kiln: upMs, baseline: cpMs, unit: 'ms' }, { ratio: 3 });
    report(
      {
        name: 'upload 1 GB through the web host vs a bare Node HTTP server (the floor)',
        kiln: upMs,
        baseline: bareMs,
        unit: 'ms',
      },
      null,
    );
    report({ name: 'bare Node HTTP server receiving 1 GB vs cp', kiln: bareMs, baseline: cpMs, unit: 'ms' }, null);
    // For reading the ratios on a loaded machine: each server's own CPU time (user + system) for the upload.
    reportValue('web host CPU time for a 1 GB upload', hostCpuMs, 'ms', null);
    reportValue('bare Node HTTP server CPU time for a 1 GB upload', bareCpuMs, 'ms', null);
    reportValue('web host RSS growth during a 1 GB upload', (peak - before) / MiB, 'MB', { max: 100, below: true });
  } finally {
    host.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

/** The whole file arrived; then it goes, so the disk holds one copy at a time. */
async function checkSize(file: string): Promise<void> {
  const written = await stat(file);
  if (written.size !== FILE_BYTES) throw new Error(`uploaded ${written.size} bytes of ${FILE_BYTES}`);
  await rm(file);
}

async function writeBigFile(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(8 * MiB);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
  for (let written = 0; written < FILE_BYTES; written += chunk.length) await handle.write(chunk);
  await handle.close();
}

/**
 * The client: `node -e PUT_CLIENT <url> <cookie> <file>` PUTs the file, its body streamed from disk in 1 MiB reads
 * as a browser streams a File, and prints the milliseconds from its request to the server's answer. A small process
 * of its own, as a browser's network process is: run inside this bench's large process, every full garbage
 * collection that its gigabyte of buffers sets off would be paid on the client's side (it was 3-5x slower there).
 */
const PUT_CLIENT = `
const [url, cookie, file] = process.argv.slice(1);
const fs = require('node:fs');
const size = fs.statSync(file).size;
const started = performance.now();
const req = require('node:http').request(url, { method: 'PUT', headers: { cookie, 'content-length': String(size) } }, (res) => {
  let body = '';
  res.on('data', (chunk) => (body += chunk));
  res.on('end', () => {
    if (res.statusCode !== 200) {
      console.error('upload answered ' + res.statusCode + ': ' + body);
      process.exit(2);
    }
    process.stdout.write(String(performance.now() - started));
  });
});
req.on('error', (err) => {
  console.error(err.message);
  process.exit(3);
});
fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(req);
`;

/** One upload by the client process; resolves the milliseconds it took from request to answer. */
async function put(port: number, token: string, target: string, file: string): Promise<number> {
  const url = `http://127.0.0.1:${port}${UPLOAD_ENDPOINT}?path=${encodeURIComponent(target)}`;
  const { stdout } = await promisify(execFile)(process.execPath, [
    '-e',
    PUT_CLIENT,
    url,
    `kiln_token_${port}=${token}`,
    file,
  ]);
  return Number(stdout);
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A process's CPU time so far (user + system), from /proc (clock ticks of 10 ms). */
async function cpuMsOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface BenchServer {
  child: ChildProcess;
  pid: number;
  port: number;
  token: string;
}

/** The built web host (`out/main/web.js`, what `npm run serve` runs) on the workspace, in a process of its own. */
async function startKiln(workspace: string, dataDir: string): Promise<BenchServer> {
  const entry = path.join(import.meta.dirname, '../out/main/web.js');
  await stat(entry).catch(() => {
    throw new Error('bench upload runs the built web host: npm run build first');
  });
  await mkdir(workspace, { recursive: true });
  const child = spawn(process.execPath, [entry, workspace, '--port', '0'], {
    env: { ...process.env, KILN_DATA_DIR: dataDir, XDG_DATA_HOME: path.join(dataDir, 'xdg-data') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = new URL(await firstMatch(child, /Kiln web host: (\S+)/));
  return { child, pid: child.pid!, port: Number(url.port), token: url.searchParams.get('token')! };
}

/**
 * The floor: a bare Node HTTP server (plain JavaScript, like the built host) that pipes each PUT's body into a file
 * of that name in a folder, through a write stream with the web host's 4 MiB buffer, and answers when it is
 * written. Nothing else: no token, guard, temp file or change feed.
 */
const BARE_SERVER = `
const [dir] = process.argv.slice(1);
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
require('node:fs').mkdirSync(dir, { recursive: true });
const server = require('node:http').createServer((req, res) => {
  const name = path.basename(new URL(req.url, 'http://x').searchParams.get('path'));
  const file = require('node:fs').createWriteStream(path.join(dir, name), { highWaterMark: 4 * 1024 * 1024 });
  pipeline(req, file).then(() => res.writeHead(200).end('{}'), (err) => res.writeHead(500).end(err.message));
});
server.listen(0, '127.0.0.1', () => console.log('bare server on port ' + server.address().port));
`;

async function startBare(dir: string): Promise<BenchServer> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(await firstMatch(child, /bare server on port (\d+)/));
  return { child, pid: child.pid!, port, token: 'none' };
}

function firstMatch(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}: ${out}`)));
  });
}

runWhenMain(import.meta.url, runUploadBench);
