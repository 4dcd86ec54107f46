import { watch as fsWatch, type FSWatcher } from 'node:fs';
import type { WatchDegraded } from '../../shared/contract';

/*
 * Why plain `fs.watch`, one per folder, and not chokidar or @parcel/watcher. Measured here (Linux,
 * 20,000 empty files in 20 folders, from start to ready):
 * - chokidar 5 (`followSymlinks` or not): an inotify watch on every file as well as every folder
 *   (20,021 watches), 2.2 s, 221 MB RSS; at 200,000 files it exhausts the user's inotify budget.
 * - `fs.watch` on each folder (non-recursive; one inotify watch reports all its children): 21 watches,
 *   0.3 s, 87 MB, no stat per file.
 * - @parcel/watcher (VS Code's) would also hold one watch per folder, but it is native code to ship per
 *   platform and snapshots the whole tree before reporting: nothing `fs.watch` lacks here.
 * Folders are walked breadth-first in the background (the root and shallow folders, what the operator
 * sees first, are watched first); a symlink is an entry and never followed, and each folder inode is
 * walked once, so loops end. Start-up never waits for the walk.
 */

export interface FolderWatchFactory {
  (absDir: string, listener: (event: string, name: string | null) => void): FSWatcher;
}

export interface Folder {
  /** Tells folders apart in the pending events, whatever their paths become. */
  id: number;
  /** Where it is now: a watch follows its folder when it is renamed, and so does this. */
  path: string;
  /** dev:ino, to recognize the folder when it turns up under another name. */
  inode: string;
  /** Null when the OS refused a watch (degraded); such a folder is polled while it is shown. */
  watcher: FSWatcher | null;
  /**
   * The name Linux gives the folder's own events (a chmod, its move or removal): the last part of the path
   * it was watched at, as if it held a child so named. Those events are about the folder, never a child.
   */
  selfName?: string;
  /** The children last seen, to tell a creation from an update and a file from a folder on deletion. */
  names: Set<string>;
}

export const defaultWatchFolder: FolderWatchFactory = (absDir, listener) =>
  fsWatch(absDir, { persistent: false }, listener);

/**
 * Real watches for the first `limit` folders, then ENOSPC as Linux answers past fs.inotify.max_user_watches.
 * For tests (and the web host's `--test-refuse-watches-after`): the budget is shared machine-wide, so
 * exhausting it for real would break every other program of the user.
 */
export function refuseWatchesAfter(limit: number): FolderWatchFactory {
  let given = 0;
  return (absDir, listener) => {
    if (++given > limit) {
      throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${absDir}'`), {
        code: 'ENOSPC',
      });
    }
    return defaultWatchFolder(absDir, listener);
  };
}

/** What the operator is told when the OS refuses a watch after `watchedFolders`, and how to raise the limit. */
export function degradedStatus(code: 'ENOSPC' | 'EMFILE', watchedFolders: number): WatchDegraded {
  const folders = watchedFolders === 1 ? '1 folder' : `${watchedFolders} folders`;
  return {
    reason: code,
    watchedFolders,
    message:
      code === 'ENOSPC'
        ? `Live updates are partial: the system's limit on file watches is reached (ENOSPC) after ${folders}. ` +
          'Folders you open are re-read every 2 s instead. To raise the limit: ' +
          'sudo sysctl fs.inotify.max_user_watches=524288 (add it to /etc/sysctl.conf to keep it), then reopen the workspace.'
        : `Live updates are partial: too many open files or watch instances (EMFILE) after ${folders}. ` +
          'Folders you open are re-read every 2 s instead. To raise the limit: ulimit -n 65536, or ' +
          'sudo sysctl fs.inotify.max_user_instances=1024, then reopen the workspace.',
  };
}
