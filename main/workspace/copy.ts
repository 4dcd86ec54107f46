import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { KilnError } from '../../shared/errors';
import {
  exists,
  freeName,
  kindOf,
  lstatOrNotFound,
  lstatOrNull,
  readWhole,
  refuseSpecial,
  walk,
  type CopyProgress,
  type EntryKind,
  type JobOptions,
  type WorkspaceCore,
} from './core';
import { discardParked, park, putBack } from './delete';
import type { PinnedPath } from './guard';
import { tempName } from './temp-names';

export interface MoveOptions extends JobOptions {
  onConflict?: 'reject' | 'overwrite';
}

/**
 * The one move primitive behind rename, drag-and-drop and cut/paste. Refuses a folder into itself,
 * refuses an existing target unless overwriting, is a no-op onto itself, and survives crossing devices.
 */
export function moveEntry(
  core: WorkspaceCore,
  from: string,
  to: string,
  options: MoveOptions,
): Promise<{ path: string }> {
  core.refuseRoot(from, 'E_BAD_REQUEST', 'The workspace root cannot be moved');
  return core.guard.pin(from, (src) =>
    core.guard.pin(to, async (dst) => {
      const srcInfo = await lstatOrNotFound(src.path, from);
      if (src.abs === dst.abs || src.real === dst.real) return { path: core.relative(dst.abs) };
      if (srcInfo.isDirectory() && dst.real.startsWith(src.real + path.sep)) {
        throw new KilnError('E_INTO_SELF', `Cannot move folder "${from}" into itself`);
      }
      const dstInfo = await lstatOrNull(dst.path);
      const caseOnlyRename = dstInfo !== null && dstInfo.ino === srcInfo.ino && dstInfo.dev === srcInfo.dev;
      const origin = options.origin ?? 'operator';
      if (dstInfo && !caseOnlyRename) {
        if (options.onConflict !== 'overwrite') throw exists(to);
        if (dstInfo.isDirectory() && src.real.startsWith(dst.real + path.sep)) {
          throw new KilnError('E_INTO_SELF', `Cannot replace "${to}" with something inside it`);
        }
      }
      core.ledger.mark(src.abs, origin);
      core.ledger.mark(dst.abs, origin);
      if (dstInfo?.isFile() && !caseOnlyRename) {
        await core.keepReplaced(dst, dstInfo.size, origin, 'delete', () => readWhole(dst.path, to));
      }
      // Park a replaced target aside so a failed move can put it back.
      const parked = dstInfo && !caseOnlyRename ? await park(core, dst) : null;
      try {
        await renameOrCopy(core, src.path, dst, kindOf(srcInfo), options.jobId);
      } catch (err) {
        if (parked) await putBack(parked, dst.path);
        throw err;
      }
      if (parked) await discardParked(core, parked);
      core.report({
        type: 'moved',
        from: core.relative(src.abs),
        to: core.relative(dst.abs),
        isDir: srcInfo.isDirectory(),
        origin,
      });
      return { path: core.relative(dst.abs) };
    }),
  );
}

/** Duplicates into a folder; a clash gets "name copy.ext", "name copy 2.ext", like VS Code. Links are copied as links. */
export function copyEntry(
  core: WorkspaceCore,
  from: string,
  toDir: string,
  options: JobOptions,
): Promise<{ path: string }> {
  return core.guard.pin(from, (src) =>
    core.guard.pin(
      toDir,
      async (dir) => {
        const srcInfo = await lstatOrNotFound(src.path, from);
        if (!srcInfo.isDirectory() && !srcInfo.isSymbolicLink()) refuseSpecial(from, srcInfo);
        const name = await freeName(dir.path, path.basename(src.abs), srcInfo.isDirectory());
        const target = path.join(dir.abs, name);
        const origin = options.origin ?? 'operator';
        core.ledger.mark(target, origin);
        await copyViaTemp(core, src.path, { dir: dir.path, name }, kindOf(srcInfo), options.jobId);
        core.report({ type: 'created', path: core.relative(target), isDir: srcInfo.isDirectory(), origin });
        return { path: core.relative(target) };
      },
      { folder: true },
    ),
  );
}

export function cancelJob(core: WorkspaceCore, jobId: string): boolean {
  const job = core.jobs.get(jobId);
  job?.abort();
  return Boolean(job);
}

/** A rename where it can be; across devices a whole copy, then the source removed. */
export async function renameOrCopy(
  core: WorkspaceCore,
  src: string,
  dst: PinnedPath,
  kind: EntryKind,
  jobId?: string,
): Promise<void> {
  try {
    await fs.rename(src, dst.path);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
  }
  // Across devices: copy fully, then remove the source. A failure leaves the source whole and no target.
  await copyViaTemp(core, src, { dir: dst.dir, name: path.basename(dst.real) }, kind, jobId);
  await fs.rm(src, { recursive: true, force: true });
}

/**
 * Copies into a hidden temp sibling and renames it into place, so a cancelled copy leaves nothing behind.
 * Symbolic links are copied as links (their target text), never as the content they point to.
 */
export async function copyViaTemp(
  core: WorkspaceCore,
  src: string,
  dst: { dir: string; name: string },
  kind: EntryKind,
  jobId?: string,
): Promise<void> {
  const controller = new AbortController();
  const id = jobId ?? randomBytes(6).toString('hex');
  core.jobs.set(id, controller);
  const progress = (value: CopyProgress) => core.progress.fire(value);
  const temp = `${dst.dir}/${tempName()}`;
  const cancelled = () => new KilnError('E_CANCELLED', 'Copy cancelled; nothing was left behind');
  try {
    if (kind === 'link') {
      await fs.symlink(await fs.readlink(src), temp);
    } else if (kind === 'file') {
      refuseSpecial(path.basename(src), await fs.lstat(src));
      await fs.copyFile(src, temp, fsConstants.COPYFILE_EXCL);
      progress({ jobId: id, done: 1, total: 1, finished: false });
    } else {
      const tree = await walk(src);
      if (tree.special) refuseSpecial(tree.special, { isFile: () => false });
      const total = tree.files.length;
      await fs.mkdir(temp);
      for (const dir of tree.dirs) await fs.mkdir(path.join(temp, dir), { recursive: true });
      for (const link of tree.links) await fs.symlink(await fs.readlink(path.join(src, link)), path.join(temp, link));
      let done = 0;
      for (const file of tree.files) {
        if (controller.signal.aborted) throw cancelled();
        await fs.copyFile(path.join(src, file), path.join(temp, file));
        done++;
        if (done % 50 === 0) progress({ jobId: id, done, total, finished: false });
        // Yield so a cancel request can be heard between files.
        if (done % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (controller.signal.aborted) throw cancelled();
    await fs.rename(temp, `${dst.dir}/${dst.name}`);
  } catch (err) {
    await fs.rm(temp, { recursive: true, force: true });
    throw err;
  } finally {
    core.jobs.delete(id);
    progress({ jobId: id, done: 0, total: 0, finished: true });
  }
}
