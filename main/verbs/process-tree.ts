import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every run carries this variable with an id of its own. Descendants inherit it even when they leave the run's
 * session and process group (setsid, a double fork that reparents them to init), so a sweep of /proc finds them.
 */
export const RUN_ID_VARIABLE = 'KILN_RUN_ID';

export function newRunId(): string {
  return randomUUID();
}

/** Live processes whose environment carries `run id` (Linux; elsewhere none can be found this way). */
export function processesOfRun(runId: string): number[] {
  if (process.platform !== 'linux') return [];
  const needle = `${RUN_ID_VARIABLE}=${runId}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      // A zombie's environment reads empty; it is already dead and only waits for its parent.
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (environ.includes(needle)) found.push(Number(entry));
  }
  return found;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Kills a run as a tree: its process group (it was started in a session of its own), then, round after round,
 * every process still carrying its run id, so a child forked during a round is caught by the next. Synchronous,
 * so it can also run from a process 'exit' handler.
 */
export function killRunTree(pid: number, runId: string): void {
  if (process.platform === 'win32') {
    spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore' });
    return;
  }
  kill(-pid);
  for (let round = 0; round < 50; round++) {
    const left = processesOfRun(runId);
    if (left.length === 0) return;
    left.forEach(kill);
  }
}
