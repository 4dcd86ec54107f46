import { execFile, spawnSync } from 'node:child_process';
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

/** Sends `signal` to one process; one that is already gone is not an error. */
function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // expected: already gone.
  }
}

/**
 * Sends `signal` to the process group led by `pid` (a child spawned detached, or a pty's shell), so whatever it
 * started in its group goes too. Windows has no groups: SIGKILL ends the tree with taskkill, other signals the process.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (process.platform !== 'win32') return signalProcess(-pid, signal);
  if (signal === 'SIGKILL')
    spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
  else signalProcess(pid, signal);
}

/** Whether `pid` still runs. A zombie does not: it is dead and only waits for a parent (or an init that may never reap it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    return statFields(pid)[0] === 'Z';
  } catch {
    return false;
  }
}

/** /proc/<pid>/stat after the command name (which may hold spaces and parentheses): state, ppid, pgrp, session, ... */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Processes (Linux /proc) that `matches` accepts by their id, this process excluded; one gone meanwhile is skipped. */
function scanProc(matches: (pid: string) => boolean): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (matches(entry)) found.push(Number(entry));
    } catch {
      // expected: gone meanwhile.
    }
  }
  return found;
}

/** Processes whose /proc `file` holds `needle`. A zombie reads empty: it is dead already. */
function scanProcFor(file: 'cmdline' | 'environ', needle: string): number[] {
  return scanProc((pid) => readFileSync(`/proc/${pid}/${file}`, 'latin1').includes(needle));
}

/**
 * Sends `signal` to every process in the session `leader` leads, the leader excepted (Linux; elsewhere none are
 * found). A terminal's background jobs sit in process groups of their own, out of reach of the shell's group.
 */
export function signalSessionMembers(leader: number, signal: NodeJS.Signals): void {
  if (process.platform !== 'linux') return;
  const members = scanProc((pid) => Number(statFields(pid)[3]) === leader);
  for (const pid of members) if (pid !== leader) signalProcess(pid, signal);
}

/** Live processes whose environment carries `runId` (Linux; elsewhere none can be found this way). */
function processesOfRun(runId: string): number[] {
  return process.platform === 'linux' ? scanProcFor('environ', `${RUN_ID_VARIABLE}=${runId}\0`) : [];
}

/** Process ids whose command line contains `marker` (a unique folder of ours), this process excluded. */
export async function findProcessesByMarker(marker: string): Promise<number[]> {
  if (process.platform === 'linux') return scanProcFor('cmdline', marker);
  return new Promise((resolve) => {
    execFile('pgrep', ['-f', marker], (err, stdout) => {
      if (err) return resolve([]);
      resolve(
        stdout
          .split(/\s+/)
          .filter(Boolean)
          .map(Number)
          .filter((pid) => pid !== process.pid),
      );
    });
  });
}

/**
 * Kills a run as a tree: its process group (it was started in a session of its own), then, round after round,
 * every process still carrying its run id, so a child forked during a round is caught by the next. Synchronous,
 * so it can also run from a process 'exit' handler.
 */
export function killRunTree(pid: number, runId: string): void {
  signalGroup(pid, 'SIGKILL');
  for (let round = 0; round < 50; round++) {
    const left = processesOfRun(runId);
    if (left.length === 0) return;
    for (const straggler of left) signalProcess(straggler, 'SIGKILL');
  }
}

/** Runs still going, killed if this process exits without stopping them (a crash, process.exit). */
const liveRuns = new Map<number, string>();
let exitHookInstalled = false;

/** Kills the run's tree if this process exits while it runs; the returned function forgets it once it ended. */
export function killTreeOnExit(pid: number, runId: string): () => void {
  liveRuns.set(pid, runId);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const [livePid, liveRunId] of liveRuns) killRunTree(livePid, liveRunId);
    });
  }
  return () => liveRuns.delete(pid);
}

async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // Polled: a process that is not our child announces its end to no one.
  while (Date.now() < deadline) {
    if (pids.every((pid) => !isAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pids.every((pid) => !isAlive(pid));
}

/**
 * Stops a detached process group politely (SIGTERM, so Jupyter shuts its kernels down), then by force after
 * `graceMs`, then any straggler whose command line names `marker` (kernels run in sessions of their own).
 */
export async function stopProcessGroup(pid: number, marker: string | null, graceMs = 5000): Promise<void> {
  signalGroup(pid, 'SIGTERM');
  const stragglers = marker ? await findProcessesByMarker(marker) : [];
  if (!(await waitGone([pid, ...stragglers], graceMs))) {
    signalGroup(pid, 'SIGKILL');
    signalProcess(pid, 'SIGKILL');
  }
  await killStragglers(marker);
}

/** Kills every process whose command line names `marker`: politely, then by force. */
export async function killStragglers(marker: string | null): Promise<void> {
  if (!marker) return;
  const left = await findProcessesByMarker(marker);
  for (const pid of left) signalProcess(pid, 'SIGTERM');
  if (!(await waitGone(left, 2000))) for (const pid of left) signalProcess(pid, 'SIGKILL');
  await waitGone(left, 2000);
}
