import { constants as fsConstants } from 'node:fs';
import { lstat, open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { ZipFile } from 'yazl';
import { KilnError } from '../../shared/errors';
import { isKilnTempName, type PathGuard } from '../workspace';
import { attachmentDisposition, contentTypeOf, DOWNLOAD_HEADERS } from './headers';
import { createLogger } from '../log';

const log = createLogger('download');

const S_IFLNK_RWX = 0o120777;
/**
 * Large reads: a download is one long sequential read, and each chunk costs a trip through the event loop.
 * A file is sent through two buffers of this size; a zip's files through read streams of it.
 */
const READ_CHUNK = 1024 * 1024;

/**
 * Streams a workspace file, or a folder as a zip, to an HTTP response. Every path goes through the workspace's
 * path guard; every file and folder is opened without following a final symbolic link and, on Linux, its real
 * location is read back from the open handle and must lie inside the workspace, so a link swapped in mid-walk
 * cannot lead a download outside. Links inside a zipped folder are stored as links (their target text).
 */
export class DownloadService {
  constructor(
    private readonly guard: PathGuard,
    /** The name a download of the workspace root is saved under. */
    private readonly rootName: string,
  ) {}

  async serve(rel: string, res: ServerResponse, options: { headOnly?: boolean } = {}): Promise<void> {
    const { handle, name } = await this.guard.pin(
      rel,
      async (target) => ({
        // The root is pinned as its own handle's path, a /proc link O_NOFOLLOW refuses: open it by its real path.
        handle: await openInside(
          this.guard,
          target.path === target.dir ? target.real : target.path,
          rel,
          fsConstants.O_NONBLOCK,
        ),
        name: target.abs === this.guard.root ? this.rootName : path.basename(target.abs),
      }),
      { followFinal: true },
    );
    let handed = false;
    try {
      const info = await handle.stat();
      if (info.isDirectory()) {
        res.writeHead(200, {
          ...DOWNLOAD_HEADERS,
          'content-type': 'application/zip',
          'content-disposition': attachmentDisposition(`${name}.zip`),
        });
        if (options.headOnly) return void res.end();
        const real = (await realOf(handle)) ?? (await this.guard.resolve(rel));
        handed = true;
        await streamZip(this.guard, handle, real, name, res);
        return;
      }
      if (!info.isFile())
        throw new KilnError('E_NOT_REGULAR_FILE', `"${rel}" is not a regular file (a pipe, socket or device)`);
      res.writeHead(200, {
        ...DOWNLOAD_HEADERS,
        'content-type': contentTypeOf(name),
        'content-length': String(info.size),
        'content-disposition': attachmentDisposition(name),
      });
      if (options.headOnly) return void res.end();
      await sendFile(handle, info.size, res);
    } finally {
      if (!handed) await handle.close();
    }
  }
}

/** HTTP status for a refused download: the guard's refusals are 403, a missing entry 404. */
export function downloadStatus(err: unknown): { status: number; message: string } {
  if (err instanceof KilnError) {
    const status =
      err.code === 'E_OUTSIDE_WORKSPACE' || err.code === 'E_NOT_REGULAR_FILE'
        ? 403
        : err.code === 'E_NOT_FOUND' || err.code === 'E_NOT_A_DIRECTORY'
          ? 404
          : err.code === 'E_BAD_REQUEST'
            ? 400
            : 500;
    return { status, message: err.message };
  }
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'ENOENT' || errno === 'ENOTDIR') return { status: 404, message: 'No such file or folder' };
  if (errno === 'EACCES' || errno === 'EPERM') return { status: 403, message: 'Permission denied' };
  return { status: 500, message: 'The download failed' };
}

/** Opens without following a final link; on Linux the handle's real location must be inside the workspace. */
async function openInside(guard: PathGuard, at: string, rel: string, extraFlags = 0): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(at, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | extraFlags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new KilnError('E_OUTSIDE_WORKSPACE', `"${rel}" turned into a symbolic link`);
    if (code === 'ENXIO') throw new KilnError('E_NOT_REGULAR_FILE', `"${rel}" is a socket`);
    if (code === 'ENOENT') throw new KilnError('E_NOT_FOUND', `"${rel}" does not exist`);
    throw err;
  }
  const real = await realOf(handle);
  if (real !== null && !guard.contains(real)) {
    await handle.close();
    throw new KilnError('E_OUTSIDE_WORKSPACE', `Path "${rel}" is outside the workspace`);
  }
  return handle;
}

/** Where an open handle really is (Linux), or null where the OS does not say. */
async function realOf(handle: FileHandle): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  return readlink(`/proc/self/fd/${handle.fd}`).catch(
    log.caught("/proc cannot name the handle's place; the identity check decides instead", null),
  );
}

/**
 * Sends a whole file through two buffers used over and over: one is read from disk while the other is written to
 * the socket. A fresh Buffer per chunk (a read stream's way) is memory V8 counts until a full collection frees it:
 * a gigabyte of them set off dozens of full collections of the host's heap. A file that shrank while being sent
 * breaks the response (its length was promised); a client that goes away stops the reads.
 */
async function sendFile(handle: FileHandle, size: number, res: ServerResponse): Promise<void> {
  let gone = res.destroyed;
  const onClose = () => (gone = true);
  res.once('close', onClose);
  const buffers = [Buffer.allocUnsafe(READ_CHUNK), Buffer.allocUnsafe(READ_CHUNK)];
  let writing: Promise<void> = Promise.resolve();
  let sent = 0;
  try {
    // Up to the length promised: a file that grows meanwhile is sent as it was when its size was read.
    for (let turn = 0; !gone && sent < size; turn ^= 1) {
      const { bytesRead } = await handle.read(buffers[turn], 0, Math.min(READ_CHUNK, size - sent), sent);
      // The other buffer is read into next: its bytes must be out of Node's hands first.
      await writing;
      if (bytesRead === 0 || gone) break;
      sent += bytesRead;
      writing = writeChunk(res, buffers[turn].subarray(0, bytesRead));
    }
    await writing;
    if (gone) return;
    if (sent !== size) res.destroy();
    else res.end();
  } catch {
    res.destroy(); // a read that failed mid-file: the client sees a broken download, never a short "whole" one
  } finally {
    res.off('close', onClose);
  }
}

/** Resolves once the chunk has left for the kernel (its buffer may be reused), or the response is gone. */
function writeChunk(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    const done = () => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(chunk, done);
  });
}

/**
 * A folder as a zip, written as it is read: yazl opens each file only when its turn comes (lazy streams),
 * so at most one file is open and nothing is held whole. Files are stored, not deflated: bytes out as fast
 * as the disk reads them, and the zip's contents are the files' exact bytes.
 */
async function streamZip(
  guard: PathGuard,
  rootHandle: FileHandle,
  rootReal: string,
  name: string,
  res: ServerResponse,
): Promise<void> {
  const zip = new ZipFile();
  const walk: ZipWalk = { gone: false, reading: null };
  // A client that goes away (a cancelled download) stops the walk and closes the file being read.
  const stop = () => {
    walk.gone = true;
    walk.reading?.destroy();
  };
  const done = new Promise<void>((resolve) => {
    res.once('close', () => {
      stop();
      resolve();
    });
    zip.on('error', () => {
      stop();
      res.destroy();
      resolve();
    });
  });
  zip.outputStream.pipe(res);
  const prefix = `${name}/`;
  zip.addEmptyDirectory(prefix);
  try {
    await addFolder(guard, zip, rootHandle, rootReal, prefix, walk);
  } catch {
    stop();
    res.destroy();
  } finally {
    await rootHandle.close().catch(log.caught("a download folder's read-only handle failed to close", undefined));
  }
  if (!walk.gone) zip.end();
  await done;
}

interface ZipWalk {
  gone: boolean;
  /** The file being read into the zip now. */
  reading: { destroy(): void } | null;
}

async function addFolder(
  guard: PathGuard,
  zip: ZipFile,
  handle: FileHandle,
  dirReal: string,
  prefix: string,
  walk: ZipWalk,
): Promise<void> {
  // Listed through the open handle: the folder read is the folder that was checked.
  const listed = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : dirReal;
  const dirents = await readdir(listed, { withFileTypes: true });
  for (const dirent of dirents) {
    if (walk.gone) return;
    if (isKilnTempName(dirent.name)) continue; // Kiln's own half-written temp files are not the operator's
    const at = path.join(dirReal, dirent.name);
    const entryName = prefix + dirent.name;
    if (dirent.isSymbolicLink()) {
      const target = await readlink(path.join(listed, dirent.name)).catch(
        log.caught('a link went away while the folder was zipped; it is left out', null),
      );
      if (target !== null) zip.addBuffer(Buffer.from(target), entryName, { mode: S_IFLNK_RWX, compress: false });
    } else if (dirent.isDirectory()) {
      let sub: FileHandle;
      try {
        sub = await openInside(guard, at, entryName, fsConstants.O_DIRECTORY);
      } catch {
        continue; // replaced by a link or removed since it was listed
      }
      try {
        const info = await sub.stat();
        zip.addEmptyDirectory(`${entryName}/`, { mtime: info.mtime, mode: info.mode & 0xffff });
        await addFolder(guard, zip, sub, at, `${entryName}/`, walk);
      } finally {
        await sub.close();
      }
    } else if (dirent.isFile()) {
      const info = await lstat(at).catch(
        log.caught('a file went away while the folder was zipped; it is left out', null),
      );
      if (!info?.isFile()) continue;
      zip.addReadStreamLazy(entryName, { mtime: info.mtime, mode: info.mode & 0xffff, compress: false }, (ready) => {
        if (walk.gone) return ready(new Error('The download was cancelled'), undefined as never);
        openInside(guard, at, entryName, fsConstants.O_NONBLOCK).then(
          (file) => {
            const stream = file.createReadStream({ autoClose: true, highWaterMark: READ_CHUNK });
            walk.reading = stream;
            ready(null, stream);
          },
          (err: unknown) => ready(err, undefined as never),
        );
      });
    }
    // FIFOs, sockets and devices are never read: left out.
  }
}
