import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';

/** Process ids whose command line contains `marker` (a unique folder of ours), excluding this process. */
export async function findProcessesByMarker(marker: string): Promise<number[]> {
  if (process.platform === 'linux') {
    const found: number[] = [];
    const entries = await fs.readdir('/proc').catch(() => [] as string[]);
    for (const entry of entries) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (pid === process.pid) continue;
      const cmdline = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(marker)) found.push(pid);
    }
    return found;
  }
  return new Promise((resolve) => {
    execFile('pgrep', ['-f', marker], (err, stdout) => {
      if (err) return resolve([]);
      resolve(stdout.split(/\s+/).filter(Boolean).map(Number).filter((pid) => pid !== process.pid));
    });
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pids.every((pid) => !isAlive(pid))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return pids.every((pid) => !isAlive(pid));
}

/**
 * Stops a detached process group politely (SIGTERM, so Jupyter shuts its kernels down), then by force,
 * then any straggler whose command line names `marker` (kernels run in sessions of their own).
 */
export async function stopProcessGroup(pgid: number, marker: string | null, graceMs = 5000): Promise<void> {
  if (process.platform !== 'win32') signal(-pgid, 'SIGTERM');
  else signal(pgid, 'SIGTERM');
  const stragglers = async () => (marker ? await findProcessesByMarker(marker) : []);
  if (!(await waitGone([pgid, ...(await stragglers())], graceMs))) {
    if (process.platform !== 'win32') signal(-pgid, 'SIGKILL');
    signal(pgid, 'SIGKILL');
  }
  await killStragglers(marker);
}

/** Kills every process whose command line names `marker`. */
export async function killStragglers(marker: string | null): Promise<void> {
  if (!marker) return;
  const left = await findProcessesByMarker(marker);
  for (const pid of left) signal(pid, 'SIGTERM');
  if (!(await waitGone(left, 2000))) for (const pid of left) signal(pid, 'SIGKILL');
  await waitGone(left, 2000);
}
