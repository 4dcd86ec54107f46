import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { Entry, FileContent, Origin, WriteResult } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { decodeText, encodeText, hashText } from './encoding';
import { PathGuard } from './guard';
import { sortEntries } from '../../shared/natural-sort';
import { duplicateName } from './naming';
import { agentJournalPath, OriginLedger } from './origin-ledger';

/** Files larger than this are read only up to this many bytes; the editor says so. */
const MAX_READ_BYTES = 64 * 1024 * 1024;
const TEMP_PREFIX = '.kiln-';

export interface WorkspaceOptions {
  root: string;
  ledger?: OriginLedger;
  /** Moves a path to the OS trash; resolves false where the platform has none. Injected so tests use a temp trash. */
  trash?: (absPath: string) => Promise<boolean>;
  /** Reports progress of a long copy or cross-device move. */
  onProgress?: (progress: { jobId: string; done: number; total: number; finished: boolean }) => void;
}

export interface WriteOptions {
  origin?: Origin;
  /** The hash the caller read; if the disk differs the write is refused with E_CHANGED_ON_DISK. */
  expectedHash?: string;
  createParents?: boolean;
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
  private readonly jobs = new Map<string, AbortController>();

  /** Use `Workspace.open` unless root is already absolute and realpath'd. */
  constructor(options: WorkspaceOptions) {
    this.root = options.root;
    this.guard = new PathGuard(options.root);
    this.ledger = options.ledger ?? new OriginLedger();
    this.trash = options.trash;
    this.onProgress = options.onProgress;
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
    const abs = await this.existingDir(rel);
    const dirents = await fs.readdir(abs, { withFileTypes: true });
    const base = this.relative(abs);
    const entries: Entry[] = [];
    for (const dirent of dirents) {
      const hidden = dirent.name.startsWith('.');
      if (hidden && !options.showHidden) continue;
      if (dirent.name.startsWith(TEMP_PREFIX)) continue;
      let isDir = dirent.isDirectory();
      if (dirent.isSymbolicLink()) {
        // A link is listed by what it points to; links leading outside are still refused on use.
        isDir = await fs.stat(path.join(abs, dirent.name)).then((s) => s.isDirectory(), () => false);
      }
      entries.push({ name: dirent.name, path: base ? `${base}/${dirent.name}` : dirent.name, kind: isDir ? 'dir' : 'file', hidden });
    }
    return sortEntries(entries);
  }

  async stat(rel: string): Promise<Entry> {
    const abs = await this.resolve(rel);
    const info = await fs.stat(abs).catch((err) => { throw notFound(rel, err); });
    const name = abs === this.root ? this.name : path.basename(abs);
    return {
      name,
      path: this.relative(abs),
      kind: info.isDirectory() ? 'dir' : 'file',
      size: info.size,
      mtimeMs: info.mtimeMs,
      hidden: name.startsWith('.'),
    };
  }

  async exists(rel: string): Promise<boolean> {
    const abs = await this.resolve(rel);
    return fs.lstat(abs).then(() => true, () => false);
  }

  async read(rel: string): Promise<FileContent> {
    const abs = await this.resolve(rel);
    const info = await fs.stat(abs).catch((err) => { throw notFound(rel, err); });
    if (info.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `${rel} is a folder, not a file`);
    const truncated = info.size > MAX_READ_BYTES;
    const bytes = truncated ? await readHead(abs, MAX_READ_BYTES) : await fs.readFile(abs);
    const { text, encoding } = decodeText(bytes);
    return {
      path: this.relative(abs),
      text,
      binary: text === null,
      encoding,
      size: info.size,
      hash: hashText(bytes),
      mtimeMs: info.mtimeMs,
      truncated,
    };
  }

  /** Atomic write: a temp file in the same folder, then rename over the target. Keeps mode and encoding. */
  async write(rel: string, text: string, options: WriteOptions = {}): Promise<WriteResult> {
    const abs = await this.resolve(rel);
    if (abs === this.root) throw new KilnError('E_IS_A_DIRECTORY', 'The workspace root is a folder');
    const existing = await fs.stat(abs).catch(() => null);
    if (existing?.isDirectory()) throw new KilnError('E_IS_A_DIRECTORY', `${rel} is a folder, not a file`);
    let encoding = 'utf-8';
    if (existing) {
      const current = await fs.readFile(abs);
      // The whole file, as read() decodes it: a prefix can cut a UTF-8 character and look like Latin-1.
      encoding = decodeText(current).encoding;
      if (encoding === 'binary') encoding = 'utf-8';
      const currentHash = options.expectedHash ? hashText(current) : null;
      if (currentHash !== null && currentHash !== options.expectedHash) {
        throw new KilnError('E_CHANGED_ON_DISK', `${rel} changed on disk since it was read`, { hash: currentHash });
      }
    } else if (options.expectedHash) {
      throw new KilnError('E_CHANGED_ON_DISK', `${rel} was deleted on disk since it was read`, { hash: null });
    }
    if (options.createParents) await this.makeParents(abs, options.origin);
    else await this.requireParent(abs, rel);
    const bytes = encodeText(text, encoding);
    await this.writeAtomically(abs, bytes, existing?.mode, options.origin ?? 'operator');
    const after = await fs.stat(abs);
    return { path: this.relative(abs), hash: hashText(bytes), mtimeMs: after.mtimeMs, size: after.size };
  }

  async createFile(rel: string, text = '', options: { origin?: Origin } = {}): Promise<WriteResult> {
    const abs = await this.resolve(rel);
    await this.requireParent(abs, rel);
    const origin = options.origin ?? 'operator';
    this.ledger.mark(abs, origin);
    const handle = await fs.open(abs, 'wx').catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(rel);
      throw err;
    });
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    const after = await fs.stat(abs);
    return { path: this.relative(abs), hash: hashText(text), mtimeMs: after.mtimeMs, size: after.size };
  }

  async createDir(rel: string, options: { origin?: Origin } = {}): Promise<Entry> {
    const abs = await this.resolve(rel);
    await this.requireParent(abs, rel);
    this.ledger.mark(abs, options.origin ?? 'operator');
    await fs.mkdir(abs).catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(rel);
      throw err;
    });
    return this.stat(this.relative(abs));
  }

  /**
   * The one move primitive behind rename, drag-and-drop and cut/paste. Refuses a folder into itself,
   * refuses an existing target unless overwriting, is a no-op onto itself, and survives crossing devices.
   */
  async move(
    from: string,
    to: string,
    options: JobOptions & { onConflict?: 'reject' | 'overwrite' } = {},
  ): Promise<{ path: string }> {
    const src = await this.resolve(from);
    const dst = await this.resolve(to);
    if (src === this.root) throw new KilnError('E_BAD_REQUEST', 'The workspace root cannot be moved');
    const srcInfo = await fs.lstat(src).catch((err) => { throw notFound(from, err); });
    if (src === dst) return { path: this.relative(dst) };
    if (srcInfo.isDirectory() && dst.startsWith(src + path.sep)) {
      throw new KilnError('E_INTO_SELF', `Cannot move folder "${from}" into itself`);
    }
    await this.requireParent(dst, to);
    const dstInfo = await fs.lstat(dst).catch(() => null);
    const caseOnlyRename = dstInfo !== null && dstInfo.ino === srcInfo.ino && dstInfo.dev === srcInfo.dev;
    const origin = options.origin ?? 'operator';
    if (dstInfo && !caseOnlyRename) {
      if (options.onConflict !== 'overwrite') throw exists(to);
      if (dstInfo.isDirectory() && src.startsWith(dst + path.sep)) {
        throw new KilnError('E_INTO_SELF', `Cannot replace "${to}" with something inside it`);
      }
    }
    this.ledger.mark(src, origin);
    this.ledger.mark(dst, origin);
    // Park a replaced target beside itself so a failed move can put it back.
    const parked = dstInfo && !caseOnlyRename ? await this.park(dst) : null;
    try {
      await this.renameOrCopy(src, dst, srcInfo.isDirectory(), options.jobId);
    } catch (err) {
      if (parked) await fs.rename(parked, dst).catch(() => undefined);
      throw err;
    }
    if (parked) await this.discardParked(parked);
    return { path: this.relative(dst) };
  }

  /** Duplicates into a folder; a clash gets "name copy.ext", "name copy 2.ext", like VS Code. */
  async copy(from: string, toDir: string, options: JobOptions = {}): Promise<{ path: string }> {
    const src = await this.resolve(from);
    const srcInfo = await fs.stat(src).catch((err) => { throw notFound(from, err); });
    const dir = await this.existingDir(toDir);
    const target = await this.freeName(dir, path.basename(src), srcInfo.isDirectory());
    this.ledger.mark(target, options.origin ?? 'operator');
    await this.copyViaTemp(src, target, srcInfo.isDirectory(), options.jobId);
    return { path: this.relative(target) };
  }

  /** To the OS trash where there is one; permanent only when asked explicitly. */
  async delete(rel: string, options: { permanent?: boolean; origin?: Origin } = {}): Promise<{ trashed: boolean }> {
    const abs = await this.resolve(rel);
    if (abs === this.root) throw new KilnError('E_BAD_REQUEST', 'The workspace root cannot be deleted');
    await fs.lstat(abs).catch((err) => { throw notFound(rel, err); });
    this.ledger.mark(abs, options.origin ?? 'operator');
    if (!options.permanent) {
      if (this.trash && (await this.trash(abs))) return { trashed: true };
      throw new KilnError('E_PERMISSION', `There is no trash here; "${rel}" can only be deleted permanently`, { noTrash: true });
    }
    await fs.rm(abs, { recursive: true, force: true });
    return { trashed: false };
  }

  /** How many files and folders lie under a folder, so a delete confirmation can say so. */
  async count(rel: string): Promise<{ files: number; dirs: number }> {
    const abs = await this.resolve(rel);
    const info = await fs.stat(abs).catch((err) => { throw notFound(rel, err); });
    if (!info.isDirectory()) return { files: 1, dirs: 0 };
    const tree = await walk(abs);
    return { files: tree.files.length, dirs: tree.dirs.length };
  }

  async nextFreeName(dirRel: string, name: string): Promise<{ path: string }> {
    const dir = await this.existingDir(dirRel);
    const src = await fs.stat(path.join(dir, name)).catch(() => null);
    return { path: this.relative(await this.freeName(dir, name, src?.isDirectory() ?? false)) };
  }

  cancelJob(jobId: string): boolean {
    const job = this.jobs.get(jobId);
    job?.abort();
    return Boolean(job);
  }

  // ---- internals ----

  private async existingDir(rel: string): Promise<string> {
    const abs = await this.resolve(rel);
    const info = await fs.stat(abs).catch((err) => { throw notFound(rel, err); });
    if (!info.isDirectory()) throw new KilnError('E_NOT_A_DIRECTORY', `${rel || '(root)'} is not a folder`);
    return abs;
  }

  private async requireParent(abs: string, rel: string): Promise<void> {
    const parent = await fs.stat(path.dirname(abs)).catch(() => null);
    if (!parent) throw new KilnError('E_NOT_FOUND', `The folder for "${rel}" does not exist`);
    if (!parent.isDirectory()) throw new KilnError('E_NOT_A_DIRECTORY', `The parent of "${rel}" is not a folder`);
  }

  private async makeParents(abs: string, origin: Origin = 'operator'): Promise<void> {
    const parent = path.dirname(abs);
    if (await fs.stat(parent).then((s) => s.isDirectory(), () => false)) return;
    this.ledger.mark(parent, origin);
    await fs.mkdir(parent, { recursive: true });
  }

  private async writeAtomically(abs: string, bytes: Buffer, mode: number | undefined, origin: Origin): Promise<void> {
    const temp = tempSibling(abs);
    this.ledger.mark(abs, origin);
    try {
      const handle = await fs.open(temp, 'wx', mode ?? 0o666);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (mode !== undefined) await fs.chmod(temp, mode & 0o7777);
      await fs.rename(temp, abs);
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  /** Moves an entry aside, under its own name inside a hidden temp folder, so it can go back or to the trash. */
  private async park(abs: string): Promise<string> {
    const holder = tempSibling(abs);
    await fs.mkdir(holder);
    const parked = path.join(holder, path.basename(abs));
    await fs.rename(abs, parked).catch(async (err) => {
      await fs.rmdir(holder).catch(() => undefined);
      throw err;
    });
    return parked;
  }

  /** A replaced entry goes to the OS trash under its own name (recoverable), else it is removed. */
  private async discardParked(parked: string): Promise<void> {
    const trashed = this.trash ? await this.trash(parked).catch(() => false) : false;
    if (!trashed) await fs.rm(parked, { recursive: true, force: true });
    await fs.rm(path.dirname(parked), { recursive: true, force: true });
  }

  private async renameOrCopy(src: string, dst: string, isDir: boolean, jobId?: string): Promise<void> {
    try {
      await fs.rename(src, dst);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    }
    // Across devices: copy fully, then remove the source. A failure leaves the source whole and no target.
    await this.copyViaTemp(src, dst, isDir, jobId);
    await fs.rm(src, { recursive: true, force: true });
  }

  /** Copies into a hidden temp sibling and renames it into place, so a cancelled copy leaves nothing behind. */
  private async copyViaTemp(src: string, dst: string, isDir: boolean, jobId?: string): Promise<void> {
    const controller = new AbortController();
    const id = jobId ?? randomBytes(6).toString('hex');
    this.jobs.set(id, controller);
    const temp = tempSibling(dst);
    try {
      if (!isDir) {
        await fs.copyFile(src, temp, fsConstants.COPYFILE_EXCL);
        this.onProgress?.({ jobId: id, done: 1, total: 1, finished: false });
      } else {
        const tree = await walk(src);
        const total = tree.files.length;
        await fs.mkdir(temp);
        for (const dir of tree.dirs) await fs.mkdir(path.join(temp, dir), { recursive: true });
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
      await fs.rename(temp, dst);
    } catch (err) {
      await fs.rm(temp, { recursive: true, force: true });
      throw err;
    } finally {
      this.jobs.delete(id);
      this.onProgress?.({ jobId: id, done: 0, total: 0, finished: true });
    }
  }

  private async freeName(dir: string, name: string, isDir: boolean): Promise<string> {
    let candidate = path.join(dir, name);
    for (let attempt = 1; await fs.lstat(candidate).then(() => true, () => false); attempt++) {
      candidate = path.join(dir, duplicateName(name, attempt, isDir));
    }
    return candidate;
  }
}

function tempSibling(abs: string): string {
  return path.join(path.dirname(abs), `${TEMP_PREFIX}${randomBytes(6).toString('hex')}.tmp`);
}

async function readHead(abs: string, bytes: number): Promise<Buffer> {
  const handle = await fs.open(abs, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Relative paths of every folder and file under root (folders listed parents first). */
async function walk(root: string): Promise<{ dirs: string[]; files: string[] }> {
  const dirs: string[] = [];
  const files: string[] = [];
  const pending = [''];
  while (pending.length) {
    const rel = pending.shift()!;
    for (const dirent of await fs.readdir(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, dirent.name) : dirent.name;
      if (dirent.isDirectory()) {
        dirs.push(child);
        pending.push(child);
      } else {
        files.push(child);
      }
    }
  }
  return { dirs, files };
}

function notFound(rel: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new KilnError('E_NOT_FOUND', `"${rel}" does not exist`);
  return err;
}

function exists(rel: string): KilnError {
  return new KilnError('E_EXISTS', `"${rel}" already exists`);
}
