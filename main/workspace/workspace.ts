import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, createWriteStream, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {
  Entry,
  EntryKind as ListedKind,
  FileContent,
  FsChange,
  Listing,
  Origin,
  WriteResult,
} from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { isAlive } from '../process';
import { decodeText, encodeText, hashText } from './encoding';
import { NO_FOLLOW, PathGuard, type PinnedPath } from './guard';
import { listingEntries } from '../../shared/listing';
import { firstKeyed, sortKeyed } from '../../shared/natural-sort';
import { readEntry, toListing, type ReadEntry } from './read-entries';
import { duplicateName } from './naming';
import { agentJournalPath, OriginLedger } from './origin-ledger';

/** Files larger than this are read only up to this many bytes; the editor says so. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
const TEMP_PREFIX = '.kiln-';
/** How long a folder's read serves the next page of the same folder. */
const LISTING_REUSE_MS = 5000;

export interface WorkspaceOptions {
  root: string;
  ledger?: OriginLedger;
  /**
   * Moves `absPath` (Kiln's staged copy of the entry) to the OS trash, recording `originalPath` as where it
   * was deleted from; resolves false where the platform has none. Injected so tests use a temp trash.
   */
  trash?: (absPath: string, originalPath: string) => Promise<boolean>;
  /** Reports progress of a long copy or cross-device move. */
  onProgress?: (progress: { jobId: string; done: number; total: number; finished: boolean }) => void;
  /**
   * Reports each operation as it completes, before its caller hears back: the change feed's own half.
   * `disk` describes a written file, so the watcher's echo of it can be told from a later edit.
   */
  onChange?: (change: FsChange, disk?: DiskState) => void;
  /**
   * Hears of each file Kiln is about to replace or delete, before it does, with a way to read what is there
   * now (local history keeps it). Awaited, so the version is kept before it is gone; its failure is ignored.
   */
  beforeReplace?: (replaced: ReplacedFile) => Promise<void>;
}

/** A file about to be overwritten or deleted by Kiln. */
export interface ReplacedFile {
  path: string;
  size: number;
  origin: Origin;
  /** `create`: nothing was there (the content read is empty); kept so that an undo knows to remove the file. */
  reason: 'write' | 'delete' | 'create';
  /** The hash of what the write puts there; absent for a delete. */
  nextHash?: string;
  /** What was there (or, for `create`, what is made): a file unless said. A link's content is its target text. */
  kind?: 'file' | 'dir' | 'symlink';
  /** The permission bits of the file replaced (an undo puts them back). */
  mode?: number;
  read(): Promise<Buffer>;
}

/** What is at a path now, the final link not followed: its kind and its content's hash (a link's: its target's text). */
export interface EntryState {
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** sha256 of the content, streamed (any size); '' for a folder or anything else. */
  hash: string;
  size: number;
  mode: number;
}

/** What a written file looks like on disk right after the write (identity and content). */
export interface DiskState {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
}

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

interface JobOptions {
  origin?: Origin;
  jobId?: string;
}

/** The workspace file service: every file operation Kiln performs goes through here and its guard. */
export class Workspace {
  readonly root: string;
  readonly ledger: OriginLedger;
  private readonly guard: PathGuard;
  private readonly trash?: WorkspaceOptions['trash'];
  private readonly onProgress?: WorkspaceOptions['onProgress'];
  private readonly onChange: NonNullable<WorkspaceOptions['onChange']>;
  private readonly beforeReplace?: WorkspaceOptions['beforeReplace'];
  private readonly jobs = new Map<string, AbortController>();
  /** Big folders being served in pages: their read, sorted in place once a later page asks. */
  private readonly pagedReads = new Map<string, { at: number; entries: ReadEntry[]; sorted: boolean }>();

  /** Use `Workspace.open` unless root is already absolute and realpath'd. */
  constructor(options: WorkspaceOptions) {
    this.root = options.root;
    this.guard = new PathGuard(options.root);
    this.ledger = options.ledger ?? new OriginLedger();
    this.trash = options.trash;
    this.onProgress = options.onProgress;
    this.onChange = options.onChange ?? (() => undefined);
    this.beforeReplace = options.beforeReplace;
  }

  static async open(options: WorkspaceOptions): Promise<Workspace> {
    const root = await fs.realpath(path.resolve(options.root));
    const info = await fs.stat(root);
    if (!info.isDirectory()) throw new KilnError('E_NOT_A_DIRECTORY', `Workspace ${root} is not a folder`);
    return new Workspace({ ledger: new OriginLedger({ journalPath: agentJournalPath(root) }), ...options, root });
  }

  get name(): string {
    return path.basename(this.root);
  }

  get hasTrash(): boolean {
    return Boolean(this.trash);
  }

  resolve(rel: string): Promise<string> {
    return this.guard.resolve(rel);
  }

  relative(abs: string): string {
    return this.guard.relative(abs);
  }

  /** Normalizes a relative path, or an absolute one inside the workspace, to the canonical relative form. */
  normalize(pathInOrOutside: string): string {
    if (path.isAbsolute(pathInOrOutside)) {
      const abs = path.resolve(pathInOrOutside);
      if (!this.guard.contains(abs)) {
        throw new KilnError('E_OUTSIDE_WORKSPACE', `Path "${pathInOrOutside}" is outside the workspace`);
      }
      return this.relative(abs);
    }
    return this.relative(this.guard.resolveLexically(pathInOrOutside));
  }

  async list(rel: string, options: { showHidden?: boolean } = {}): Promise<Entry[]> {
    return listingEntries(await this.listing(rel, options));
  }

  /**
   * A folder's entries in display order, in the wire's compact form. A first page (`limit`) is cut from
   * a partial sort, so the tree paints a huge folder's first rows before the rest is ordered; the read is
   * kept a few seconds for the next pages, and only while one is left. Nothing else is kept: a listing
   * sorts afresh (a packed native sort), which costs less than the garbage collector spent on kept orders.
   */
  async listing(
    rel: string,
    options: { showHidden?: boolean; offset?: number; limit?: number } = {},
  ): Promise<Listing> {
    return this.guard.pin(
      rel,
      async (folder) => {
        const key = `${options.showHidden ? 1 : 0}${folder.abs}`;
        const offset = options.offset ?? 0;
        let paged = offset > 0 ? this.pagedReads.get(key) : undefined;
        if (!paged || Date.now() - paged.at > LISTING_REUSE_MS) {
          paged = {
            at: Date.now(),
            entries: await readFolder(folder.path, Boolean(options.showHidden)),
            sorted: false,
          };
        }
        const { entries } = paged;
        const total = entries.length;
        const end = options.limit === undefined ? total : Math.min(total, offset + options.limit);
        let page: ReadEntry[];
        // A first page is always cut from a fresh read; later pages sort the kept one, once.
        if (offset === 0 && end < total) page = firstKeyed(entries, end);
        else {
          if (!paged.sorted) sortKeyed(entries);
          paged.sorted = true;
          page = entries.slice(offset, end);
        }
        this.pagedReads.delete(key);
        if (end < total) {
          this.pagedReads.set(key, paged);
          if (this.pagedReads.size > 4) this.pagedReads.delete(this.pagedReads.keys().next().value!);
        }
        return toListing(this.relative(folder.abs), total, offset, page);
      },
      { folder: true },
    );
  }

  async stat(rel: string): Promise<Entry> {
    return this.guard.pin(
      rel,
      async (target) => {
        const info = await fs.lstat(target.path).catch((err) => {
          throw notFound(rel, err);
        });
        const name = target.abs === this.root ? this.name : path.basename(target.abs);
        return {
          name,
          path: this.relative(target.abs),
          kind: listedKind(info),
          size: info.size,
          mtimeMs: info.mtimeMs,
          hidden: name.startsWith('.'),
        };
      },
      { followFinal: true },
    );
  }

  async exists(rel: string): Promise<boolean> {
    try {
      return await this.guard.pin(rel, (target) =>
        fs.lstat(target.path).then(
          () => true,
          () => false,
        ),
      );
    } catch (err) {
      if (err instanceof KilnError && (err.code === 'E_NOT_FOUND' || err.code === 'E_NOT_A_DIRECTORY')) return false;
      throw err;
    }
  }

  async read(rel: string): Promise<FileContent> {
    return this.guard.pin(
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
            path: this.relative(target.abs),
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

  /** Atomic write: a temp file in the same folder, then rename over the target. Keeps mode and encoding. */
  write(rel: string, text: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.ledger.track(() => this.writeNow(rel, text, options));
  }

  /** `write` of exact bytes (what a program left, binary or in any encoding), not text to encode. */
  writeBytes(rel: string, bytes: Buffer, options: WriteOptions = {}): Promise<WriteResult> {
    return this.ledger.track(() => this.writeNow(rel, bytes, options));
  }

  private async writeNow(rel: string, content: string | Buffer, options: WriteOptions): Promise<WriteResult> {
    if (this.guard.resolveLexically(rel) === this.root)
      throw new KilnError('E_IS_A_DIRECTORY', 'The workspace root is a folder');
    const origin = options.origin ?? 'operator';
    if (options.createParents && !options.expectedHash) await this.makeParents(rel, origin);
    return this.guard.pin(
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
          await this.keepReplaced(target, before.length, origin, existing ? 'write' : 'create', async () => before, {
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
        const after = await this.writeAtomically(
          target,
          bytes,
          options.mode ?? existing?.mode,
          origin,
          recheck,
          options.durable ?? true,
        );
        const written = this.relative(target.abs);
        const hash = hashText(bytes);
        this.report(
          { type: existing ? 'updated' : 'created', path: written, isDir: false, origin },
          diskState(after, hash),
        );
        return { path: written, hash, mtimeMs: after.mtimeMs, size: after.size };
      },
      { followFinal: true },
    );
  }

  createFile(rel: string, text = '', options: { origin?: Origin } = {}): Promise<WriteResult> {
    return this.ledger.track(() => this.createFileNow(rel, text, options.origin ?? 'operator'));
  }

  private createFileNow(rel: string, text: string, origin: Origin): Promise<WriteResult> {
    return this.guard.pin(rel, async (target) => {
      this.ledger.mark(target.abs, origin);
      // O_EXCL: never opens an existing entry, a symbolic link included.
      const handle = await fs.open(target.path, 'wx').catch((err) => {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(rel);
        throw err;
      });
      try {
        await handle.writeFile(text, 'utf8');
        const after = await handle.stat();
        const created = this.relative(target.abs);
        this.report({ type: 'created', path: created, isDir: false, origin }, diskState(after, hashText(text)));
        return { path: created, hash: hashText(text), mtimeMs: after.mtimeMs, size: after.size };
      } finally {
        await handle.close();
      }
    });
  }

  createDir(rel: string, options: { origin?: Origin } = {}): Promise<Entry> {
    return this.ledger.track(() => this.createDirNow(rel, options.origin ?? 'operator'));
  }

  private async createDirNow(rel: string, origin: Origin): Promise<Entry> {
    const created = await this.guard.pin(rel, async (target) => {
      this.ledger.mark(target.abs, origin);
      await fs.mkdir(target.path).catch((err) => {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(rel);
        throw err;
      });
      // Kept for an Agent turn (an undo removes the folder it made, once empty).
      await this.keepReplaced(target, 0, origin, 'create', async () => Buffer.alloc(0), { kind: 'dir' });
      return this.relative(target.abs);
    });
    this.report({ type: 'created', path: created, isDir: true, origin });
    return this.stat(created);
  }

  /**
   * The one move primitive behind rename, drag-and-drop and cut/paste. Refuses a folder into itself,
   * refuses an existing target unless overwriting, is a no-op onto itself, and survives crossing devices.
   */
  move(
    from: string,
    to: string,
    options: JobOptions & { onConflict?: 'reject' | 'overwrite' } = {},
  ): Promise<{ path: string }> {
    return this.ledger.track(() => this.moveNow(from, to, options));
  }

  private async moveNow(
    from: string,
    to: string,
    options: JobOptions & { onConflict?: 'reject' | 'overwrite' },
  ): Promise<{ path: string }> {
    if (this.guard.resolveLexically(from) === this.root)
      throw new KilnError('E_BAD_REQUEST', 'The workspace root cannot be moved');
    return this.guard.pin(from, (src) =>
      this.guard.pin(to, async (dst) => {
        const srcInfo = await fs.lstat(src.path).catch((err) => {
          throw notFound(from, err);
        });
        if (src.abs === dst.abs || src.real === dst.real) return { path: this.relative(dst.abs) };
        if (srcInfo.isDirectory() && dst.real.startsWith(src.real + path.sep)) {
          throw new KilnError('E_INTO_SELF', `Cannot move folder "${from}" into itself`);
        }
        const dstInfo = await fs.lstat(dst.path).catch(() => null);
        const caseOnlyRename = dstInfo !== null && dstInfo.ino === srcInfo.ino && dstInfo.dev === srcInfo.dev;
        const origin = options.origin ?? 'operator';
        if (dstInfo && !caseOnlyRename) {
          if (options.onConflict !== 'overwrite') throw exists(to);
          if (dstInfo.isDirectory() && src.real.startsWith(dst.real + path.sep)) {
            throw new KilnError('E_INTO_SELF', `Cannot replace "${to}" with something inside it`);
          }
        }
        this.ledger.mark(src.abs, origin);
        this.ledger.mark(dst.abs, origin);
        if (dstInfo?.isFile() && !caseOnlyRename) {
          await this.keepReplaced(dst, dstInfo.size, origin, 'delete', () => readWhole(dst.path, to));
        }
        // Park a replaced target aside so a failed move can put it back.
        const parked = dstInfo && !caseOnlyRename ? await this.park(dst) : null;
        try {
          await this.renameOrCopy(src.path, dst, kindOf(srcInfo), options.jobId);
        } catch (err) {
          if (parked) await fs.rename(parked.path, dst.path).catch(() => undefined);
          throw err;
        }
        if (parked) await this.discardParked(parked);
        this.report({
          type: 'moved',
          from: this.relative(src.abs),
          to: this.relative(dst.abs),
          isDir: srcInfo.isDirectory(),
          origin,
        });
        return { path: this.relative(dst.abs) };
      }),
    );
  }

  /** Duplicates into a folder; a clash gets "name copy.ext", "name copy 2.ext", like VS Code. Links are copied as links. */
  copy(from: string, toDir: string, options: JobOptions = {}): Promise<{ path: string }> {
    return this.ledger.track(() => this.copyNow(from, toDir, options));
  }

  private copyNow(from: string, toDir: string, options: JobOptions): Promise<{ path: string }> {
    return this.guard.pin(from, (src) =>
      this.guard.pin(
        toDir,
        async (dir) => {
          const srcInfo = await fs.lstat(src.path).catch((err) => {
            throw notFound(from, err);
          });
          if (!srcInfo.isDirectory() && !srcInfo.isSymbolicLink()) refuseSpecial(from, srcInfo);
          const name = await freeName(dir.path, path.basename(src.abs), srcInfo.isDirectory());
          const target = path.join(dir.abs, name);
          const origin = options.origin ?? 'operator';
          this.ledger.mark(target, origin);
          await this.copyViaTemp(src.path, { dir: dir.path, name }, kindOf(srcInfo), options.jobId);
          this.report({ type: 'created', path: this.relative(target), isDir: srcInfo.isDirectory(), origin });
          return { path: this.relative(target) };
        },
        { folder: true },
      ),
    );
  }

  /**
   * A file arriving from outside (an upload), streamed into a private temp file beside its target and renamed
   * into place only when whole: a failed or aborted upload leaves nothing half-written. Missing folders above it
   * are made. `reject` never replaces what is there: a hard link claims the name or fails, atomically.
   */
  receive(
    rel: string,
    source: AsyncIterable<Uint8Array>,
    options: {
      onConflict?: 'reject' | 'overwrite';
      origin?: Origin;
      signal?: AbortSignal;
      /** The file's permission bits (what a program left); default: the umask's. */
      mode?: number;
    } = {},
  ): Promise<{ path: string; size: number }> {
    return this.ledger.track(() => this.receiveNow(rel, source, options));
  }

  private async receiveNow(
    rel: string,
    source: AsyncIterable<Uint8Array>,
    options: {
      onConflict?: 'reject' | 'overwrite';
      origin?: Origin;
      signal?: AbortSignal;
      /** The file's permission bits (what a program left); default: the umask's. */
      mode?: number;
    },
  ): Promise<{ path: string; size: number }> {
    if (this.guard.resolveLexically(rel) === this.root)
      throw new KilnError('E_IS_A_DIRECTORY', 'The workspace root is a folder');
    const origin = options.origin ?? 'operator';
    await this.makeParents(rel, origin);
    return this.guard.pin(rel, async (target) => {
      const before = await fs.lstat(target.path).catch(() => null);
      if (before?.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `"${rel}" is a folder`);
      if (before && options.onConflict !== 'overwrite') throw exists(rel);
      const temp = `${target.dir}/${tempName()}`;
      this.ledger.mark(target.abs, origin);
      try {
        // Hashed on the way (an undo knows the file is still what this wrote, at any size).
        const hash = createHash('sha256');
        const hashing = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        });
        // A few MiB buffered lets the stream gather the socket's 64 KiB pieces into one writev.
        await pipeline(source, hashing, createWriteStream(temp, { flags: 'wx', highWaterMark: 4 * 1024 * 1024 }), {
          signal: options.signal,
        });
        const nextHash = hash.digest('hex');
        if (options.mode !== undefined) await fs.chmod(temp, options.mode & 0o7777);
        if (before?.isFile())
          await this.keepReplaced(target, before.size, origin, 'write', () => readWhole(target.path, rel), {
            nextHash,
            mode: before.mode & 0o7777,
          });
        else if (!before)
          await this.keepReplaced(target, 0, origin, 'create', async () => Buffer.alloc(0), { nextHash });
        if (before) await fs.rename(temp, target.path);
        else
          await fs.link(temp, target.path).catch(async (err) => {
            const code = (err as NodeJS.ErrnoException).code;
            if (code === 'EEXIST') throw exists(rel);
            // A filesystem without hard links (FAT, some network mounts): check, then rename.
            if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
            if (
              await fs.lstat(target.path).then(
                () => true,
                () => false,
              )
            )
              throw exists(rel);
            await fs.rename(temp, target.path);
          });
      } finally {
        await fs.rm(temp, { force: true });
      }
      const after = await fs.lstat(target.path);
      const written = this.relative(target.abs);
      // Not hashed (an upload may be gigabytes): the echo is told by inode and ctime, else it is news.
      this.report({ type: before ? 'updated' : 'created', path: written, isDir: false, origin }, diskState(after, ''));
      return { path: written, size: after.size };
    });
  }

  /**
   * Copies (or moves) an entry from outside the workspace, by its absolute path, into a workspace folder, with
   * the same copy as `copy`: through a private temp, links copied as links and never followed.
   */
  copyIn(
    source: string,
    toDir: string,
    options: JobOptions & { onConflict?: 'reject' | 'overwrite' | 'keepBoth'; move?: boolean } = {},
  ): Promise<{ path: string }> {
    return this.ledger.track(() => this.copyInNow(source, toDir, options));
  }

  private copyInNow(
    source: string,
    toDir: string,
    options: JobOptions & { onConflict?: 'reject' | 'overwrite' | 'keepBoth'; move?: boolean },
  ): Promise<{ path: string }> {
    if (!path.isAbsolute(source)) throw new KilnError('E_BAD_REQUEST', `"${source}" is not an absolute path`);
    const src = path.resolve(source);
    return this.guard.pin(
      toDir,
      async (dir) => {
        const srcInfo = await fs.lstat(src).catch((err) => {
          throw notFound(source, err);
        });
        if (!srcInfo.isDirectory() && !srcInfo.isSymbolicLink()) refuseSpecial(source, srcInfo);
        const srcReal = await fs.realpath(src);
        if (srcInfo.isDirectory() && (dir.real === srcReal || dir.real.startsWith(srcReal + path.sep)))
          throw new KilnError('E_INTO_SELF', `Cannot copy folder "${path.basename(src)}" into itself`);
        let name = path.basename(src);
        const existing = await fs.lstat(path.join(dir.path, name)).catch(() => null);
        if (existing && options.onConflict === 'keepBoth') name = await freeName(dir.path, name, srcInfo.isDirectory());
        else if (existing && options.onConflict !== 'overwrite') throw exists(path.posix.join(toDir, name));
        const target = path.join(dir.abs, name);
        const origin = options.origin ?? 'operator';
        const replacing = existing && options.onConflict === 'overwrite';
        this.ledger.mark(target, origin);
        const pinned: PinnedPath = {
          abs: target,
          real: path.join(dir.real, name),
          dir: dir.path,
          path: `${dir.path}/${name}`,
        };
        if (replacing && existing.isFile())
          await this.keepReplaced(pinned, existing.size, origin, 'delete', () => readWhole(pinned.path, name));
        const parked = replacing ? await this.park(pinned) : null;
        try {
          if (options.move) await this.renameOrCopy(src, pinned, kindOf(srcInfo), options.jobId);
          else await this.copyViaTemp(src, { dir: dir.path, name }, kindOf(srcInfo), options.jobId);
        } catch (err) {
          if (parked) await fs.rename(parked.path, pinned.path).catch(() => undefined);
          throw err;
        }
        if (parked) await this.discardParked(parked);
        if (replacing)
          this.report({ type: 'deleted', path: this.relative(target), isDir: existing.isDirectory(), origin });
        this.report({ type: 'created', path: this.relative(target), isDir: srcInfo.isDirectory(), origin });
        return { path: this.relative(target) };
      },
      { folder: true },
    );
  }

  /**
   * Makes `rel` a symbolic link to `linkTarget` (replacing a file or link there, atomically: a link made under a
   * temp name, then renamed over). The link is never followed; what it replaces is kept in local history.
   */
  writeLink(rel: string, linkTarget: string, options: { origin?: Origin } = {}): Promise<void> {
    return this.ledger.track(() => this.writeLinkNow(rel, linkTarget, options.origin ?? 'operator'));
  }

  private async writeLinkNow(rel: string, linkTarget: string, origin: Origin): Promise<void> {
    await this.guard.pin(rel, async (target) => {
      const existing = await fs.lstat(target.path).catch(() => null);
      if (existing?.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `"${rel}" is a folder`);
      if (existing && !existing.isFile() && !existing.isSymbolicLink()) refuseSpecial(rel, existing);
      const nextHash = hashText(linkTarget);
      if (existing?.isSymbolicLink()) {
        const before = await fs.readlink(target.path);
        if (before === linkTarget) return;
        await this.keepReplaced(target, before.length, origin, 'write', async () => Buffer.from(before), {
          nextHash,
          kind: 'symlink',
        });
      } else if (existing) {
        await this.keepReplaced(target, existing.size, origin, 'write', () => readWhole(target.path, rel), {
          nextHash,
          mode: existing.mode & 0o7777,
        });
      } else {
        await this.keepReplaced(target, 0, origin, 'create', async () => Buffer.alloc(0), {
          nextHash,
          kind: 'symlink',
        });
      }
      const temp = `${target.dir}/${tempName()}`;
      this.ledger.mark(target.abs, origin);
      await fs.symlink(linkTarget, temp);
      await fs.rename(temp, target.path).catch(async (err) => {
        await fs.rm(temp, { force: true });
        throw err;
      });
      this.report({ type: existing ? 'updated' : 'created', path: this.relative(target.abs), isDir: false, origin });
    });
  }

  /** What is at `rel` now (null: nothing), never following a final link; a file's content hashed as a stream. */
  async entryState(rel: string): Promise<EntryState | null> {
    return this.guard.pin(rel, async (target) => {
      const info = await fs.lstat(target.path).catch(() => null);
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

  /** To the OS trash where there is one; permanent only when asked explicitly. */
  delete(rel: string, options: { permanent?: boolean; origin?: Origin } = {}): Promise<{ trashed: boolean }> {
    return this.ledger.track(() => this.deleteNow(rel, options));
  }

  private async deleteNow(
    rel: string,
    options: { permanent?: boolean; origin?: Origin },
  ): Promise<{ trashed: boolean }> {
    if (this.guard.resolveLexically(rel) === this.root)
      throw new KilnError('E_BAD_REQUEST', 'The workspace root cannot be deleted');
    return this.guard.pin(rel, async (target) => {
      const info = await fs.lstat(target.path).catch((err) => {
        throw notFound(rel, err);
      });
      const origin = options.origin ?? 'operator';
      this.ledger.mark(target.abs, origin);
      const deleted: FsChange = { type: 'deleted', path: this.relative(target.abs), isDir: info.isDirectory(), origin };
      if (info.isFile())
        await this.keepReplaced(target, info.size, origin, 'delete', () => readWhole(target.path, rel));
      // A folder, for an Agent turn: its undo makes it again, empty ones included (its files are kept one by one).
      else if (info.isDirectory())
        await this.keepReplaced(target, 0, origin, 'delete', async () => Buffer.alloc(0), { kind: 'dir' });
      else if (info.isSymbolicLink()) {
        const link = await fs.readlink(target.path);
        await this.keepReplaced(target, link.length, origin, 'delete', async () => Buffer.from(link), {
          kind: 'symlink',
        });
      }
      if (!options.permanent) {
        // The trash takes a plain path, so it gets the entry's staged path, never one through the folders checked above.
        const parked = this.trash ? await this.park(target) : null;
        if (parked && (await this.trash!(parked.real, parked.original).catch(() => false))) {
          await fs.rm(parked.holder, { recursive: true, force: true });
          this.report(deleted);
          return { trashed: true };
        }
        if (parked) await this.unpark(parked, target, info.isDirectory());
        throw new KilnError('E_PERMISSION', `There is no trash here; "${rel}" can only be deleted permanently`, {
          noTrash: true,
        });
      }
      await fs.rm(target.path, { recursive: true, force: true });
      this.report(deleted);
      return { trashed: false };
    });
  }

  /** How many files and folders lie under a folder, so a delete confirmation can say so. */
  async count(rel: string): Promise<{ files: number; dirs: number }> {
    return this.guard.pin(
      rel,
      async (target) => {
        const info = await fs.lstat(target.path).catch((err) => {
          throw notFound(rel, err);
        });
        if (!info.isDirectory()) return { files: 1, dirs: 0 };
        const tree = await walk(target.path);
        return { files: tree.files.length + tree.links.length, dirs: tree.dirs.length };
      },
      { followFinal: true },
    );
  }

  /** The first free "name copy N" in a folder; `name` is one file name, guarded like any path. */
  async nextFreeName(dirRel: string, name: string): Promise<{ path: string }> {
    if (!isSingleName(name)) {
      throw new KilnError('E_OUTSIDE_WORKSPACE', `"${name.replace(/\0/g, '\\0')}" is not a single file name`);
    }
    return this.guard.pin(
      dirRel,
      async (dir) => {
        const existing = await fs.lstat(path.join(dir.path, name)).catch(() => null);
        return {
          path: this.relative(path.join(dir.abs, await freeName(dir.path, name, existing?.isDirectory() ?? false))),
        };
      },
      { folder: true },
    );
  }

  cancelJob(jobId: string): boolean {
    const job = this.jobs.get(jobId);
    job?.abort();
    return Boolean(job);
  }

  /**
   * Removes temp files that a killed Kiln left behind (a save or copy cut short). Runs in the background
   * at start; a temp whose writer is still alive (another Kiln process on this workspace) is left alone.
   */
  async sweepStaleTemps(signal?: AbortSignal, skipFolder: (rel: string) => boolean = () => false): Promise<string[]> {
    const removed: string[] = [];
    const pending = [this.root];
    while (pending.length && !signal?.aborted) {
      const dir = pending.pop()!;
      const dirents = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const dirent of dirents) {
        const abs = path.join(dir, dirent.name);
        if (isStaleTemp(dirent.name)) {
          const rel = this.relative(abs);
          // A trash holder still holding its entry: Kiln died before the trash took it, or the OS trash
          // restored it there. It is the operator's; bring it back to the root instead of removing it.
          if (dirent.name.startsWith(TEMP_PREFIX + TRASH_MARK))
            await this.recoverFromHolder(rel).catch(() => undefined);
          // Pinned like any delete, so a link swapped in here cannot point the removal elsewhere; not reported:
          // Kiln's temp files are never entries anyone shows.
          await this.guard
            .pin(rel, (target) => fs.rm(target.path, { recursive: true, force: true }))
            .then(
              () => removed.push(rel),
              () => undefined,
            );
        } else if (dirent.isDirectory() && !skipFolder(this.relative(abs))) {
          pending.push(abs);
        }
      }
      // Start-up never waits for this walk; let everything else go first.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  // ---- internals ----

  /** Moves what a dead Kiln's trash holder still holds to the workspace root, under a free name. */
  private async recoverFromHolder(holderRel: string): Promise<void> {
    for (const name of await this.guard.pin(holderRel, (holder) => fs.readdir(holder.path), { folder: true })) {
      const { path: to } = await this.nextFreeName('', name);
      await this.move(`${holderRel}/${name}`, to, { origin: 'external' });
    }
  }

  /** Creates the missing folders above `rel`, one guarded step at a time. */
  private async makeParents(rel: string, origin: Origin): Promise<void> {
    const segments = this.relative(this.guard.resolveLexically(rel)).split('/').slice(0, -1);
    let first: string | null = null;
    for (let i = 1; i <= segments.length; i++) {
      await this.guard.pin(segments.slice(0, i).join('/'), async (folder) => {
        const info = await fs.lstat(folder.path).catch(() => null);
        if (info) return;
        this.ledger.mark(folder.abs, origin);
        await fs.mkdir(folder.path).catch((err) => {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        });
        await this.keepReplaced(folder, 0, origin, 'create', async () => Buffer.alloc(0), { kind: 'dir' });
        first ??= this.relative(folder.abs);
      });
    }
    // One `created` for the new subtree, as for a folder made any other way.
    if (first !== null) this.report({ type: 'created', path: first, isDir: true, origin });
  }

  /** Lets local history keep what is about to be replaced; history never fails the operation itself. */
  private async keepReplaced(
    target: PinnedPath,
    size: number,
    origin: Origin,
    reason: ReplacedFile['reason'],
    read: () => Promise<Buffer>,
    extra: Pick<ReplacedFile, 'nextHash' | 'kind' | 'mode'> = {},
  ): Promise<void> {
    if (!this.beforeReplace) return;
    await this.beforeReplace({ path: this.relative(target.abs), size, origin, reason, read, ...extra }).catch(
      () => undefined,
    );
  }

  /** Kiln's own temp files are nobody's business: they never reach the feed. */
  private report(change: FsChange, disk?: DiskState): void {
    const name = path.posix.basename(change.type === 'moved' ? change.to : change.path);
    if (name.startsWith(TEMP_PREFIX)) return;
    // Out of a temp folder (a recovered trash holder) is a creation for everyone who shows entries.
    if (change.type === 'moved' && change.from.split('/').some((segment) => segment.startsWith(TEMP_PREFIX))) {
      this.onChange({ type: 'created', path: change.to, isDir: change.isDir, origin: change.origin }, disk);
      return;
    }
    this.onChange(change, disk);
  }

  private async writeAtomically(
    target: PinnedPath,
    bytes: Buffer,
    mode: number | undefined,
    origin: Origin,
    beforeRename?: () => Promise<void>,
    durable = true,
  ): Promise<Stats> {
    const temp = `${target.dir}/${tempName()}`;
    this.ledger.mark(target.abs, origin);
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

  /**
   * Moves an entry aside, through its pinned parent and under its own name, into a fresh hidden folder Kiln
   * creates at the (realpath'd) root, so it can go back or to the OS trash. `real` then names only the root and
   * Kiln's own folder: a link swapped into the entry's old path after the check cannot redirect the trash.
   * An entry on another device than the root (a mount inside the workspace) is staged beside itself instead.
   */
  private async park(target: PinnedPath): Promise<Parked> {
    try {
      return await stage(target, this.root, this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      return stage(target, target.dir, path.dirname(target.real));
    }
  }

  /** Puts a parked entry back; if its name was taken meanwhile, under the first free "name copy". */
  private async unpark(parked: Parked, target: PinnedPath, isDir: boolean): Promise<void> {
    const name = await freeName(target.dir, path.basename(target.real), isDir);
    await fs.rename(parked.path, `${target.dir}/${name}`);
    await fs.rmdir(parked.holder).catch(() => undefined);
  }

  /** A replaced entry goes to the OS trash under its own name (recoverable), else it is removed. */
  private async discardParked(parked: Parked): Promise<void> {
    const trashed = this.trash ? await this.trash(parked.real, parked.original).catch(() => false) : false;
    if (!trashed) await fs.rm(parked.path, { recursive: true, force: true });
    await fs.rm(parked.holder, { recursive: true, force: true });
  }

  private async renameOrCopy(src: string, dst: PinnedPath, kind: EntryKind, jobId?: string): Promise<void> {
    try {
      await fs.rename(src, dst.path);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    }
    // Across devices: copy fully, then remove the source. A failure leaves the source whole and no target.
    await this.copyViaTemp(src, { dir: dst.dir, name: path.basename(dst.real) }, kind, jobId);
    await fs.rm(src, { recursive: true, force: true });
  }

  /**
   * Copies into a hidden temp sibling and renames it into place, so a cancelled copy leaves nothing behind.
   * Symbolic links are copied as links (their target text), never as the content they point to.
   */
  private async copyViaTemp(
    src: string,
    dst: { dir: string; name: string },
    kind: EntryKind,
    jobId?: string,
  ): Promise<void> {
    const controller = new AbortController();
    const id = jobId ?? randomBytes(6).toString('hex');
    this.jobs.set(id, controller);
    const temp = `${dst.dir}/${tempName()}`;
    try {
      if (kind === 'link') {
        await fs.symlink(await fs.readlink(src), temp);
      } else if (kind === 'file') {
        refuseSpecial(path.basename(src), await fs.lstat(src));
        await fs.copyFile(src, temp, fsConstants.COPYFILE_EXCL);
        this.onProgress?.({ jobId: id, done: 1, total: 1, finished: false });
      } else {
        const tree = await walk(src);
        if (tree.special) refuseSpecial(tree.special, { isFile: () => false });
        const total = tree.files.length;
        await fs.mkdir(temp);
        for (const dir of tree.dirs) await fs.mkdir(path.join(temp, dir), { recursive: true });
        for (const link of tree.links) await fs.symlink(await fs.readlink(path.join(src, link)), path.join(temp, link));
        let done = 0;
        for (const file of tree.files) {
          if (controller.signal.aborted) throw new KilnError('E_CANCELLED', 'Copy cancelled; nothing was left behind');
          await fs.copyFile(path.join(src, file), path.join(temp, file));
          done++;
          if (done % 50 === 0) this.onProgress?.({ jobId: id, done, total, finished: false });
          // Yield so a cancel request can be heard between files.
          if (done % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
      }
      if (controller.signal.aborted) throw new KilnError('E_CANCELLED', 'Copy cancelled; nothing was left behind');
      await fs.rename(temp, `${dst.dir}/${dst.name}`);
    } catch (err) {
      await fs.rm(temp, { recursive: true, force: true });
      throw err;
    } finally {
      this.jobs.delete(id);
      this.onProgress?.({ jobId: id, done: 0, total: 0, finished: true });
    }
  }
}

type EntryKind = 'file' | 'dir' | 'link';

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
    await fs.rmdir(holder).catch(() => undefined);
    throw err;
  });
  return parked;
}

interface Parked {
  holder: string;
  path: string;
  real: string;
  /** Where the entry was before it was parked: what the OS trash should offer to restore to. */
  original: string;
}

function kindOf(info: Stats): EntryKind {
  return info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'dir' : 'file';
}

/** The first of name, "name copy", "name copy 2"... that is free in the folder. */
async function freeName(dir: string, name: string, isDir: boolean): Promise<string> {
  let candidate = name;
  for (
    let attempt = 1;
    await fs.lstat(path.join(dir, candidate)).then(
      () => true,
      () => false,
    );
    attempt++
  ) {
    candidate = duplicateName(name, attempt, isDir);
  }
  return candidate;
}

function isSingleName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

/**
 * Temp names carry the writer's pid, so a later start can tell a dead writer's leftovers from live work.
 * A trash holder is marked: what it holds is the operator's, never a partial write.
 */
function tempName(mark = ''): string {
  return `${TEMP_PREFIX}${mark}${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

const TRASH_MARK = 'trash-';
const TEMP_NAME = /^\.kiln-(trash-)?(?:(\d+)-)?[0-9a-f]{12}\.tmp$/;

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

/** Opens a final path component without following a symbolic link swapped in after the guard's check. */
async function openFinal(at: string, flags: number, rel: string): Promise<fs.FileHandle> {
  try {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, holding one of the few I/O threads.
    return await fs.open(at, flags | NO_FOLLOW | fsConstants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new KilnError('E_OUTSIDE_WORKSPACE', `Path "${rel}" turned into a symbolic link while it was opened`);
    }
    // A socket cannot be opened at all.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') refuseSpecial(rel, { isFile: () => false });
    throw notFound(rel, err);
  }
}

/** The current bytes and mode of a file about to be replaced; null when there is none. */
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

async function readExisting(at: string, rel: string): Promise<{ bytes: Buffer; mode: number } | null> {
  let handle: fs.FileHandle;
  try {
    handle = await openFinal(at, fsConstants.O_RDONLY, rel);
  } catch (err) {
    if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return null;
    throw err;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `${rel} is a folder, not a file`);
    refuseSpecial(rel, info);
    return { bytes: await handle.readFile(), mode: info.mode };
  } finally {
    await handle.close();
  }
}

/** A file's bytes, opened without following a link swapped in; empty when it is gone. */
async function readWhole(at: string, rel: string): Promise<Buffer> {
  return (await readExisting(at, rel))?.bytes ?? Buffer.alloc(0);
}

async function readHead(handle: fs.FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}

/** Relative paths of every folder, file and symbolic link under root (folders parents first); links are not followed. */
async function walk(root: string): Promise<{ dirs: string[]; files: string[]; links: string[]; special?: string }> {
  const dirs: string[] = [];
  const files: string[] = [];
  const links: string[] = [];
  let special: string | undefined;
  const pending = [''];
  while (pending.length) {
    const rel = pending.shift()!;
    for (const dirent of await fs.readdir(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, dirent.name) : dirent.name;
      if (dirent.isDirectory()) {
        dirs.push(child);
        pending.push(child);
      } else if (dirent.isSymbolicLink()) {
        links.push(child);
      } else {
        files.push(child);
        if (!dirent.isFile()) special ??= child;
      }
    }
  }
  return { dirs, files, links, special };
}

/** A folder's entries as listed (hidden ones only when asked; Kiln's temp files never), in the OS's order. */
async function readFolder(dir: string, showHidden: boolean): Promise<ReadEntry[]> {
  const dirents = await fs.readdir(dir, { withFileTypes: true });
  const found: ReadEntry[] = [];
  for (const dirent of dirents) {
    if (!showHidden && dirent.name.startsWith('.')) continue;
    if (dirent.name.startsWith(TEMP_PREFIX)) continue;
    if (dirent.isSymbolicLink()) {
      // A link is listed by what it points to (a link to a folder opens); links leading outside are still refused on use.
      const target = await fs.stat(path.join(dir, dirent.name)).catch(() => null);
      found.push(readEntry(dirent.name, target ? listedKind(target) : 'file', true));
    } else {
      found.push(readEntry(dirent.name, listedKind(dirent), false));
    }
  }
  return found;
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

/** FIFOs, sockets and devices are listed, never read, written or copied: answered at once. */
function refuseSpecial(rel: string, info: { isFile(): boolean }): void {
  if (!info.isFile()) {
    throw new KilnError(
      'E_NOT_REGULAR_FILE',
      `"${rel}" is not a regular file (a pipe, socket or device); Kiln does not open it`,
    );
  }
}

function diskState(info: Stats, hash: string): DiskState {
  return { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, hash };
}

function notFound(rel: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new KilnError('E_NOT_FOUND', `"${rel}" does not exist`);
  return err;
}

function exists(rel: string): KilnError {
  return new KilnError('E_EXISTS', `"${rel}" already exists`);
}
