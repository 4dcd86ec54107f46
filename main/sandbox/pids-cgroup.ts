import { accessSync, constants as fsConstants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../log';

const log = createLogger('sandbox.cgroup');

/**
 * A pids cgroup for one run, where this process may make one (root, or a delegated cgroup). It is what caps a
 * root caller's processes: the kernel does not apply RLIMIT_NPROC to root, even inside a user namespace.
 */
export interface PidsCgroup {
  /** The `cgroup.procs` file a process writes its pid to, to join before it starts anything. */
  readonly procsFile: string;
  /** Whether a fork was refused by the cap during the run. */
  maxHit(): Promise<boolean>;
  /** Removes the cgroup once it is empty. */
  dispose(): Promise<void>;
}

/** Where this process's pids cgroup is: cgroup v1's pids hierarchy, else the unified one. */
function pidsParents(): string[] {
  let text: string;
  try {
    // Synchronous, as every call on the run's way here: a few bytes of procfs, where a thread-pool hop under load
    // waits milliseconds for its turn.
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return [];
  }
  const parents: string[] = [];
  for (const line of text.split('\n')) {
    const [, controllers, where] = line.split(':');
    if (where === undefined) continue;
    if (controllers.split(',').includes('pids')) parents.push(path.join('/sys/fs/cgroup/pids', where));
    else if (controllers === '') parents.push(path.join('/sys/fs/cgroup', where));
  }
  // v1's pids hierarchy first: the unified one accepts no process in a parent that has controllers enabled.
  return parents.sort((a) => (a.startsWith('/sys/fs/cgroup/pids') ? -1 : 1));
}

/** Whether the cap refused a fork (its `max` event count), read synchronously: one small sysfs file. */
function maxEventsSeen(dir: string): boolean {
  try {
    const match = /^max (\d+)/m.exec(readFileSync(path.join(dir, 'pids.events'), 'utf8'));
    return match ? Number(match[1]) > 0 : false;
  } catch {
    return false;
  }
}

export const RUN_CGROUP_PREFIX = 'kiln-run-';

/**
 * Removes runs' cgroups a killed Kiln left behind. One in use is not empty (rmdir refuses it); a young one may be
 * another Kiln's, made a moment before its run joins it, so only those older than a minute go.
 */
export async function sweepStaleRunCgroups(minAgeMs = 60_000): Promise<void> {
  if (process.platform !== 'linux') return;
  for (const parent of pidsParents()) {
    const names = await fs
      .readdir(parent)
      .catch(log.caught('a pids cgroup folder cannot be read (gone, or not ours); nothing to sweep', [] as string[]));
    await Promise.all(
      names
        .filter((name) => name.startsWith(RUN_CGROUP_PREFIX))
        .map(async (name) => {
          const dir = path.join(parent, name);
          const info = await fs.stat(dir).catch(log.caught('a run cgroup went away before it was swept', null));
          if (info && Date.now() - info.mtimeMs >= minAgeMs)
            await fs
              .rmdir(dir)
              .catch(
                log.caught(
                  'a stale run cgroup could not be removed (still has processes); the next sweep tries again',
                  undefined,
                ),
              );
        }),
    );
  }
}

/**
 * Makes a pids cgroup capped at `max` (its name starts with RUN_CGROUP_PREFIX), or null where this process cannot.
 * Made with synchronous calls: three on cgroupfs, each microseconds, on every sandboxed run's way to its start.
 */
export async function createPidsCgroup(name: string, max: number): Promise<PidsCgroup | null> {
  if (process.platform !== 'linux') return null;
  for (const parent of pidsParents()) {
    const dir = path.join(parent, name);
    try {
      mkdirSync(dir);
    } catch {
      continue;
    }
    try {
      writeFileSync(path.join(dir, 'pids.max'), String(max));
      accessSync(path.join(dir, 'cgroup.procs'), fsConstants.W_OK);
    } catch {
      await fs
        .rmdir(dir)
        .catch(
          log.caught('a run cgroup that could not be set up could not be removed; the stale sweep takes it', undefined),
        );
      continue;
    }
    return {
      procsFile: path.join(dir, 'cgroup.procs'),
      maxHit: async () => maxEventsSeen(dir),
      dispose: async () => {
        // The last processes may take a moment to be reaped after the namespace died.
        for (let attempt = 0; attempt < 50; attempt++) {
          try {
            await fs.rmdir(dir);
            return;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      },
    };
  }
  return null;
}
