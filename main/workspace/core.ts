import { constants as fsConstants, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { Emitter } from '../../shared/base/event';
import type { FsChange, Origin } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import { createLogger } from '../log';
import { NO_FOLLOW, PathGuard, type PinnedPath } from './guard';
import { duplicateName } from './naming';
import { OriginLedger } from './origin-ledger';
import { TEMP_PREFIX } from './temp-names';

export const log = createLogger('workspace');

export interface WorkspaceOptions {
  root: string;
  ledger?: OriginLedger;
  /**
   * Moves `absPath` (Kiln's staged copy of the entry) to the OS trash, recording `originalPath` as where it
   * was deleted from; resolves false where the platform has none. Injected so tests use a temp trash.
   */
  trash?: (absPath: string, originalPath: string) => Promise<boolean>;
  /**
   * Reports each operation as it completes, before its caller hears back: the change feed's own half.
   * `disk` describes a written file, so the watcher's echo of it can be told from a later edit.
   */
  onChange?: (change: FsChange, disk?: DiskState | readonly DiskState[]) => void;
  /**
   * Hears of each file Kiln is about to replace or delete, before it does, with a way to read what is there
   * now (local history keeps it). Awaited, so the version is kept before it is gone; its failure is logged.
   */
  beforeReplace?: (replaced: ReplacedFile) => Promise<void>;
  /**
   * Hears of the files a batch just created (`createFilesIn`), all at once, so local history records them as one
   * batch. Told after the files are made, not before: nothing was replaced, and a name found taken meanwhile is
   * then never recorded as made by Kiln. Without it, each goes to `beforeReplace`. Awaited; its failure is logged.
   */
  keepCreated?: (created: ReplacedFile[]) => Promise<void>;
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

/** What a written file looks like on disk right after the write (identity and content). */
export interface DiskState {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
}

/** How far a long copy or cross-device move is (the `fs.progress` payload). */
export interface CopyProgress {
  jobId: string;
  done: number;
  total: number;
  finished: boolean;
}

/** Options of an operation that may run as a cancellable job (a copy, a move across devices). */
export interface JobOptions {
  origin?: Origin;
  jobId?: string;
}

/**
 * What every operation shares: the guard, the ledger, relative paths, the change report, history's keeping of
 * what is replaced, and the making of missing parents. One per Workspace; the operation files take it first.
 */
export class WorkspaceCore {
  readonly root: string;
  readonly guard: PathGuard;
  readonly ledger: OriginLedger;
  readonly trash?: WorkspaceOptions['trash'];
  /** Progress of long copies and cross-device moves; the Workspace exposes it as `onDidProgress`. */
  readonly progress = new Emitter<CopyProgress>({ onListenerError: logListenerError });
  /** Running copy jobs, by id, so `cancelJob` can stop one between files. */
  readonly jobs = new Map<string, AbortController>();
  private readonly onChange: NonNullable<WorkspaceOptions['onChange']>;
  private readonly beforeReplace?: WorkspaceOptions['beforeReplace'];
  private readonly keepCreatedBatch?: WorkspaceOptions['keepCreated'];

  constructor(options: WorkspaceOptions & { ledger: OriginLedger }) {
    this.root = options.root;
    this.guard = new PathGuard(options.root);
    this.ledger = options.ledger;
    this.trash = options.trash;
    this.onChange = options.onChange ?? (() => undefined);
    this.beforeReplace = options.beforeReplace;
    this.keepCreatedBatch = options.keepCreated;
  }

  relative(abs: string): string {
    return this.guard.relative(abs);
  }

  /** Refuses an operation on the workspace root itself (`code`: what the caller's refusal is called). */
  refuseRoot(rel: string, code: 'E_IS_A_DIRECTORY' | 'E_BAD_REQUEST', message: string): void {
    if (this.guard.resolveLexically(rel) === this.root) throw new KilnError(code, message);
  }

  /** Kiln's own temp files are nobody's business: they never reach the feed. */
  report(change: FsChange, disk?: DiskState | readonly DiskState[]): void {
    // A batch never holds a temp name: its maker (create-batch.ts) writes those the ordinary way.
    if (change.type === 'createdFiles') {
      this.onChange(change, disk);
      return;
    }
    const name = path.posix.basename(change.type === 'moved' ? change.to : change.path);
    if (name.startsWith(TEMP_PREFIX)) return;
    // Out of a temp folder (a recovered trash holder) is a creation for everyone who shows entries.
    if (change.type === 'moved' && change.from.split('/').some((segment) => segment.startsWith(TEMP_PREFIX))) {
      this.onChange({ type: 'created', path: change.to, isDir: change.isDir, origin: change.origin }, disk);
      return;
    }
    this.onChange(change, disk);
  }

  /** Lets local history keep what is about to be replaced; history never fails the operation itself. */
  async keepReplaced(
    target: PinnedPath,
    size: number,
    origin: Origin,
    reason: ReplacedFile['reason'],
    read: () => Promise<Buffer>,
    extra: Pick<ReplacedFile, 'nextHash' | 'kind' | 'mode'> = {},
  ): Promise<void> {
    if (!this.beforeReplace) return;
    const replaced = { path: this.relative(target.abs), size, origin, reason, read, ...extra };
    await this.beforeReplace(replaced).catch(
      log.caught(
        'local history could not keep the replaced version; the operation goes on without it',
        undefined,
        'warn',
      ),
    );
  }

  /** Lets local history keep a batch of files just created (see WorkspaceOptions.keepCreated). */
  async keepCreated(created: Array<Omit<ReplacedFile, 'reason' | 'read'>>): Promise<void> {
    const failed = log.caught(
      'local history could not keep the files a batch created; they stay, undo of the turn will not remove them',
      undefined,
      'warn',
    );
    const files: ReplacedFile[] = created.map((file) => ({
      ...file,
      reason: 'create',
      read: async () => Buffer.alloc(0),
    }));
    if (this.keepCreatedBatch) {
      await this.keepCreatedBatch(files).catch(failed);
      return;
    }
    if (!this.beforeReplace) return;
    for (const file of files) await this.beforeReplace(file).catch(failed);
  }

  /** Creates the missing folders above `rel`, one guarded step at a time. */
  async makeParents(rel: string, origin: Origin): Promise<void> {
    const segments = this.relative(this.guard.resolveLexically(rel)).split('/').slice(0, -1);
    let first: string | null = null;
    for (let i = 1; i <= segments.length; i++) {
      await this.guard.pin(segments.slice(0, i).join('/'), async (folder) => {
        if (await lstatOrNull(folder.path)) return;
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
}

/**
 * What is at a path, the final link not followed; null when nothing is. Any other failure (a permission) also
 * reads as nothing there, as it always has, but is logged.
 */
export async function lstatOrNull(at: string): Promise<Stats | null> {
  try {
    return await fs.lstat(at);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      log.warn('an entry could not be examined; treated as absent', { path: at, err });
    return null;
  }
}

export type EntryKind = 'file' | 'dir' | 'link';

export function kindOf(info: Stats): EntryKind {
  return info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'dir' : 'file';
}

/** The first of name, "name copy", "name copy 2"... that is free in the folder. */
export async function freeName(dir: string, name: string, isDir: boolean): Promise<string> {
  let candidate = name;
  for (let attempt = 1; await lstatOrNull(path.join(dir, candidate)); attempt++) {
    candidate = duplicateName(name, attempt, isDir);
  }
  return candidate;
}

/** Opens a final path component without following a symbolic link swapped in after the guard's check. */
export async function openFinal(at: string, flags: number, rel: string): Promise<fs.FileHandle> {
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
export async function readExisting(at: string, rel: string): Promise<{ bytes: Buffer; mode: number } | null> {
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
export async function readWhole(at: string, rel: string): Promise<Buffer> {
  return (await readExisting(at, rel))?.bytes ?? Buffer.alloc(0);
}

/** Relative paths of every folder, file and symbolic link under root (folders parents first); links are not followed. */
export async function walk(
  root: string,
): Promise<{ dirs: string[]; files: string[]; links: string[]; special?: string }> {
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

/** FIFOs, sockets and devices are listed, never read, written or copied: answered at once. */
export function refuseSpecial(rel: string, info: { isFile(): boolean }): void {
  if (!info.isFile()) {
    throw new KilnError(
      'E_NOT_REGULAR_FILE',
      `"${rel}" is not a regular file (a pipe, socket or device); Kiln does not open it`,
    );
  }
}

export function diskState(info: Stats, hash: string): DiskState {
  return { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, hash };
}

export function notFound(rel: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new KilnError('E_NOT_FOUND', `"${rel}" does not exist`);
  return err;
}

export function exists(rel: string): KilnError {
  return new KilnError('E_EXISTS', `"${rel}" already exists`);
}

/** lstat, a missing entry turned into E_NOT_FOUND for `rel`. */
export function lstatOrNotFound(at: string, rel: string): Promise<Stats> {
  return fs.lstat(at).catch((err) => {
    throw notFound(rel, err);
  });
}
