import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';
import { Emitter, type Event } from '../../shared/base/event';
import { KilnError } from '../../shared/errors';
import { HistoryEntry, type HistoryOrigin, type HistoryReason } from '../../shared/contract';
import { createLogger } from '../log';
import { sweepBatchLeftovers } from './leftovers';
import { groupByPack, HistoryPacks, type PackedVersion, safeJson, writeWhole } from './packs';

const log = createLogger('history');
/** Another process (or the pruner) may evict a version between the listing and the read. */
// A lineage a batch made has no `path` file: its entry names the path.
const noPathFile = log.caught('a lineage without a path file (made by a batch): its entry names the path', null);
const versionGone = log.caught('a version was evicted between its listing and its read; skipped', null);

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);
const EMPTY_GZ = gzip(Buffer.alloc(0));
/** A lineage folder's name: a hash of the file's path (anything else in the history folder is not a lineage). */
const LINEAGE_NAME = /^[0-9a-f]{32}$/;

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
 * moves: its entry names its path. A batch's versions (a run's new files, `recordCreations`) are one pack instead
 * (packs.ts): a file's versions are those of its folder and those of the packs that name its path.
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
  private sweeping: Promise<void> | null = null;
  private readonly packs: HistoryPacks;
  readonly onDidChange: Event<{ path: string }> = this.changed.event;

  constructor(options: HistoryStoreOptions) {
    const key = createHash('sha256').update(options.root).digest('hex').slice(0, 16);
    this.dir = path.join(options.dataDir, 'history', key);
    this.limits = { ...DEFAULT_HISTORY_LIMITS, ...options.limits };
    this.packs = new HistoryPacks(path.join(this.dir, 'packs'));
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
        const inPacks = await this.packed(request.path);
        // A lineage made just now has no versions to compare with or trim, unless a pack holds some.
        const latest = newest(fresh ? undefined : await this.latestIn(folder), inPacks.at(-1)?.entry);
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
        if (!fresh || inPacks.length > 0) await this.trimLineage(folder, request.path);
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
   * `record` of many files just created (a run's new files, in a turn or batch), as one batch: their versions go
   * into one pack (one file written whole and renamed into place, so a reader in another process sees all of the
   * batch or none of it), not a lineage folder per file. A file too large to keep is left out, as `record` does.
   */
  async recordCreations(requests: readonly RecordRequest[]): Promise<void> {
    const kept = requests.filter((request) => request.bytes.length <= this.limits.maxFileBytes);
    if (kept.length === 0) return;
    const versions = await Promise.all(
      kept.map(async (request) => ({
        entry: this.entryFor(request, createHash('sha256').update(request.bytes).digest('hex')),
        gz: request.bytes.length === 0 ? null : await gzip(request.bytes),
      })),
    );
    await this.packs.write(versions);
    for (const request of kept) this.changed.fire({ path: request.path });
    this.recordsSincePrune += kept.length;
    if (this.recordsSincePrune >= PRUNE_EVERY) this.pruneInBackground();
  }

  /** Whether the file has a history (one look at its folder, not a read of its versions). */
  async has(rel: string): Promise<boolean> {
    const folder = await fs.stat(this.lineageDir(rel)).then(
      () => true,
      () => false,
    );
    return folder || (await this.packed(rel)).length > 0;
  }

  /** The file's versions, newest first. */
  async list(rel: string): Promise<HistoryEntry[]> {
    // A turn's note that a file too large to keep changed has no version to show.
    const entries = [...(await this.entriesIn(this.lineageDir(rel))), ...(await this.packed(rel)).map((v) => v.entry)];
    return entries.filter((entry) => !entry.contentNotKept).sort((a, b) => (a.id < b.id ? 1 : -1));
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
        const packed = (await this.packed(rel)).find((version) => version.entry.id === id);
        if (packed && !packed.entry.contentNotKept) return { entry: packed.entry, bytes: await packedBytes(packed) };
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
    for (const versions of (await this.packs.index()).byPath.values()) {
      for (const { entry } of versions)
        if (entry.turn === turn || entry.batch === turn) found.push({ current: entry.path, entry });
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
      const currents = [
        ...(await this.lineages()).map(({ current }) => current),
        ...(await this.packs.index()).byPath.keys(),
      ];
      for (const current of new Set(currents)) {
        if (current.startsWith(`${from}/`)) moves.push([current, `${to}${current.slice(from.length)}`]);
      }
    } else moves.push([from, to]);
    for (const [oldPath, newPath] of moves) await this.moveLineage(oldPath, newPath);
  }

  /** Evicts the oldest versions, across files, until the workspace's history fits `maxTotalBytes`. */
  async prune(): Promise<void> {
    const all: Array<
      | { folder: string; id: string; bytes: number }
      | { pack: string; id: string; live: readonly string[]; bytes: number }
    > = [];
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
    // A pack frees its space only once all of it goes: a batch is evicted whole, when its oldest version's turn
    // comes. A refused pack counts in the total but is never evicted.
    total += await this.packs.diskUse();
    for (const [pack, { bytes, live }] of (await this.packs.index()).packs) {
      if (live.length > 0) all.push({ pack, id: [...live].sort()[0], live, bytes });
    }
    all.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const victim of all) {
      if (total <= this.limits.maxTotalBytes) break;
      if ('pack' in victim) await this.packs.drop(victim.pack, victim.live);
      else await removeEntry(victim.folder, victim.id);
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
    await this.sweeping;
    await this.pruning;
  }

  /**
   * Removes what a batch left half made when its process died: a staging folder beside the history (where batches
   * were built before packs) and a pack's temp file, each once its process is gone (or it is a day old). Logged;
   * another live process's are left alone. Run at start; never fails (a failure is logged).
   */
  sweepLeftovers(now = Date.now()): Promise<void> {
    this.sweeping ??= sweepBatchLeftovers(this.dir, this.packs.dir, now).catch(
      log.caught("sweeping a crashed batch's leftovers failed; the next start tries again", undefined, 'warn'),
    );
    return this.sweeping;
  }

  /** Bytes the workspace's history takes on disk (the benchmark reports it). */
  async diskUse(): Promise<number> {
    let total = 0;
    for (const { folder } of await this.lineages()) {
      for (const name of await readdirOrEmpty(folder)) {
        total += (await fs.stat(path.join(folder, name)).catch(versionGone))?.size ?? 0;
      }
    }
    return total + (await this.packs.diskUse());
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
    const packed = await this.packed(from);
    if (names.length === 0 && packed.length === 0) return;
    const { folder: target } = await this.ensureLineage(to);
    // A packed version never moves in its pack: it is written into the new lineage first, then dropped from the
    // pack, so a reader sees it in one place or both, never in neither.
    for (const version of packed) {
      const content = HistoryPacks.content(version);
      if (content) await writeWhole(path.join(target, `${version.entry.id}.gz`), content);
      await writeWhole(path.join(target, `${version.entry.id}.json`), JSON.stringify(version.entry));
    }
    for (const [pack, ids] of groupByPack(packed)) await this.packs.drop(pack, ids);
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
    if (names.length > 0) await fs.rm(source, { recursive: true, force: true });
    await this.trimLineage(target, to);
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

  /** Keeps the newest `maxEntriesPerFile` of the folder's and the packs' versions of `rel`. */
  private async trimLineage(folder: string, rel: string): Promise<void> {
    const packed = await this.packed(rel);
    const inPack = new Map(packed.map((version) => [version.entry.id, version.pack]));
    const ids = (await readdirOrEmpty(folder))
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -5))
      .concat([...inPack.keys()])
      .sort();
    const dropped = new Map<string, string[]>();
    for (const id of ids.slice(0, Math.max(0, ids.length - this.limits.maxEntriesPerFile))) {
      const pack = inPack.get(id);
      if (pack) dropped.set(pack, [...(dropped.get(pack) ?? []), id]);
      else await removeEntry(folder, id);
    }
    for (const [pack, drop] of dropped) await this.packs.drop(pack, drop);
  }

  /** The packs' versions of `rel`, oldest first. */
  private async packed(rel: string): Promise<readonly PackedVersion[]> {
    return [...((await this.packs.index()).byPath.get(rel) ?? [])].sort((a, b) => (a.entry.id < b.entry.id ? -1 : 1));
  }

  private async lineages(): Promise<Array<{ folder: string; current: string }>> {
    const found: Array<{ folder: string; current: string }> = [];
    for (const name of await readdirOrEmpty(this.dir)) {
      if (!LINEAGE_NAME.test(name)) continue; // the packs folder
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

/** The entry first, so no listing shows a version whose content is already gone. */
async function removeEntry(folder: string, id: string): Promise<void> {
  await fs.rm(path.join(folder, `${id}.json`), { force: true });
  await fs.rm(path.join(folder, `${id}.gz`), { force: true });
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(log.caught('a history folder not made yet (or gone) holds nothing', []));
}

/** The newer of two entries (by id: ids begin with their time). */
function newest(a: HistoryEntry | undefined, b: HistoryEntry | undefined): HistoryEntry | undefined {
  if (!a || !b) return a ?? b;
  return a.id < b.id ? b : a;
}

async function packedBytes(version: PackedVersion): Promise<Buffer> {
  const content = HistoryPacks.content(version);
  return content ? gunzip(content) : Buffer.alloc(0);
}
