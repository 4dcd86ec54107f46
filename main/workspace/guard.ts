import { constants as fsConstants, readlinkSync } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { KilnError } from '../../shared/errors';
import { createLogger } from '../log';

const log = createLogger('workspace.guard');
// Made once: the guard is on every operation's path, a listing's included.
const closeFailed = log.caught(
  "a pinned folder's read-only handle failed to close; nothing was written through it",
  undefined,
);
const shortWayRefused = log.caught(
  'the short way to pin a folder was refused (missing, a link, no /proc); the checked way decides',
  null,
);
const noProcFd = log.caught(
  "/proc/self/fd cannot name the handle's place; the folder's identity is compared instead",
  null,
);
/**
 * Where an open handle really is, read from /proc/self/fd on this thread: procfs answers from the kernel's
 * memory (the open file's path, never a disk read), so a thread-pool round trip would cost more than the call.
 */
function handlePlace(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch (err) {
    return noProcFd(err);
  }
}

const folderGone = log.caught('the folder at the checked path is gone; the pin is refused as changed', null);

/**
 * The one path guard. Every workspace-relative path that crosses the contract is resolved here;
 * anything that could land outside the root is refused with E_OUTSIDE_WORKSPACE.
 */
export class PathGuard {
  /** @param root absolute, already realpath'd workspace root */
  constructor(readonly root: string) {}

  /** Lexical resolution: refuses NUL, absolute paths and `..` that climbs above the root. */
  resolveLexically(rel: string): string {
    if (typeof rel !== 'string') throw outside(String(rel), 'not a string');
    if (rel.includes('\0')) throw outside(rel, 'contains a NUL byte');
    const unified = rel.replace(/\\/g, '/');
    if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified)) throw outside(rel, 'absolute paths are not accepted');
    const segments: string[] = [];
    for (const segment of unified.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (segments.length === 0) throw outside(rel, 'it climbs above the workspace root');
        segments.pop();
        continue;
      }
      segments.push(segment);
    }
    return segments.length ? path.join(this.root, ...segments) : this.root;
  }

  /**
   * Full resolution: lexical, then the deepest existing ancestor (or the path itself) is realpath'd so a
   * symlink pointing outside is refused, also when the path is about to be created.
   */
  async resolve(rel: string): Promise<string> {
    return (await this.resolveWithReal(rel)).abs;
  }

  /** resolve, plus the path's own realpath when it exists (pin reuses it rather than asking the OS twice). */
  private async resolveWithReal(rel: string, entryItself = false): Promise<{ abs: string; real: string | null }> {
    const abs = this.resolveLexically(rel);
    // The entry itself (delete, move, a link's own state): a final link is the target, wherever it points.
    let probe = entryItself && abs !== this.root ? path.dirname(abs) : abs;
    for (;;) {
      try {
        const real = await realpath(probe);
        if (!this.contains(real)) throw outside(rel, 'a symbolic link leads outside the workspace');
        return { abs, real: probe === abs ? real : null };
      } catch (err) {
        if (err instanceof KilnError) throw err;
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
        if (probe === this.root) return { abs, real: null };
        probe = path.dirname(probe);
      }
    }
  }

  /**
   * Resolves `rel` and runs `use` with the entry pinned under its verified parent folder, so a symlink
   * swapped into the path after the check cannot redirect the operation. The parent is realpath'd and
   * opened; on Linux the operation then goes through that open handle (`/proc/self/fd/N/name`), whose
   * real location is read back from the kernel and must lie inside the root. Elsewhere the handle's
   * identity is compared with the folder at the path. `followFinal` resolves a final symlink first
   * (content operations); without it the entry itself is the target (delete, move, create).
   */
  async pin<T>(rel: string, use: (target: PinnedPath) => Promise<T>, options: PinOptions = {}): Promise<T> {
    if (options.folder && process.platform === 'linux') {
      const direct = await this.openFolderDirectly(rel);
      if (direct) {
        try {
          if (!this.contains(direct.real)) throw outside(rel, 'a symbolic link leads outside the workspace');
          const dir = `/proc/self/fd/${direct.handle.fd}`;
          return await use({ abs: direct.abs, real: direct.real, dir, path: dir });
        } finally {
          void direct.handle.close().catch(closeFailed);
        }
      }
    }
    const follow = Boolean(options.followFinal || options.folder) || this.resolveLexically(rel) === this.root;
    const resolved = await this.resolveWithReal(rel, !follow);
    const abs = resolved.abs;
    // The open handle below is what pins the target; a second realpath of the same path would only cost a hop.
    const real = follow
      ? (resolved.real ?? (await this.canonical(abs)))
      : path.join(await this.canonical(path.dirname(abs)), path.basename(abs));
    if (!this.contains(real)) throw outside(rel, 'a symbolic link leads outside the workspace');
    const anchorAtSelf = options.folder || real === this.root;
    const dirReal = anchorAtSelf ? real : path.dirname(real);
    let handle: FileHandle;
    try {
      // The folder itself must not be a link swapped in after canonicalizing; its parents are checked below.
      handle = await open(dirReal, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw outside(rel, 'a folder on the way was replaced by a symbolic link');
      if (code === 'ENOENT')
        throw new KilnError(
          'E_NOT_FOUND',
          anchorAtSelf ? `"${rel}" does not exist` : `The folder for "${rel}" does not exist`,
        );
      if (code === 'ENOTDIR')
        throw new KilnError(
          'E_NOT_A_DIRECTORY',
          anchorAtSelf ? `${rel || '(root)'} is not a folder` : `The parent of "${rel}" is not a folder`,
        );
      throw err;
    }
    try {
      const dir = await this.verifiedDir(handle, dirReal, rel);
      return await use({ abs, real, dir, path: anchorAtSelf ? dir : `${dir}/${path.basename(real)}` });
    } finally {
      // A folder's read-only handle: closing it can't fail in a way that matters, so the answer needn't wait for it.
      void handle.close().catch(closeFailed);
    }
  }

  /**
   * Linux's short way to pin a folder (a listing's two hops fewer): open the lexical path itself, refusing a
   * final link, and ask the kernel where the handle really is; the caller refuses a place outside the root.
   * Anything unusual (missing, a final link, no /proc) returns null and takes the checked long way, so
   * errors read as before.
   */
  private async openFolderDirectly(rel: string): Promise<{ abs: string; real: string; handle: FileHandle } | null> {
    const abs = this.resolveLexically(rel);
    const handle = await open(abs, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW).catch(
      shortWayRefused,
    );
    if (!handle) return null;
    const real = handlePlace(handle.fd);
    if (real === null || !path.isAbsolute(real)) {
      void handle.close().catch(closeFailed);
      return null;
    }
    return { abs, real, handle };
  }

  /** The path operations use for an open, verified folder handle. */
  private async verifiedDir(handle: FileHandle, dirReal: string, rel: string): Promise<string> {
    if (process.platform === 'linux') {
      const viaHandle = `/proc/self/fd/${handle.fd}`;
      const actual = handlePlace(handle.fd);
      if (actual !== null) {
        if (!this.contains(actual)) throw outside(rel, 'a symbolic link leads outside the workspace');
        return viaHandle;
      }
    }
    const [opened, atPath] = await Promise.all([handle.stat(), lstat(dirReal).catch(folderGone)]);
    if (!atPath || atPath.ino !== opened.ino || atPath.dev !== opened.dev)
      throw outside(rel, 'the folder changed while it was checked');
    return dirReal;
  }

  /** realpath of the path, or of its deepest existing ancestor plus the rest. */
  private async canonical(abs: string): Promise<string> {
    const rest: string[] = [];
    let probe = abs;
    for (;;) {
      try {
        return path.join(await realpath(probe), ...rest);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if ((code !== 'ENOENT' && code !== 'ENOTDIR') || probe === this.root) throw err;
        rest.unshift(path.basename(probe));
        probe = path.dirname(probe);
      }
    }
  }

  contains(absReal: string): boolean {
    return absReal === this.root || absReal.startsWith(this.root.endsWith(path.sep) ? this.root : this.root + path.sep);
  }

  relative(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join('/');
  }
}

export interface PinOptions {
  /** Resolve a final symbolic link first (reads and writes of content); otherwise the entry itself is the target. */
  followFinal?: boolean;
  /** The target is a folder and is itself the pinned handle (listing, copying into it). */
  folder?: boolean;
}

/** An entry pinned by `PathGuard.pin`. */
export interface PinnedPath {
  /** The lexical absolute path, for reporting (relative paths, the origin ledger). */
  abs: string;
  /** The resolved real path (for hand-offs that need a plain path, such as the OS trash). */
  real: string;
  /** The verified parent folder (the folder itself when pinned as a folder): siblings such as temp files go here. */
  dir: string;
  /** The path to hand to fs calls: the entry's name under `dir` (or `dir` itself for a folder). */
  path: string;
}

/** Opening a final component that is a symbolic link fails with ELOOP: content never comes from a link swapped in. */
export const NO_FOLLOW = fsConstants.O_NOFOLLOW;

function outside(rel: string, why: string): KilnError {
  return new KilnError('E_OUTSIDE_WORKSPACE', `Path "${rel.replace(/\0/g, '\\0')}" is outside the workspace: ${why}`);
}
