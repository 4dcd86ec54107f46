import { createHash } from 'node:crypto';
import { constants as fsConstants, createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Origin } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { copyViaTemp, renameOrCopy } from './copy';
import {
  diskState,
  exists,
  freeName,
  kindOf,
  lstatOrNotFound,
  lstatOrNull,
  readWhole,
  refuseSpecial,
  type JobOptions,
  type WorkspaceCore,
} from './core';
import { discardParked, park, putBack } from './delete';
import type { PinnedPath } from './guard';
import { tempName } from './temp-names';

export interface ReceiveOptions {
  onConflict?: 'reject' | 'overwrite';
  origin?: Origin;
  signal?: AbortSignal;
  /** The file's permission bits (what a program left); default: the umask's. */
  mode?: number;
  /**
   * false: not hashed on the way. Only an Agent turn's undo reads the hash (history's `nextHash`), and sha256 of a
   * gigabyte is over a second of the main thread, so an operator's upload skips it. Default true.
   */
  hashed?: boolean;
}

export interface CopyInOptions extends JobOptions {
  onConflict?: 'reject' | 'overwrite' | 'keepBoth';
  move?: boolean;
}

/**
 * A file arriving from outside (an upload), streamed into a private temp folder beside its target and renamed
 * into place only when whole: a failed or aborted upload leaves nothing half-written. Missing folders above it
 * are made. `reject` never replaces what is there: a hard link claims the name or fails, atomically.
 */
export async function receiveFile(
  core: WorkspaceCore,
  rel: string,
  source: AsyncIterable<Uint8Array>,
  options: ReceiveOptions,
): Promise<{ path: string; size: number }> {
  core.refuseRoot(rel, 'E_IS_A_DIRECTORY', 'The workspace root is a folder');
  const origin = options.origin ?? 'operator';
  await core.makeParents(rel, origin);
  return core.guard.pin(rel, async (target) => {
    const before = await lstatOrNull(target.path);
    if (before?.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `"${rel}" is a folder`);
    if (before && options.onConflict !== 'overwrite') throw exists(rel);
    // The bytes go into a private temp folder beside the target (same filesystem: the rename stays atomic). The
    // watcher never watches a folder with a temp name, so the thousands of writes of a big file wake no watch on
    // the target's folder (each write is an inotify event there: a quarter of the host's CPU time for 1 GB).
    const tempDir = `${target.dir}/${tempName()}`;
    core.ledger.mark(target.abs, origin);
    let held: fs.FileHandle | null = null;
    try {
      await fs.mkdir(tempDir, { mode: 0o700 });
      // Pinned as the target's folder is: a link swapped in for the temp folder cannot lead the bytes elsewhere.
      held = await fs.open(tempDir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW);
      const temp = `${process.platform === 'linux' ? `/proc/self/fd/${held.fd}` : tempDir}/upload`;
      // Hashed on the way unless not wanted (an undo knows the file is still what this wrote, at any size).
      const hash = options.hashed === false ? null : createHash('sha256');
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash?.update(chunk);
          done(null, chunk);
        },
      });
      // A few MiB buffered lets the stream gather the socket's 64 KiB pieces into one writev.
      const file = createWriteStream(temp, { flags: 'wx', highWaterMark: 4 * 1024 * 1024 });
      if (hash) await pipeline(source, hashing, file, { signal: options.signal });
      else await pipeline(source, file, { signal: options.signal });
      const nextHash = hash?.digest('hex');
      if (options.mode !== undefined) await fs.chmod(temp, options.mode & 0o7777);
      if (before?.isFile())
        await core.keepReplaced(target, before.size, origin, 'write', () => readWhole(target.path, rel), {
          nextHash,
          mode: before.mode & 0o7777,
        });
      else if (!before) await core.keepReplaced(target, 0, origin, 'create', async () => Buffer.alloc(0), { nextHash });
      if (before) await fs.rename(temp, target.path);
      else await claimName(temp, target.path, rel);
    } finally {
      await held?.close();
      await fs.rm(tempDir, { recursive: true, force: true });
    }
    const after = await fs.lstat(target.path);
    const written = core.relative(target.abs);
    // Not hashed (an upload may be gigabytes): the echo is told by inode and ctime, else it is news.
    core.report({ type: before ? 'updated' : 'created', path: written, isDir: false, origin }, diskState(after, ''));
    return { path: written, size: after.size };
  });
}

/** Gives `temp` the name `at` only if nothing has it: a hard link, atomic; else (no hard links) check, then rename. */
async function claimName(temp: string, at: string, rel: string): Promise<void> {
  await fs.link(temp, at).catch(async (err) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw exists(rel);
    // A filesystem without hard links (FAT, some network mounts): check, then rename.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    if (await lstatOrNull(at)) throw exists(rel);
    await fs.rename(temp, at);
  });
}

/**
 * Copies (or moves) an entry from outside the workspace, by its absolute path, into a workspace folder, with
 * the same copy as `copy`: through a private temp, links copied as links and never followed.
 */
export function copyIn(
  core: WorkspaceCore,
  source: string,
  toDir: string,
  options: CopyInOptions,
): Promise<{ path: string }> {
  if (!path.isAbsolute(source)) throw new KilnError('E_BAD_REQUEST', `"${source}" is not an absolute path`);
  const src = path.resolve(source);
  return core.guard.pin(
    toDir,
    async (dir) => {
      const srcInfo = await lstatOrNotFound(src, source);
      if (!srcInfo.isDirectory() && !srcInfo.isSymbolicLink()) refuseSpecial(source, srcInfo);
      const srcReal = await fs.realpath(src);
      if (srcInfo.isDirectory() && (dir.real === srcReal || dir.real.startsWith(srcReal + path.sep)))
        throw new KilnError('E_INTO_SELF', `Cannot copy folder "${path.basename(src)}" into itself`);
      let name = path.basename(src);
      const existing = await lstatOrNull(path.join(dir.path, name));
      if (existing && options.onConflict === 'keepBoth') name = await freeName(dir.path, name, srcInfo.isDirectory());
      else if (existing && options.onConflict !== 'overwrite') throw exists(path.posix.join(toDir, name));
      const target = path.join(dir.abs, name);
      const origin = options.origin ?? 'operator';
      const replacing = existing && options.onConflict === 'overwrite';
      core.ledger.mark(target, origin);
      const pinned: PinnedPath = {
        abs: target,
        real: path.join(dir.real, name),
        dir: dir.path,
        path: `${dir.path}/${name}`,
      };
      if (replacing && existing.isFile())
        await core.keepReplaced(pinned, existing.size, origin, 'delete', () => readWhole(pinned.path, name));
      const parked = replacing ? await park(core, pinned) : null;
      try {
        if (options.move) await renameOrCopy(core, src, pinned, kindOf(srcInfo), options.jobId);
        else await copyViaTemp(core, src, { dir: dir.path, name }, kindOf(srcInfo), options.jobId);
      } catch (err) {
        if (parked) await putBack(parked, pinned.path);
        throw err;
      }
      if (parked) await discardParked(core, parked);
      if (replacing)
        core.report({ type: 'deleted', path: core.relative(target), isDir: existing.isDirectory(), origin });
      core.report({ type: 'created', path: core.relative(target), isDir: srcInfo.isDirectory(), origin });
      return { path: core.relative(target) };
    },
    { folder: true },
  );
}
