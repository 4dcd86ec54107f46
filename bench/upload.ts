import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
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
 * disk), against `cp` of the same file on the same disk; and how much the host's resident memory grows meanwhile.
 * The host runs in its own process (this file, started with `--upload-host`), so its memory is its own.
 */
export async function runUploadBench(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-upload-'));
  const workspace = path.join(dir, 'ws');
  const source = path.join(dir, 'big.bin');
  const host = await startHost(workspace, dir);
  try {
    await writeBigFile(source);
    // Both sides read a file the page cache already holds, and write to the same disk; interleaved, best of
    // RUNS each, so a burst of other load on a shared machine does not decide the ratio.
    let cpMs = Infinity;
    let upMs = Infinity;
    let hostCpuMs = Infinity;
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

      const sampler = setInterval(() => void rssOf(host.pid).then((rss) => (peak = Math.max(peak, rss))), 25);
      const upStart = performance.now();
      const cpuBefore = await cpuMsOf(host.pid);
      await put(host.port, host.token, `big-${run}.bin`, source);
      upMs = Math.min(upMs, performance.now() - upStart);
      hostCpuMs = Math.min(hostCpuMs, (await cpuMsOf(host.pid)) - cpuBefore);
      clearInterval(sampler);
      peak = Math.max(peak, await rssOf(host.pid));
      const written = await stat(path.join(workspace, `big-${run}.bin`));
      if (written.size !== FILE_BYTES) throw new Error(`uploaded ${written.size} bytes of ${FILE_BYTES}`);
      await rm(path.join(workspace, `big-${run}.bin`));
    }

    report({ name: 'upload 1 GB through the web host vs cp', kiln: upMs, baseline: cpMs, unit: 'ms' }, { ratio: 3 });
    // For reading the ratio on a loaded machine: the host's own CPU time (user + system) for the upload.
    reportValue('web host CPU time for a 1 GB upload', hostCpuMs, 'ms', null);
    reportValue('web host RSS growth during a 1 GB upload', (peak - before) / MiB, 'MB', { max: 100, below: true });
  } finally {
    host.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

async function writeBigFile(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(8 * MiB);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
  for (let written = 0; written < FILE_BYTES; written += chunk.length) await handle.write(chunk);
  await handle.close();
}

/** One PUT, its body streamed from disk as a browser streams a File. */
function put(port: number, token: string, target: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      `http://127.0.0.1:${port}${UPLOAD_ENDPOINT}?path=${encodeURIComponent(target)}`,
      { method: 'PUT', headers: { cookie: `kiln_token_${port}=${token}`, 'content-length': String(FILE_BYTES) } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk));
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`upload answered ${res.statusCode}: ${body}`)),
        );
      },
    );
    req.on('error', reject);
    createReadStream(file, { highWaterMark: MiB }).pipe(req);
  });
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

async function startHost(
  workspace: string,
  dataDir: string,
): Promise<{ child: ReturnType<typeof spawn>; pid: number; port: number; token: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, '--upload-host', workspace, dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`the bench host exited with ${code}`)));
  });
  const { port, token } = JSON.parse(line) as { port: number; token: string };
  return { child, pid: child.pid!, port, token };
}

/** The host side: the real services and web host on the workspace, printing its port and token. */
async function serveHost(workspace: string, dataDir: string): Promise<void> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { MemoryStore } = await import('../main/prefs');
  const { createServices } = await import('../main/services');
  const { startWebHost } = await import('../main/hosts/web/server');
  await mkdir(workspace, { recursive: true });
  const staticDir = path.join(dataDir, 'static');
  await mkdir(staticDir, { recursive: true });
  await writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>Kiln</title>');
  const services = await createServices({
    root: workspace,
    dataDir: path.join(dataDir, 'data'),
    prefsStore: new MemoryStore(),
    trash: async () => false,
  });
  const host = await startWebHost({ services, staticDir });
  process.stdout.write(`${JSON.stringify({ port: host.port, token: host.token })}\n`);
  process.on(
    'SIGTERM',
    () =>
      void host
        .close()
        .then(() => services.dispose())
        .finally(() => process.exit(0)),
  );
}

const hostAt = process.argv.indexOf('--upload-host');
if (hostAt >= 0) void serveHost(process.argv[hostAt + 1], process.argv[hostAt + 2]);
else runWhenMain(import.meta.url, runUploadBench);
