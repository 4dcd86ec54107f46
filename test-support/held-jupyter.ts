import { execFileSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, killStragglers } from '../main/process';
import { makeTempDir } from './temp-workspace';

/**
 * A `jupyter` that hangs at start-up, as the real one does for many seconds on a loaded machine: it waits on a
 * FIFO nobody writes to, then would run the real Jupyter. Put `dir` first on PATH, or configure `command`.
 * `close` ends whatever a failed test left waiting, and removes the folder.
 */
export async function holdJupyterAtStart(): Promise<{ dir: string; command: string; close: () => Promise<void> }> {
  const jupyter = await findExecutable('jupyter', process.env.PATH);
  if (!jupyter) throw new Error('These tests need Jupyter on PATH');
  const { dir, cleanup } = await makeTempDir('kiln-held-jupyter-');
  const gate = path.join(dir, 'gate');
  execFileSync('mkfifo', [gate]);
  const command = path.join(dir, 'jupyter');
  await writeFile(command, `#!/bin/sh\nread _ < '${gate}'\nexec '${jupyter}' "$@"\n`);
  await chmod(command, 0o755);
  return {
    dir,
    command,
    async close() {
      await killStragglers(dir);
      await cleanup();
    },
  };
}

/** Whether any live process is in process group `pgid` (Linux /proc; a zombie is dead and does not count). */
export function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    // Fields after the command name: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}
