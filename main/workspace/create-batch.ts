import { closeSync, constants as fsConstants, fchmodSync, fstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Origin } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { diskState, type DiskState, type WorkspaceCore } from './core';
import { hashText } from './encoding';
import { TEMP_PREFIX } from './temp-names';

/** One new file of a batch: its name in the folder, its exact bytes and permission bits. */
export interface NewFile {
  name: string;
  bytes: Buffer;
  mode: number;
}

export interface CreateFilesResult {
  /** Workspace-relative paths of the files made, in the order given. */
  created: string[];
  /** Names that were taken (something is there, or appeared meanwhile): nothing was written over them. */
  taken: string[];
  /** Names that could not be written (a full disk, a permission), with why: nothing of them is left. */
  failed: { name: string; message: string }[];
}

/**
 * Files made between two yields to the event loop. Each file is a handful of syscalls on small data, done
 * synchronously: a thread-pool hop per call costs more than the call itself (the profile of a run's 2,000 files said
 * so), and a slice this size keeps the loop answering within a few milliseconds.
 */
const FILES_PER_SLICE = 64;

/**
 * Creates new files in one folder as one operation: the folder is guarded and pinned once (not per file), and each
 * file is created exclusively, which fails on any name already taken (a file, a link, a folder, one made by another
 * program an instant ago): nothing is ever written over, and such names come back in `taken` for the caller's
 * ordinary write path. The ledger is marked once, local
 * history hears of the batch once (`keepCreated`), and the change feed gets one `createdFiles` for the folder naming
 * every file made, with each one's disk state, so every owner of file state learns of each file as of a single write. Not synced file by file:
 * the caller syncs the filesystem once at its end and keeps its own copy until then (a run's upper layer).
 */
export async function createFilesIn(
  core: WorkspaceCore,
  dirRel: string,
  files: readonly NewFile[],
  origin: Origin,
): Promise<CreateFilesResult> {
  for (const file of files) refuseName(dirRel, file.name);
  const made: { rel: string; disk: DiskState }[] = [];
  // One of Kiln's temp names is written the ordinary way (the feed never shows it; the sweep must not take it).
  const taken = files.filter((file) => file.name.startsWith(TEMP_PREFIX)).map((file) => file.name);
  const batch = files.filter((file) => !file.name.startsWith(TEMP_PREFIX));
  const failed: CreateFilesResult['failed'] = [];
  try {
    await core.guard.pin(
      dirRel,
      async (folder) => {
        core.ledger.markMany(
          batch.map((file) => path.join(folder.abs, file.name)),
          origin,
        );
        for (let i = 0; i < batch.length; i++) {
          if (i > 0 && i % FILES_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
          const file = batch[i];
          let disk: DiskState | null;
          try {
            disk = createNew(`${folder.path}/${file.name}`, file);
          } catch (err) {
            failed.push({ name: file.name, message: err instanceof Error ? err.message : String(err) });
            continue;
          }
          if (disk) made.push({ rel: core.relative(path.join(folder.abs, file.name)), disk });
          else taken.push(file.name);
        }
      },
      { folder: true },
    );
  } finally {
    // Also when the batch stopped part way: the files made are history's and the feed's all the same.
    await core.keepCreated(made.map(({ rel, disk }) => ({ path: rel, size: 0, origin, nextHash: disk.hash })));
    if (made.length > 0) {
      // The folder as the guard resolved it (the caller's `dirRel` may be spelled `./out` or `out/`).
      const first = made[0].rel;
      const dir = first.includes('/') ? first.slice(0, first.lastIndexOf('/')) : '';
      const names = made.map(({ rel }) => rel.slice(dir ? dir.length + 1 : 0));
      core.report(
        { type: 'createdFiles', dir, names, isDir: false, origin },
        made.map(({ disk }) => disk),
      );
    }
  }
  return { created: made.map(({ rel }) => rel), taken, failed };
}

/**
 * Creates `target` and writes `file` into it; null when `target` is taken. O_EXCL, as `createFile`: never opens an
 * existing entry, a symbolic link included. In place, not a temp file linked in: a new name has no reader to shield
 * from a half-written file (the watcher waits for the operation), and the temp name's create, link and unlink were
 * most of a file's cost on a busy disk. A write that fails removes what it made.
 */
function createNew(target: string, file: NewFile): DiskState | null {
  const mode = file.mode & 0o7777;
  let fd: number;
  try {
    // Made with the file's own bits where they are plain (no write for others while it is written): the umask
    // mostly leaves them so, and then no chmod is needed.
    fd = openSync(
      target,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      mode & 0o755,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw err;
  }
  try {
    for (let done = 0; done < file.bytes.length;) done += writeSync(fd, file.bytes, done);
    const made = fstatSync(fd);
    if ((made.mode & 0o7777) === mode) return diskState(made, hashText(file.bytes));
    fchmodSync(fd, mode);
    return diskState(fstatSync(fd), hashText(file.bytes));
  } catch (err) {
    unlinkSync(target);
    throw err;
  } finally {
    closeSync(fd);
  }
}

/** A batch names files of one folder: a plain name, never a path or `.`/`..`. */
function refuseName(dirRel: string, name: string): void {
  if (!name || name === '.' || name === '..' || /[/\\\0]/.test(name))
    throw new KilnError('E_BAD_REQUEST', `"${name}" is not a file name to create in "${dirRel || '(root)'}"`);
}
