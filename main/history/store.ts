import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { Emitter, type Event } from '../../shared/base/event';
import { KilnError } from '../../shared/errors';
import { HistoryEntry, type HistoryOrigin, type HistoryReason } from '../../shared/contract';
import { createLogger } from '../log';

const log = createLogger('history');
/** Another process (or the pruner) may evict a version between the listing and the read. */
// A lineage a batch made has no `path` file: its entry names the path.
const noPathFile = log.caught('a lineage without a path file (made by a batch): its entry names the path', null);
const versionGone = log.caught('a version was evicted between its listing and its read; skipped', null);

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);
const EMPTY_GZ = gzip(Buffer.alloc(0));
const EMPTY_HASH = createHash('sha256').update(Buffer.alloc(0)).digest('hex');
/** Lineages a batch builds between two yields to the event loop (each a few small synchronous writes). */
const RECORDS_PER_SLICE = 64;

/** The total-size cap is checked after this many recorded versions (and once at start), not on every save. */
const PRUNE_EVERY = 64;
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/** The bounds of local history (docs/history-and-hot-exit.md, "Local history"). */
export interface HistoryLimits {
  /** Versions kept per file; the oldest go first. */
  maxEntriesPerFile: number;
  /** Files larger than this are not recorded (notebooks with outputs fit well under it). */
  maxFileBytes: number;
  /** Bytes on disk (compressed) for one workspace's history; the oldest versions of any file go first. */
  maxTotalBytes: number;
}

export const DEFAULT_HISTORY_LIMITS: HistoryLimits = {
  maxEntriesPerFile: 100,
  maxFileBytes: 16 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
};

export interface HistoryStoreOptions {
  /** The app's data folder; history goes under `history/<workspace key>/`. */
  dataDir: string;
  /** The workspace root (realpath'd): it names the workspace's history folder. */
  root: string;
  limits?: Partial<HistoryLimits>;
}

export interface RecordRequest {
  path: string;
  bytes: Buffer;
  origin: HistoryOrigin;
  reason: HistoryReason;
  nextHash?: string;
  agentSession?: string;
  turn?: string;
  mcpClient?: string;
  batch?: string;
  kind?: HistoryEntry['kind'];
  mode?: number;
  contentNotKept?: boolean;
  /** Recording time; now unless given. */
  at?: number;
}

/**
 * Local history on disk: one folder per file lineage, named by a hash of the file's current path, holding
 * a `path` file and each version as `<id>.gz` (the content, compressed) and `<id>.json` (its entry). A version
 * of empty content (a file that did not exist) has no `.gz`, and a lineage a batch made has no `path` until it
 * moves: its entry names its path (see `recordCreations`).
 *
 * Several processes (the app and any MCP servers on the workspace) share it without a lock: every entry has
 * its own unique name and is renamed into place whole, the `.json` only after its `.gz`, so a reader never
 * sees half a version and no writer overwrites another's. A move renames the lineage's folder to the new
 * path's name, so a lookup is always one folder name, never an index that could go stale in another process.
 */
export class HistoryStore {
  readonly dir: string;
  readonly limits: HistoryLimits;
  private readonly changed = new Emitter<{ path: string }>();
  private recordsSincePrune = 0;
  /** The workspace's history folder was made (once per store, not on every record). */
  private dirMade: Promise<void> | null = null;
  private pruning: Promise<void> | null = null;
  readonly onDidChange: Event<{ path: string }> = this.changed.event;

  constructor(options: HistoryStoreOptions) {
    const key = createHash('sha256').update(options.root).digest('hex').slice(0, 16);
    this.dir = path.join(options.dataDir, 'history', key);
    this.limits = { ...DEFAULT_HISTORY_LIMITS, ...options.limits };
  }

  /**
   * Keeps `bytes` as a version of `path`. Skipped when too large, or when it is the version recorded last
   * (nothing changed since). Resolves with the entry, or null when skipped.
   */
  async record(request: RecordRequest): Promise<HistoryEntry | null> {
    if (request.bytes.length > this.limits.maxFileBytes) return null;
    const hash = createHash('sha256').update(request.bytes).digest('hex');
    // Most records of a run's new files are empty ("did not exist"): their packing is made once.
    const packed = request.bytes.length === 0 ? await EMPTY_GZ : await gzip(request.bytes);
    for (let attempt = 0; ; attempt++) {
      const { folder, fresh } = await this.ensureLineage(request.path);
      try {
        // A lineage made just now has no versions to compare with or trim (a run's thousands of new files).
        const latest = fresh ? undefined : await this.latestIn(folder);
        // Nothing new to keep, unless a turn or batch needs its own record of what it replaced.
        if (
          latest?.hash === hash &&
          latest.mode === request.mode &&
          !request.turn &&
          !request.batch &&
          request.reason !== 'create'
        )
          return null;
        const entry = this.entryFor(request, hash);
        // The content under its own new name, then the entry renamed into place: readers list entries by their
        // `.json`, so none sees a version whose content is not whole.
        await fs.writeFile(path.join(folder, `${entry.id}.gz`), packed, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
        await writeWhole(path.join(folder, `${entry.id}.json`), JSON.stringify(entry));
        if (!fresh) await this.trimLineage(folder);
        this.changed.fire({ path: request.path });
        if (++this.recordsSincePrune >= PRUNE_EVERY) this.pruneInBackground();
        return entry;
      } catch (err) {
        // The lineage moved under us (another process renamed it for a move): look it up again, once.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && attempt === 0) continue;
        throw err;
      }
    }
  }

  /**
   * `record` of many files just created (a run's new files, in a turn or batch), as one batch: a file with no
   * lineage yet gets its whole lineage folder (its `path`, the empty version and its entry) built in a staging
   * folder beside the history and renamed into place in one step, so a reader in another process sees all of it or
   * none, with no temp-and-rename per part; one that has a lineage already is recorded the ordinary way. Small
   * synchronous writes, a slice at a time (a thread-pool hop per write costs more than the write).
   */
  async recordCreations(requests: readonly RecordRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const staging = `${this.dir}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.dirMade ??= fs.mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE }).then(() => undefined);
    await this.dirMade;
    await fs.mkdir(staging, { mode: PRIVATE_DIR_MODE });
    const ordinary: RecordRequest[] = [];
    try {
      for (let i = 0; i < requests.length; i++) {
        if (i > 0 && i % RECORDS_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
        const request = requests[i];
        if (request.bytes.length > 0 || request.reason !== 'create') {
          ordinary.push(request);
          continue;
        }
        const entry = this.entryFor(request, EMPTY_HASH);
        const built = path.join(staging, String(i));
        // The entry alone: it names the path (no `path` file) and its content is empty (no `.gz`). Creating each
        // file costs a journaled metadata write; on a busy disk the four of a full lineage were most of the batch.
        mkdirSync(built, { mode: PRIVATE_DIR_MODE });
        writeFileSync(path.join(built, `${entry.id}.json`), JSON.stringify(entry), { mode: PRIVATE_FILE_MODE });
        try {
          // Fails on a lineage folder that holds anything (another process recorded the file meanwhile).
          renameSync(built, this.lineageDir(request.path));
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
          ordinary.push(request);
          continue;
        }
        this.changed.fire({ path: request.path });
      }
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
    for (const request of ordinary) await this.record(request);
    this.recordsSincePrune += requests.length - ordinary.length;
    if (this.recordsSincePrune >= PRUNE_EVERY) this.pruneInBackground();
  }

  /** Whether the file has a history (one look at its folder, not a read of its versions). */
  async has(rel: string): Promise<boolean> {
    return fs.stat(this.lineageDir(rel)).then(
      () => true,
      () => false,
    );
  }

  /** The file's versions, newest first. */
  async list(rel: string): Promise<HistoryEntry[]> {
    // A turn's note that a file too large to keep changed has no version to show.
    return (await this.entriesIn(this.lineageDir(rel))).filter((entry) => !entry.contentNotKept).reverse();
  }

  /** One version's bytes; E_NOT_FOUND when it was evicted or never existed. */
  async read(rel: string, id: string): Promise<{ entry: HistoryEntry; bytes: Buffer }> {
    if (!/^[0-9a-f-]+$/.test(id)) throw new KilnError('E_BAD_REQUEST', `"${id}" is not a history entry id`);
    const folder = this.lineageDir(rel);
    try {
      const entry = HistoryEntry.parse(JSON.parse(await fs.readFile(path.join(folder, `${id}.json`), 'utf8')));
      if (entry.contentNotKept)
        throw new KilnError('E_NOT_FOUND', `That version of "${rel}" was too large to keep in local history`);
      // Empty content is not stored (a batch's creations have no `.gz`).
      const bytes = entry.size === 0 ? Buffer.alloc(0) : await gunzip(await fs.readFile(path.join(folder, `${id}.gz`)));
      return { entry, bytes };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new KilnError('E_NOT_FOUND', `That version of "${rel}" is no longer in local history`);
      }
      throw err;
    }
  }

  /** Every entry recorded with this Agent turn or MCP batch, oldest first, with the path each file has now. */
  async entriesOfTurn(turn: string): Promise<Array<{ current: string; entry: HistoryEntry }>> {
    const found: Array<{ current: string; entry: HistoryEntry }> = [];
    for (const { folder, current } of await this.lineages()) {
      for (const entry of await this.entriesIn(folder)) {
        if (entry.turn === turn || entry.batch === turn) found.push({ current, entry });
      }
    }
    return found.sort((a, b) => (a.entry.id < b.entry.id ? -1 : 1));
  }

  /**
   * Follows a move made through Kiln: the lineage of `from` (and, for a folder, of every file under it)
   * becomes the lineage of `to`. A lineage already at the target keeps its versions; the moved ones join it.
   */
  async applyMove(from: string, to: string, isDir: boolean): Promise<void> {
    const moves: Array<[string, string]> = [];
    if (isDir) {
      for (const { current } of await this.lineages()) {
        if (current.startsWith(`${from}/`)) moves.push([current, `${to}${current.slice(from.length)}`]);
      }
    } else moves.push([from, to]);
    for (const [oldPath, newPath] of moves) await this.moveLineage(oldPath, newPath);
  }

  /** Evicts the oldest versions, across files, until the workspace's history fits `maxTotalBytes`. */
  async prune(): Promise<void> {
    const all: Array<{ folder: string; id: string; bytes: number }> = [];
    let total = 0;
    for (const { folder } of await this.lineages()) {
      const sizes = new Map<string, number>();
      for (const name of await readdirOrEmpty(folder)) {
        const size = (await fs.stat(path.join(folder, name)).catch(versionGone))?.size ?? 0;
        total += size;
        const id = /^(.+)\.(?:gz|json)$/.exec(name)?.[1];
        if (id) sizes.set(id, (sizes.get(id) ?? 0) + size);
      }
      for (const [id, bytes] of sizes) all.push({ folder, id, bytes });
    }
    all.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const victim of all) {
      if (total <= this.limits.maxTotalBytes) break;
      await removeEntry(victim.folder, victim.id);
      total -= victim.bytes;
    }
    for (const { folder } of await this.lineages()) {
      if ((await readdirOrEmpty(folder)).every((name) => name === 'path'))
        await fs.rm(folder, { recursive: true, force: true });
    }
  }

  /** Starts a prune unless one is running; the writer that triggered it does not wait (and never fails by it). */
  pruneInBackground(): void {
    if (this.pruning) return;
    this.recordsSincePrune = 0;
    this.pruning = this.prune()
      .catch(log.caught('pruning local history failed; the next record tries again', undefined, 'warn'))
      .finally(() => (this.pruning = null));
  }

  /** Resolves when a prune under way is done (tests; shutdown). */
  async settled(): Promise<void> {
    await this.pruning;
  }

  /** Bytes the workspace's history takes on disk (the benchmark reports it). */
  async diskUse(): Promise<number> {
    let total = 0;
    for (const { folder } of await this.lineages()) {
      for (const name of await readdirOrEmpty(folder)) {
        total += (await fs.stat(path.join(folder, name)).catch(versionGone))?.size ?? 0;
      }
    }
    return total;
  }

  async dispose(): Promise<void> {
    this.changed.dispose();
    await this.settled();
  }

  // ---- internals ----

  private entryFor(request: RecordRequest, hash: string): HistoryEntry {
    const at = request.at ?? Date.now();
    return HistoryEntry.parse({
      id: `${String(at).padStart(15, '0')}-${process.pid}-${randomBytes(4).toString('hex')}`,
      path: request.path,
      at,
      origin: request.origin,
      reason: request.reason,
      size: request.bytes.length,
      hash,
      nextHash: request.nextHash,
      agentSession: request.agentSession,
      turn: request.turn,
      mcpClient: request.mcpClient,
      batch: request.batch,
      kind: request.kind,
      mode: request.mode,
      contentNotKept: request.contentNotKept,
    });
  }

  private lineageDir(rel: string): string {
    return path.join(this.dir, createHash('sha256').update(rel).digest('hex').slice(0, 32));
  }

  /** The lineage's folder, made if missing; `fresh` when this call made it (it holds nothing else yet). */
  private async ensureLineage(rel: string): Promise<{ folder: string; fresh: boolean }> {
    const folder = this.lineageDir(rel);
    this.dirMade ??= fs.mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE }).then(() => undefined);
    // Made again by the next record; the lineage's own mkdir below reports the cause.
    await this.dirMade.catch((err: unknown) => {
      log.caught("making history's folder failed; the next record makes it again", undefined)(err);
      this.dirMade = null;
    });
    const fresh = await fs.mkdir(folder, { mode: PRIVATE_DIR_MODE }).then(
      () => true,
      async (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        // The workspace's folder was removed meanwhile (a test's cleanup, an operator): made again, once.
        if (err.code !== 'ENOENT') throw err;
        await fs.mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
        return fs.mkdir(folder, { mode: PRIVATE_DIR_MODE }).then(
          () => true,
          (again: NodeJS.ErrnoException) => {
            if (again.code === 'EEXIST') return false;
            throw again;
          },
        );
      },
    );
    // Written when missing: a new lineage, or one whose `path` a killed process never wrote.
    const named =
      !fresh &&
      (await fs.stat(path.join(folder, 'path')).then(
        () => true,
        () => false,
      ));
    if (!named) await writeWhole(path.join(folder, 'path'), rel);
    return { folder, fresh };
  }

  private async moveLineage(from: string, to: string): Promise<void> {
    const source = this.lineageDir(from);
    const names = await readdirOrEmpty(source);
    if (names.length === 0) return;
    const { folder: target } = await this.ensureLineage(to);
    // Entry by entry: each rename is whole, so a reader in another process sees every version in one place or the other.
    for (const name of names) {
      if (name === 'path') continue;
      await fs
        .rename(path.join(source, name), path.join(target, name))
        .catch(
          log.caught(
            'a version could not follow its file to its new name; it stays under the old one',
            undefined,
            'warn',
          ),
        );
    }
    await fs.rm(source, { recursive: true, force: true });
    await this.trimLineage(target);
    this.changed.fire({ path: to });
  }

  private async entriesIn(folder: string): Promise<HistoryEntry[]> {
    const ids = (await readdirOrEmpty(folder))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -5))
      .sort();
    const entries: HistoryEntry[] = [];
    for (const id of ids) {
      const text = await fs.readFile(path.join(folder, `${id}.json`), 'utf8').catch(versionGone);
      if (text === null) continue; // evicted meanwhile
      const parsed = HistoryEntry.safeParse(safeJson(text));
      if (parsed.success) entries.push(parsed.data);
    }
    return entries;
  }

  /** The newest entry only (one read, not one per version: this is on every save's path). */
  private async latestIn(folder: string): Promise<HistoryEntry | undefined> {
    const ids = (await readdirOrEmpty(folder))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -5))
      .sort();
    for (const id of ids.reverse()) {
      const text = await fs.readFile(path.join(folder, `${id}.json`), 'utf8').catch(versionGone);
      const parsed = text === null ? null : HistoryEntry.safeParse(safeJson(text));
      if (parsed?.success) return parsed.data;
    }
    return undefined;
  }

  private async trimLineage(folder: string): Promise<void> {
    const ids = (await readdirOrEmpty(folder))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -5))
      .sort();
    for (const id of ids.slice(0, Math.max(0, ids.length - this.limits.maxEntriesPerFile))) {
      await removeEntry(folder, id);
    }
  }

  private async lineages(): Promise<Array<{ folder: string; current: string }>> {
    const found: Array<{ folder: string; current: string }> = [];
    for (const name of await readdirOrEmpty(this.dir)) {
      const folder = path.join(this.dir, name);
      // A lineage a batch made names its path in its entry; one without either is being made or moved: skipped.
      const current =
        (await fs.readFile(path.join(folder, 'path'), 'utf8').catch(noPathFile)) ??
        (await this.entriesIn(folder))[0]?.path ??
        null;
      if (current !== null) found.push({ folder, current });
      else log.debug('a lineage folder without its path (one being made or moved) is skipped', { folder });
    }
    return found;
  }
}

/** Written to a unique temp name, then renamed into place: a reader sees all of it or nothing. */
async function writeWhole(file: string, data: string | Buffer): Promise<void> {
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, data, { mode: PRIVATE_FILE_MODE });
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/** The entry first, so no listing shows a version whose content is already gone. */
async function removeEntry(folder: string, id: string): Promise<void> {
  await fs.rm(path.join(folder, `${id}.json`), { force: true });
  await fs.rm(path.join(folder, `${id}.gz`), { force: true });
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(log.caught('a history folder not made yet (or gone) holds nothing', []));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
