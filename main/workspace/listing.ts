import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { Entry, EntryKind as ListedKind, FileContent, Listing } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { firstInOrder, sortedOrder } from '../../shared/natural-sort';
import {
  freeName,
  log,
  lstatOrNotFound,
  lstatOrNull,
  openFinal,
  refuseSpecial,
  walk,
  type WorkspaceCore,
} from './core';
import { decodeText, hashText } from './encoding';
import { FolderReadBuilder, toListing, type FolderRead } from './read-entries';
import { TEMP_PREFIX } from './temp-names';

/** Files larger than this are read only up to this many bytes; the editor says so. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
/** How long a folder's read serves the next page of the same folder. */
const LISTING_REUSE_MS = 5000;

export interface ListingOptions {
  showHidden?: boolean;
  offset?: number;
  limit?: number;
}

/** What is at a path now, the final link not followed: its kind and its content's hash (a link's: its target's text). */
export interface EntryState {
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** sha256 of the content, streamed (any size); '' for a folder or anything else. */
  hash: string;
  size: number;
  mode: number;
}

/** Folder listings, with the read of a big folder kept a few seconds while its later pages are asked for. */
export class FolderListings {
  /** Big folders being served in pages: their read, and its order once a later page asks. */
  private readonly pagedReads = new Map<string, { at: number; read: FolderRead; order: Int32Array | null }>();

  constructor(private readonly core: WorkspaceCore) {}

  /**
   * A folder's entries in display order, in the wire's compact form. A first page (`limit`) is cut from
   * a partial sort, so the tree paints a huge folder's first rows before the rest is ordered; the read is
   * kept a few seconds for the next pages, and only while one is left. Nothing else is kept: a listing
   * sorts afresh (a packed native sort), which costs less than the garbage collector spent on kept orders.
   */
  listing(rel: string, options: ListingOptions = {}): Promise<Listing> {
    return this.core.guard.pin(
      rel,
      async (folder) => {
        const key = `${options.showHidden ? 1 : 0}${folder.abs}`;
        const offset = options.offset ?? 0;
        let paged = offset > 0 ? this.pagedReads.get(key) : undefined;
        if (!paged || Date.now() - paged.at > LISTING_REUSE_MS) {
          paged = { at: Date.now(), read: await readFolder(folder.path, Boolean(options.showHidden)), order: null };
        }
        const { read } = paged;
        const total = read.length;
        const end = options.limit === undefined ? total : Math.min(total, offset + options.limit);
        let page: Int32Array;
        // A first page is always cut from a fresh read; later pages sort the kept one, once.
        if (offset === 0 && end < total) page = firstInOrder(read, end);
        else {
          paged.order ??= sortedOrder(read);
          page = paged.order.subarray(offset, end);
        }
        this.pagedReads.delete(key);
        if (end < total) {
          this.pagedReads.set(key, paged);
          if (this.pagedReads.size > 4) this.pagedReads.delete(this.pagedReads.keys().next().value!);
        }
        return toListing(this.core.relative(folder.abs), total, offset, read, page);
      },
      { folder: true },
    );
  }
}

export function statEntry(core: WorkspaceCore, rel: string): Promise<Entry> {
  return core.guard.pin(
    rel,
    async (target) => {
      const info = await lstatOrNotFound(target.path, rel);
      const name = path.basename(target.abs);
      return {
        name,
        path: core.relative(target.abs),
        kind: listedKind(info),
        size: info.size,
        mtimeMs: info.mtimeMs,
        hidden: name.startsWith('.'),
      };
    },
    { followFinal: true },
  );
}

export async function entryExists(core: WorkspaceCore, rel: string): Promise<boolean> {
  try {
    return await core.guard.pin(rel, async (target) => (await lstatOrNull(target.path)) !== null);
  } catch (err) {
    // A path through a missing folder, or through a file, names nothing: the answer, not a failure.
    if (err instanceof KilnError && (err.code === 'E_NOT_FOUND' || err.code === 'E_NOT_A_DIRECTORY')) return false;
    throw err;
  }
}

export function readFile(core: WorkspaceCore, rel: string): Promise<FileContent> {
  return core.guard.pin(
    rel,
    async (target) => {
      const handle = await openFinal(target.path, fsConstants.O_RDONLY, rel);
      try {
        const info = await handle.stat();
        if (info.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `${rel} is a folder, not a file`);
        refuseSpecial(rel, info);
        const truncated = info.size > MAX_READ_BYTES;
        const bytes = truncated ? await readHead(handle, MAX_READ_BYTES) : await handle.readFile();
        const { text, encoding } = decodeText(bytes);
        return {
          path: core.relative(target.abs),
          text,
          binary: text === null,
          encoding,
          size: info.size,
          hash: hashText(bytes),
          mtimeMs: info.mtimeMs,
          truncated,
        };
      } finally {
        await handle.close();
      }
    },
    { followFinal: true },
  );
}

/** What is at `rel` now (null: nothing), never following a final link; a file's content hashed as a stream. */
export function entryState(core: WorkspaceCore, rel: string): Promise<EntryState | null> {
  return core.guard.pin(rel, async (target) => {
    const info = await lstatOrNull(target.path);
    if (!info) return null;
    const mode = info.mode & 0o7777;
    if (info.isSymbolicLink()) {
      const link = await fs.readlink(target.path);
      return { kind: 'symlink', hash: hashText(link), size: info.size, mode };
    }
    if (!info.isFile()) return { kind: info.isDirectory() ? 'dir' : 'other', hash: '', size: 0, mode };
    const handle = await fs.open(target.path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    const hash = createHash('sha256');
    // The stream closes the handle at its end (or error).
    for await (const chunk of handle.createReadStream()) hash.update(chunk as Buffer);
    return { kind: 'file', hash: hash.digest('hex'), size: info.size, mode };
  });
}

/** How many files and folders lie under a folder, so a delete confirmation can say so. */
export function countEntries(core: WorkspaceCore, rel: string): Promise<{ files: number; dirs: number }> {
  return core.guard.pin(
    rel,
    async (target) => {
      const info = await lstatOrNotFound(target.path, rel);
      if (!info.isDirectory()) return { files: 1, dirs: 0 };
      const tree = await walk(target.path);
      return { files: tree.files.length + tree.links.length, dirs: tree.dirs.length };
    },
    { followFinal: true },
  );
}

/** The first free "name copy N" in a folder; `name` is one file name, guarded like any path. */
export function nextFreeName(core: WorkspaceCore, dirRel: string, name: string): Promise<{ path: string }> {
  if (!isSingleName(name)) {
    throw new KilnError('E_OUTSIDE_WORKSPACE', `"${name.replace(/\0/g, '\\0')}" is not a single file name`);
  }
  return core.guard.pin(
    dirRel,
    async (dir) => {
      const existing = await lstatOrNull(path.join(dir.path, name));
      return {
        path: core.relative(path.join(dir.abs, await freeName(dir.path, name, existing?.isDirectory() ?? false))),
      };
    },
    { folder: true },
  );
}

function isSingleName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

async function readHead(handle: fs.FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}

const danglingLink = log.caught('a link whose target is missing or unreadable is listed as a file', null);

/** A folder's entries as listed (hidden ones only when asked; Kiln's temp files never), in the OS's order. */
async function readFolder(dir: string, showHidden: boolean): Promise<FolderRead> {
  const dirents = await fs.readdir(dir, { withFileTypes: true });
  const found = new FolderReadBuilder(dirents.length);
  for (const dirent of dirents) {
    if (!showHidden && dirent.name.startsWith('.')) continue;
    if (dirent.name.startsWith(TEMP_PREFIX)) continue;
    if (dirent.isSymbolicLink()) {
      // A link is listed by what it points to (a link to a folder opens); links leading outside are still refused on use.
      const target = await fs.stat(path.join(dir, dirent.name)).catch(danglingLink);
      found.add(dirent.name, target ? listedKind(target) : 'file', true);
    } else {
      found.add(dirent.name, listedKind(dirent), false);
    }
  }
  return found.done();
}

/** What an entry is, as the tree shows it: FIFOs, sockets and devices are named as such. */
function listedKind(info: {
  isDirectory(): boolean;
  isFile(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): ListedKind {
  if (info.isDirectory()) return 'dir';
  if (info.isFile()) return 'file';
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  return 'device';
}
