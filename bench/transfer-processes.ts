import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { openContractSocket } from './contract-client';

/**
 * The processes the upload and download benchmarks time: the real web host and the bare Node servers that are
 * their floor, each in a process of its own (so memory and CPU time read from /proc are that server's alone),
 * and the test file they move.
 */

export const MiB = 1024 * 1024;

export interface BenchServer {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The token the host printed; the bare servers check none. */
  token: string;
}

/** The built web host (`out/main/web.js`, what `npm run serve` runs) on the workspace, in a process of its own. */
export async function startKilnHost(workspace: string, dataDir: string): Promise<BenchServer> {
  const entry = path.join(import.meta.dirname, '../out/main/web.js');
  await stat(entry).catch(() => {
    throw new Error('the transfer benchmarks run the built web host: npm run build first');
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
 * A download URL as the page gets one: a single-use ticket for `rel` asked for over the host's socket. Asked for
 * before a timed download starts, as the page asks when the operator presses Download or a row.
 */
export async function downloadTicketUrl(server: BenchServer, rel: string): Promise<string> {
  const socket = await openContractSocket(server.port, server.token);
  try {
    const reply = await new Promise<{ ok: boolean; value?: { url: string }; error?: { message: string } }>(
      (resolve) => {
        socket.on('message', (data) => resolve(JSON.parse(String(data))));
        socket.send(JSON.stringify({ id: 1, channel: 'download.ticket', args: { path: rel } }));
      },
    );
    if (!reply.ok) throw new Error(`no download ticket: ${reply.error?.message}`);
    return `http://127.0.0.1:${server.port}${reply.value!.url}`;
  } finally {
    socket.close();
  }
}

/** `node -e <source> ...args`: a bare server that prints "bare server on port N" when listening. */
export async function startBareServer(source: string, args: string[]): Promise<BenchServer> {
  const child = spawn(process.execPath, ['-e', source, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(await firstMatch(child, /bare server on port (\d+)/));
  return { child, pid: child.pid!, port, token: 'none' };
}

/** A process's resident memory now, in bytes. */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A process's CPU time so far (user + system, all its threads), from /proc (clock ticks of 10 ms). */
export async function cpuMsOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * A process's read and write system calls so far (every thread, the thread pool's file writes included), from
 * /proc/<pid>/io. Two servers moving the same bytes the same way make about as many; unlike their times, the count
 * does not move with the machine's load, so it shows what each side does per byte whatever the other engineers run.
 */
export async function syscallsOf(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8');
  const count = (field: string) => Number(new RegExp(`^${field}: (\\d+)$`, 'm').exec(io)![1]);
  return count('syscr') + count('syscw');
}

/** Prints each run's two times side by side, in run order: under load, the spread says how far a median goes. */
export function printPairedSamples(kilnMs: number[], floorMs: number[]): void {
  const pairs = kilnMs.map((ms, run) => `${ms.toFixed(0)} / ${floorMs[run].toFixed(0)}`);
  console.log(`samples in run order (ms), Kiln / the floor: ${pairs.join(', ')}`);
}

/** Samples a process's RSS every 25 ms until stopped; resolves the peak seen. */
export function watchPeakRss(pid: number, start: number): { stop(): Promise<number> } {
  let peak = start;
  const sampler = setInterval(() => void rssOf(pid).then((rss) => (peak = Math.max(peak, rss))), 25);
  return {
    async stop() {
      clearInterval(sampler);
      return Math.max(peak, await rssOf(pid));
    },
  };
}

/** A file of `bytes` (a whole number of MiB) with a repeating non-zero pattern. */
export async function writePatternFile(file: string, bytes: number): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(8 * MiB);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
  for (let written = 0; written < bytes; written += chunk.length)
    await handle.write(chunk, 0, Math.min(chunk.length, bytes - written));
  await handle.close();
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

/**
 * Runs a command to its exit under `/usr/bin/time`; resolves its stdout and its CPU time (user + system). On a
 * loaded machine wall times swing with other people's work, CPU time much less: it says what each side costs.
 */
export async function runCounted(command: string, args: string[]): Promise<{ stdout: string; cpuMs: number }> {
  const { stdout, stderr } = await promisify(execFile)('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args]);
  const match = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
  if (!match) throw new Error(`no CPU time from /usr/bin/time: ${stderr}`);
  return { stdout, cpuMs: (Number(match[1]) + Number(match[2])) * 1000 };
}
