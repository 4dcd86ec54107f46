import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { Event } from '../../shared/base/event';
import type { Entry, FileContent, Listing, WriteResult } from '../../shared/contract';
import { listingEntries } from '../../shared/listing';
import { KilnError } from '../../shared/errors';
import { cancelJob, copyEntry, moveEntry, type MoveOptions } from './copy';
import { WorkspaceCore, type CopyProgress, type JobOptions, type WorkspaceOptions } from './core';
import { createFilesIn, type CreateFilesResult, type NewFile } from './create-batch';
import { deleteEntry, type DeleteOptions } from './delete';
import {
  countEntries,
  entryExists,
  entryState,
  FolderListings,
  nextFreeName,
  readFile,
  statEntry,
  type EntryState,
  type ListingOptions,
} from './listing';
import { agentJournalPath, OriginLedger } from './origin-ledger';
import { copyIn, receiveFile, type CopyInOptions, type ReceiveOptions } from './receive';
import { sweepStaleTemps } from './temp-names';
import { createDir, createFile, writeContent, writeLink, type OriginOptions, type WriteOptions } from './write';

export type { CopyProgress, DiskState, JobOptions, ReplacedFile, WorkspaceOptions } from './core';
export type { CopyInOptions, ReceiveOptions } from './receive';
export type { CreateFilesResult, NewFile } from './create-batch';
export type { DeleteOptions } from './delete';
export type { EntryState, ListingOptions } from './listing';
export type { MoveOptions } from './copy';
export type { OriginOptions, WriteOptions } from './write';
export { isKilnTempName } from './temp-names';

/**
 * The workspace file service: every file operation Kiln performs goes through here and its guard. A facade:
 * each operation is one function of its job's file (listing, write, receive, copy, delete, temp-names) over the
 * shared core; the ones that change the disk run inside the ledger's `track`, so the watcher waits for them.
 */
export class Workspace {
  readonly root: string;
  readonly ledger: OriginLedger;
  private readonly core: WorkspaceCore;
  private readonly listings: FolderListings;
  /** How far a long copy or cross-device move is (every few dozen files, and at its end). */
  readonly onDidProgress: Event<CopyProgress>;

  /** Use `Workspace.open` unless root is already absolute and realpath'd. */
  constructor(options: WorkspaceOptions) {
    this.root = options.root;
    this.ledger = options.ledger ?? new OriginLedger();
    this.core = new WorkspaceCore({ ...options, ledger: this.ledger });
    this.listings = new FolderListings(this.core);
    this.onDidProgress = this.core.progress.event;
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
    return Boolean(this.core.trash);
  }

  resolve(rel: string): Promise<string> {
    return this.core.guard.resolve(rel);
  }

  relative(abs: string): string {
    return this.core.relative(abs);
  }

  /** Normalizes a relative path, or an absolute one inside the workspace, to the canonical relative form. */
  normalize(pathInOrOutside: string): string {
    if (path.isAbsolute(pathInOrOutside)) {
      const abs = path.resolve(pathInOrOutside);
      if (!this.core.guard.contains(abs)) {
        throw new KilnError('E_OUTSIDE_WORKSPACE', `Path "${pathInOrOutside}" is outside the workspace`);
      }
      return this.relative(abs);
    }
    return this.relative(this.core.guard.resolveLexically(pathInOrOutside));
  }

  // ---- reads: nothing changes on disk ----

  async list(rel: string, options: { showHidden?: boolean } = {}): Promise<Entry[]> {
    return listingEntries(await this.listings.listing(rel, options));
  }

  /** A folder's entries in display order, in the wire's compact form; a big one in pages (see FolderListings). */
  async listing(rel: string, options: ListingOptions = {}): Promise<Listing> {
    return this.listings.listing(rel, options);
  }

  async stat(rel: string): Promise<Entry> {
    return statEntry(this.core, rel);
  }

  async exists(rel: string): Promise<boolean> {
    return entryExists(this.core, rel);
  }

  async read(rel: string): Promise<FileContent> {
    return readFile(this.core, rel);
  }

  /** What is at `rel` now (null: nothing), never following a final link; a file's content hashed as a stream. */
  async entryState(rel: string): Promise<EntryState | null> {
    return entryState(this.core, rel);
  }

  /** How many files and folders lie under a folder, so a delete confirmation can say so. */
  async count(rel: string): Promise<{ files: number; dirs: number }> {
    return countEntries(this.core, rel);
  }

  /** The first free "name copy N" in a folder; `name` is one file name, guarded like any path. */
  async nextFreeName(dirRel: string, name: string): Promise<{ path: string }> {
    return nextFreeName(this.core, dirRel, name);
  }

  // ---- changes: each one operation of the ledger ----

  /** Atomic write: a temp file in the same folder, then rename over the target. Keeps mode and encoding. */
  write(rel: string, text: string, options: WriteOptions = {}): Promise<WriteResult> {
    return this.op(() => writeContent(this.core, rel, text, options));
  }

  /** `write` of exact bytes (what a program left, binary or in any encoding), not text to encode. */
  writeBytes(rel: string, bytes: Buffer, options: WriteOptions = {}): Promise<WriteResult> {
    return this.op(() => writeContent(this.core, rel, bytes, options));
  }

  createFile(rel: string, text = '', options: OriginOptions = {}): Promise<WriteResult> {
    return this.op(() => createFile(this.core, rel, text, options));
  }

  createDir(rel: string, options: OriginOptions = {}): Promise<Entry> {
    return this.op(() => createDir(this.core, rel, options));
  }

  /**
   * Creates new files in one folder as one operation (a run's applied writes): guarded once, never over a name
   * already taken (those come back in `taken`), history told once, one `created` per file (see `createFilesIn`).
   */
  createFilesIn(dirRel: string, files: readonly NewFile[], options: OriginOptions = {}): Promise<CreateFilesResult> {
    return this.op(() => createFilesIn(this.core, dirRel, files, options.origin ?? 'operator'));
  }

  /** Makes `rel` a symbolic link to `linkTarget`, atomically; what it replaces is kept in local history. */
  writeLink(rel: string, linkTarget: string, options: OriginOptions = {}): Promise<void> {
    return this.op(() => writeLink(this.core, rel, linkTarget, options));
  }

  /** The one move primitive behind rename, drag-and-drop and cut/paste (see `moveEntry`). */
  move(from: string, to: string, options: MoveOptions = {}): Promise<{ path: string }> {
    return this.op(() => moveEntry(this.core, from, to, options));
  }

  /** Duplicates into a folder; a clash gets "name copy.ext", "name copy 2.ext", like VS Code. */
  copy(from: string, toDir: string, options: JobOptions = {}): Promise<{ path: string }> {
    return this.op(() => copyEntry(this.core, from, toDir, options));
  }

  /** A file arriving from outside (an upload), renamed into place only when whole (see `receiveFile`). */
  receive(
    rel: string,
    source: AsyncIterable<Uint8Array>,
    options: ReceiveOptions = {},
  ): Promise<{ path: string; size: number }> {
    return this.op(() => receiveFile(this.core, rel, source, options));
  }

  /** Copies (or moves) an entry from outside the workspace, by its absolute path, into a workspace folder. */
  copyIn(source: string, toDir: string, options: CopyInOptions = {}): Promise<{ path: string }> {
    return this.op(() => copyIn(this.core, source, toDir, options));
  }

  /** To the OS trash where there is one; permanent only when asked explicitly. */
  delete(rel: string, options: DeleteOptions = {}): Promise<{ trashed: boolean }> {
    return this.op(() => deleteEntry(this.core, rel, options));
  }

  cancelJob(jobId: string): boolean {
    return cancelJob(this.core, jobId);
  }

  /**
   * Removes temp files that a killed Kiln left behind (a save or copy cut short), in the background at start;
   * a trash holder's entry is brought back to the root instead.
   */
  sweepStaleTemps(signal?: AbortSignal, skipFolder?: (rel: string) => boolean): Promise<string[]> {
    const target = {
      root: this.root,
      guard: this.core.guard,
      recoverFromHolder: (holderRel: string) => this.recoverFromHolder(holderRel),
    };
    return sweepStaleTemps(target, signal, skipFolder);
  }

  /** Moves what a dead Kiln's trash holder still holds to the workspace root, under a free name. */
  private async recoverFromHolder(holderRel: string): Promise<void> {
    const names = await this.core.guard.pin(holderRel, (holder) => fs.readdir(holder.path), { folder: true });
    for (const name of names) {
      const { path: to } = await this.nextFreeName('', name);
      await this.move(`${holderRel}/${name}`, to, { origin: 'external' });
    }
  }

  /** Every change to the disk runs as one operation of the ledger, so the watcher never reports it first. */
  private op<T>(run: () => Promise<T>): Promise<T> {
    return this.ledger.track(run);
  }
}
