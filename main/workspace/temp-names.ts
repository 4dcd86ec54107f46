import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../log';
import { isAlive } from '../process';
import type { PathGuard } from './guard';

const log = createLogger('workspace.temps');

export const TEMP_PREFIX = '.kiln-';
/** A trash holder's mark: what it holds is the operator's, never a partial write. */
export const TRASH_MARK = 'trash-';
const TEMP_NAME = /^\.kiln-(trash-)?(?:(\d+)-)?[0-9a-f]{12}\.tmp$/;

/**
 * Temp names carry the writer's pid, so a later start can tell a dead writer's leftovers from live work.
 * A trash holder is marked: what it holds is the operator's, never a partial write.
 */
export function tempName(mark = ''): string {
  return `${TEMP_PREFIX}${mark}${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

/** One of Kiln's own temp names (a save, copy or trash holder in progress): never an entry anyone shows. */
export function isKilnTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

function isStaleTemp(name: string): boolean {
  const match = TEMP_NAME.exec(name);
  if (!match) return false;
  const pid = Number(match[2]);
  if (!match[2] || pid === process.pid) return !match[2];
  return !isAlive(pid);
}

/** What the sweep needs of a workspace: its root, its guard, and a way to bring a trash holder's entry back. */
export interface SweepTarget {
  root: string;
  guard: PathGuard;
  /** Moves what a dead Kiln's trash holder still holds back into the workspace. */
  recoverFromHolder(holderRel: string): Promise<void>;
}

/**
 * Removes temp files that a killed Kiln left behind (a save or copy cut short). Runs in the background
 * at start; a temp whose writer is still alive (another Kiln process on this workspace) is left alone.
 */
export async function sweepStaleTemps(
  target: SweepTarget,
  signal?: AbortSignal,
  skipFolder: (rel: string) => boolean = () => false,
): Promise<string[]> {
  const removed: string[] = [];
  const pending = [target.root];
  while (pending.length && !signal?.aborted) {
    const dir = pending.pop()!;
    const dirents = await fs
      .readdir(dir, { withFileTypes: true })
      .catch(log.caught('a folder went away or cannot be read during the temp sweep; skipped', []));
    for (const dirent of dirents) {
      const abs = path.join(dir, dirent.name);
      if (isStaleTemp(dirent.name)) {
        const rel = target.guard.relative(abs);
        // A trash holder still holding its entry: Kiln died before the trash took it, or the OS trash
        // restored it there. It is the operator's; bring it back to the root instead of removing it.
        if (dirent.name.startsWith(TEMP_PREFIX + TRASH_MARK))
          await target
            .recoverFromHolder(rel)
            .catch(log.caught('a trash holder could not be emptied back into the workspace', undefined, 'warn'));
        // Pinned like any delete, so a link swapped in here cannot point the removal elsewhere; not reported:
        // Kiln's temp files are never entries anyone shows.
        await target.guard
          .pin(rel, (pinned) => fs.rm(pinned.path, { recursive: true, force: true }))
          .then(
            () => removed.push(rel),
            log.caught(
              'a stale temp could not be removed (gone, or its folder changed); the next start tries again',
              0,
            ),
          );
      } else if (dirent.isDirectory() && !skipFolder(target.guard.relative(abs))) {
        pending.push(abs);
      }
    }
    // Start-up never waits for this walk; let everything else go first.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}
