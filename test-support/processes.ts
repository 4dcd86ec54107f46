import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Alive and not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Live processes working in `dir`, by their pids out here: a sandboxed run's processes live in a PID namespace of
 * their own, so the pids they print mean nothing outside. Every process of a run starts in the workspace root.
 */
export function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir) && isRunning(Number(entry))) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Agent code that forks 10,000 sleepers, then says so: a sandbox's process cap must stop it before it prints. */
export const FORK_BOMB_PY = [
  'import os, time',
  'for i in range(10000):',
  '    if os.fork() == 0:',
  '        time.sleep(60)',
  '        os._exit(0)',
  'print("forked them all")',
].join('\n');
