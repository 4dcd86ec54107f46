import type { Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import type { Entry, Origin, WriteResult } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { diskState, exists, lstatOrNull, readExisting, readWhole, refuseSpecial, type WorkspaceCore } from './core';
import { decodeText, encodeText, hashText } from './encoding';
import type { PinnedPath } from './guard';
import { statEntry } from './listing';
import { tempName } from './temp-names';

export interface WriteOptions {
  origin?: Origin;
  /** The hash the caller read; if the disk differs the write is refused with E_CHANGED_ON_DISK. */
  expectedHash?: string;
  createParents?: boolean;
  /** The file's permission bits (what a program left); default: the existing file's, or the umask's for a new one. */
  mode?: number;
  /**
   * false: not synced to disk one by one. For a batch whose caller syncs the filesystem once at its end and keeps
   * its own copy until then (a run's writes, still in its upper layer). Default true.
   */
  durable?: boolean;
}

/** Options of an operation whose only choice is who made it. */
export interface OriginOptions {
  origin?: Origin;
}

/** Atomic write of text (encoded as the file was) or exact bytes: a temp file in the same folder, renamed over. */
export async function writeContent(
  core: WorkspaceCore,
  rel: string,
  content: string | Buffer,
  options: WriteOptions,
): Promise<WriteResult> {
  core.refuseRoot(rel, 'E_IS_A_DIRECTORY', 'The workspace root is a folder');
  const origin = options.origin ?? 'operator';
  if (options.createParents && !options.expectedHash) await core.makeParents(rel, origin);
  return core.guard.pin(
    rel,
    async (target) => {
      const existing = await readExisting(target.path, rel);
      let encoding = 'utf-8';
      if (existing) {
        // The whole file, as read() decodes it: a prefix can cut a UTF-8 character and look like Latin-1.
        encoding = decodeText(existing.bytes).encoding;
        if (encoding === 'binary') encoding = 'utf-8';
      }
      const expected = options.expectedHash;
      if (expected) refuseUnlessHolds(rel, existing, expected);
      const bytes = typeof content === 'string' ? encodeText(content, encoding) : content;
      // A change of mode alone (a program's chmod) is kept too, so an undo puts the bits back.
      const modeChanges =
        options.mode !== undefined && existing && (existing.mode & 0o7777) !== (options.mode & 0o7777);
      if (!existing || !existing.bytes.equals(bytes) || modeChanges) {
        const before = existing?.bytes ?? Buffer.alloc(0);
        await core.keepReplaced(target, before.length, origin, existing ? 'write' : 'create', async () => before, {
          nextHash: hashText(bytes),
          ...(existing ? { mode: existing.mode & 0o7777 } : {}),
        });
      }
      // Writing the temp file takes time another program can write in: the disk is compared again once it is
      // written, and the rename is the next thing done. What remains is the instant between that read and the
      // rename syscall, which no rename on POSIX can close.
      const recheck = expected
        ? async () => refuseUnlessHolds(rel, await readExisting(target.path, rel), expected)
        : undefined;
      core.ledger.mark(target.abs, origin);
      const after = await writeAtomically(target, bytes, options.mode ?? existing?.mode, recheck, options.durable);
      const written = core.relative(target.abs);
      const hash = hashText(bytes);
      core.report(
        { type: existing ? 'updated' : 'created', path: written, isDir: false, origin },
        diskState(after, hash),
      );
      return { path: written, hash, mtimeMs: after.mtimeMs, size: after.size };
    },
    { followFinal: true },
  );
}

export function createFile(core: WorkspaceCore, rel: string, text = '', options: OriginOptions): Promise<WriteResult> {
  const origin = options.origin ?? 'operator';
  return core.guard.pin(rel, async (target) => {
    core.ledger.mark(target.abs, origin);
    // O_EXCL: never opens an existing entry, a symbolic link included.
    const handle = await fs.open(target.path, 'wx').catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(rel);
      throw err;
    });
    try {
      await handle.writeFile(text, 'utf8');
      const after = await handle.stat();
      const created = core.relative(target.abs);
      core.report({ type: 'created', path: created, isDir: false, origin }, diskState(after, hashText(text)));
      return { path: created, hash: hashText(text), mtimeMs: after.mtimeMs, size: after.size };
    } finally {
      await handle.close();
    }
  });
}

export async function createDir(core: WorkspaceCore, rel: string, options: OriginOptions): Promise<Entry> {
  const origin = options.origin ?? 'operator';
  const created = await core.guard.pin(rel, async (target) => {
    core.ledger.mark(target.abs, origin);
    await fs.mkdir(target.path).catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(rel);
      throw err;
    });
    // Kept for an Agent turn (an undo removes the folder it made, once empty).
    await core.keepReplaced(target, 0, origin, 'create', async () => Buffer.alloc(0), { kind: 'dir' });
    return core.relative(target.abs);
  });
  core.report({ type: 'created', path: created, isDir: true, origin });
  return statEntry(core, created);
}

/**
 * Makes `rel` a symbolic link to `linkTarget` (replacing a file or link there, atomically: a link made under a
 * temp name, then renamed over). The link is never followed; what it replaces is kept in local history.
 */
export async function writeLink(
  core: WorkspaceCore,
  rel: string,
  linkTarget: string,
  options: OriginOptions,
): Promise<void> {
  const origin = options.origin ?? 'operator';
  await core.guard.pin(rel, async (target) => {
    const existing = await lstatOrNull(target.path);
    if (existing?.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `"${rel}" is a folder`);
    if (existing && !existing.isFile() && !existing.isSymbolicLink()) refuseSpecial(rel, existing);
    const nextHash = hashText(linkTarget);
    if (existing?.isSymbolicLink()) {
      const before = await fs.readlink(target.path);
      if (before === linkTarget) return;
      await core.keepReplaced(target, before.length, origin, 'write', async () => Buffer.from(before), {
        nextHash,
        kind: 'symlink',
      });
    } else if (existing) {
      await core.keepReplaced(target, existing.size, origin, 'write', () => readWhole(target.path, rel), {
        nextHash,
        mode: existing.mode & 0o7777,
      });
    } else {
      await core.keepReplaced(target, 0, origin, 'create', async () => Buffer.alloc(0), {
        nextHash,
        kind: 'symlink',
      });
    }
    const temp = `${target.dir}/${tempName()}`;
    core.ledger.mark(target.abs, origin);
    await fs.symlink(linkTarget, temp);
    await fs.rename(temp, target.path).catch(async (err) => {
      await fs.rm(temp, { force: true });
      throw err;
    });
    core.report({ type: existing ? 'updated' : 'created', path: core.relative(target.abs), isDir: false, origin });
  });
}

/** Writes a temp file beside the target, then (after `beforeRename`, a last check) renames it over the target. */
async function writeAtomically(
  target: PinnedPath,
  bytes: Buffer,
  mode: number | undefined,
  beforeRename?: () => Promise<void>,
  durable = true,
): Promise<Stats> {
  const temp = `${target.dir}/${tempName()}`;
  try {
    const handle = await fs.open(temp, 'wx', mode ?? 0o666);
    let written: Stats;
    try {
      await handle.writeFile(bytes);
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
      if (durable) await handle.sync();
      written = await handle.stat();
    } finally {
      await handle.close();
    }
    await beforeRename?.();
    await fs.rename(temp, target.path);
    return written;
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/** E_CHANGED_ON_DISK unless the file (as read, or null when gone) still hashes to `expected`. */
function refuseUnlessHolds(rel: string, existing: { bytes: Buffer } | null, expected: string): void {
  if (!existing) {
    throw new KilnError('E_CHANGED_ON_DISK', `${rel} was deleted on disk since it was read`, {
      path: rel,
      diskHash: null,
      baselineHash: expected,
    });
  }
  const currentHash = hashText(existing.bytes);
  if (currentHash !== expected) {
    throw new KilnError('E_CHANGED_ON_DISK', `${rel} changed on disk since it was read`, {
      path: rel,
      diskHash: currentHash,
      baselineHash: expected,
    });
  }
}
