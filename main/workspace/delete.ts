import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { FsChange, Origin } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { freeName, log, lstatOrNotFound, readWhole, type WorkspaceCore } from './core';
import type { PinnedPath } from './guard';
import { tempName, TRASH_MARK } from './temp-names';

const trashLog = log.child('trash');

export interface DeleteOptions {
  permanent?: boolean;
  origin?: Origin;
}

/** An entry moved aside into a private holder, to go to the OS trash or back where it was. */
export interface Parked {
  holder: string;
  path: string;
  real: string;
  /** Where the entry was before it was parked: what the OS trash should offer to restore to. */
  original: string;
}

/** To the OS trash where there is one; permanent only when asked explicitly. */
export async function deleteEntry(
  core: WorkspaceCore,
  rel: string,
  options: DeleteOptions,
): Promise<{ trashed: boolean }> {
  core.refuseRoot(rel, 'E_BAD_REQUEST', 'The workspace root cannot be deleted');
  return core.guard.pin(rel, async (target) => {
    const info = await lstatOrNotFound(target.path, rel);
    const origin = options.origin ?? 'operator';
    core.ledger.mark(target.abs, origin);
    const deleted: FsChange = { type: 'deleted', path: core.relative(target.abs), isDir: info.isDirectory(), origin };
    if (info.isFile()) await core.keepReplaced(target, info.size, origin, 'delete', () => readWhole(target.path, rel));
    // A folder, for an Agent turn: its undo makes it again, empty ones included (its files are kept one by one).
    else if (info.isDirectory())
      await core.keepReplaced(target, 0, origin, 'delete', async () => Buffer.alloc(0), { kind: 'dir' });
    else if (info.isSymbolicLink()) {
      const link = await fs.readlink(target.path);
      await core.keepReplaced(target, link.length, origin, 'delete', async () => Buffer.from(link), {
        kind: 'symlink',
      });
    }
    if (!options.permanent) {
      // The trash takes a plain path, so it gets the entry's staged path, never one through the folders checked above.
      const parked = core.trash ? await park(core, target) : null;
      if (parked && (await toTrash(core, parked))) {
        await fs.rm(parked.holder, { recursive: true, force: true });
        core.report(deleted);
        return { trashed: true };
      }
      if (parked) await unpark(parked, target, info.isDirectory());
      throw new KilnError('E_PERMISSION', `There is no trash here; "${rel}" can only be deleted permanently`, {
        noTrash: true,
      });
    }
    await fs.rm(target.path, { recursive: true, force: true });
    core.report(deleted);
    return { trashed: false };
  });
}

/**
 * Moves an entry aside, through its pinned parent and under its own name, into a fresh hidden folder Kiln
 * creates at the (realpath'd) root, so it can go back or to the OS trash. `real` then names only the root and
 * Kiln's own folder: a link swapped into the entry's old path after the check cannot redirect the trash.
 * An entry on another device than the root (a mount inside the workspace) is staged beside itself instead.
 */
export async function park(core: WorkspaceCore, target: PinnedPath): Promise<Parked> {
  try {
    return await stage(target, core.root, core.root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    return stage(target, target.dir, path.dirname(target.real));
  }
}

/** After a failed replace: the parked entry back at its path. If that fails, it stays in its holder (logged). */
export async function putBack(parked: Parked, at: string): Promise<void> {
  await fs
    .rename(parked.path, at)
    .catch(
      trashLog.caught(
        'a replaced entry could not be put back after the replace failed; it stays in its holder, and the next start brings it back to the root',
        undefined,
        'warn',
      ),
    );
}

/** A replaced entry goes to the OS trash under its own name (recoverable), else it is removed. */
export async function discardParked(core: WorkspaceCore, parked: Parked): Promise<void> {
  if (!(await toTrash(core, parked))) await fs.rm(parked.path, { recursive: true, force: true });
  await fs.rm(parked.holder, { recursive: true, force: true });
}

async function toTrash(core: WorkspaceCore, parked: Parked): Promise<boolean> {
  if (!core.trash) return false;
  return core
    .trash(parked.real, parked.original)
    .catch(trashLog.caught('the OS trash refused the entry; it is handled as if there were no trash', false, 'warn'));
}

/** Puts a parked entry back; if its name was taken meanwhile, under the first free "name copy". */
async function unpark(parked: Parked, target: PinnedPath, isDir: boolean): Promise<void> {
  const name = await freeName(target.dir, path.basename(target.real), isDir);
  await fs.rename(parked.path, `${target.dir}/${name}`);
  await fs
    .rmdir(parked.holder)
    .catch(trashLog.caught('an emptied trash holder could not be removed; the next start sweeps it', undefined));
}

/** Renames a pinned entry into a new private temp folder under `dir` (whose real path is `dirReal`). */
async function stage(target: PinnedPath, dir: string, dirReal: string): Promise<Parked> {
  const holderName = tempName(TRASH_MARK);
  const holder = `${dir}/${holderName}`;
  await fs.mkdir(holder, { mode: 0o700 });
  const name = path.basename(target.real);
  const parked = {
    holder,
    path: `${holder}/${name}`,
    real: path.join(dirReal, holderName, name),
    original: target.abs,
  };
  await fs.rename(target.path, parked.path).catch(async (err) => {
    await fs
      .rmdir(holder)
      .catch(trashLog.caught('an unused trash holder could not be removed; the next start sweeps it', undefined));
    throw err;
  });
  return parked;
}
