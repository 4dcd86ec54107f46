import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { HistoryEntry } from '../../shared/contract';
import { createLogger } from '../log';

const log = createLogger('history.packs');

/** The first line of a pack: its format, how many versions it holds, and the SHA-256 of everything after that line. */
const MAGIC = 'kiln-history-pack 1';
const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIR_MODE = 0o700;

/** One version kept in a pack: its entry and, unless its content is empty, the content gzipped (base64). */
export interface PackedVersion {
  entry: HistoryEntry;
  /** The pack's file name. */
  pack: string;
  gz?: string;
}

/** What the packs hold now, dropped versions left out. */
export interface PackIndex {
  /** By the path each version was recorded under (a packed version never moves: a move takes it out). */
  byPath: ReadonlyMap<string, readonly PackedVersion[]>;
  /** Every valid pack's name, with its size on disk and the ids still in it. */
  packs: ReadonlyMap<string, { bytes: number; live: readonly string[] }>;
}

/**
 * A batch's versions in one file (a run's 2,000 new files are one pack, not 2,000 lineage folders): `<id>.pack`,
 * written whole under a temp name and renamed into place, never changed after. A version leaves a pack (its file
 * moved, pruning, the per-file cap) by a drop file beside it (`<pack id>.<unique>.drop`, the ids one a line), each
 * writer's its own, so processes sharing the history need no lock and no writer undoes another's; a pack whose
 * versions are all dropped is removed. A pack that does not read back whole (a bad header, a checksum that does not
 * match, an entry that does not parse) is refused as a whole: logged, its versions not shown, the file left as it is.
 */
export class HistoryPacks {
  private readonly parsed = new Map<string, PackedVersion[] | null>();
  private readonly dropped = new Map<string, string[]>();
  /**
   * The index as of the folder's last listing. `stamp` is the folder's identity and mtime then (another process's
   * pack, drop or removal changes it); `settled` is false while that mtime was too recent to tell a later change
   * in the same clock tick from none (so it is listed again); this process's own writes set `stale`.
   */
  private built: { stamp: string | null; settled: boolean; index: PackIndex } | null = null;
  private stale = false;

  constructor(readonly dir: string) {}

  /** Writes one pack of `versions` (each with its exact content); resolves with the pack's name. */
  async write(versions: ReadonlyArray<{ entry: HistoryEntry; gz: Buffer | null }>): Promise<string> {
    const lines = versions.map(({ entry, gz }) =>
      JSON.stringify(gz ? { entry, gz: gz.toString('base64') } : { entry }),
    );
    const body = lines.join('\n');
    const header = `${MAGIC} ${versions.length} ${createHash('sha256').update(body).digest('hex')}`;
    const name = `${versions[0]?.entry.id ?? Date.now()}-${randomBytes(4).toString('hex')}.pack`;
    await fs.mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    try {
      await writeWhole(path.join(this.dir, name), `${header}\n${body}`);
    } finally {
      this.stale = true;
    }
    return name;
  }

  /** Drops `ids` from `pack` (one new drop file); removes the pack once nothing in it is left. */
  async drop(pack: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const base = pack.slice(0, -'.pack'.length);
    try {
      await writeWhole(
        path.join(this.dir, `${base}.${process.pid}-${randomBytes(4).toString('hex')}.drop`),
        ids.join('\n'),
      );
    } finally {
      this.stale = true;
    }
    const live = (await this.index()).packs.get(pack)?.live;
    if (live && live.length === 0) await this.remove(pack);
  }

  /**
   * The index of every valid pack. The folder is listed only when it changed since the last listing: by this
   * process's own write, drop or removal, or by another's (its mtime moved); else one `stat` (every save asks,
   * for its "same as the last version" check). A pack or drop file is read once per process.
   */
  async index(): Promise<PackIndex> {
    const before = await this.folderStamp();
    if (this.built && !this.stale && this.built.settled && this.built.stamp === before.stamp) return this.built.index;
    this.stale = false;
    const names = (await fs.readdir(this.dir).catch(noPacks)).sort();
    const settled = before.mtimeNs === null || nowNs() - before.mtimeNs >= RACY_NS;
    const present = new Set(names);
    for (const name of [...this.parsed.keys()]) if (!present.has(name)) this.parsed.delete(name);
    for (const name of [...this.dropped.keys()]) if (!present.has(name)) this.dropped.delete(name);
    const sizes = new Map<string, number>();
    for (const name of names) {
      if (name.endsWith('.pack') && !this.parsed.has(name)) {
        const read = await this.readPack(name);
        if (read === undefined) continue; // gone meanwhile
        this.parsed.set(name, read.versions);
        sizes.set(name, read.bytes);
      } else if (name.endsWith('.drop') && !this.dropped.has(name)) {
        const text = await fs.readFile(path.join(this.dir, name), 'utf8').catch(goneMeanwhile);
        if (text !== null) this.dropped.set(name, text.split('\n').filter(Boolean));
      }
    }
    const droppedIds = new Set([...this.dropped.values()].flat());
    const byPath = new Map<string, PackedVersion[]>();
    const packs = new Map<string, { bytes: number; live: string[] }>();
    for (const [name, versions] of this.parsed) {
      if (!versions) continue;
      const live: string[] = [];
      for (const version of versions) {
        if (droppedIds.has(version.entry.id)) continue;
        live.push(version.entry.id);
        const list = byPath.get(version.entry.path) ?? [];
        list.push(version);
        byPath.set(version.entry.path, list);
      }
      const bytes = sizes.get(name) ?? this.built?.index.packs.get(name)?.bytes ?? 0;
      packs.set(name, { bytes, live });
    }
    const index: PackIndex = { byPath, packs };
    this.built = { stamp: before.stamp, settled, index };
    return index;
  }

  /** The folder's inode and mtime (null when there is no folder yet): what any writer's change moves. */
  private async folderStamp(): Promise<{ stamp: string | null; mtimeNs: bigint | null }> {
    const info = await fs.stat(this.dir, { bigint: true }).catch(noFolderYet);
    return info ? { stamp: `${info.ino}:${info.mtimeNs}`, mtimeNs: info.mtimeNs } : { stamp: null, mtimeNs: null };
  }

  /** Bytes every file in the packs folder takes, refused packs and drop files included. */
  async diskUse(): Promise<number> {
    let total = 0;
    for (const name of await fs.readdir(this.dir).catch(noPacks))
      total += (await fs.stat(path.join(this.dir, name)).catch(goneMeanwhile))?.size ?? 0;
    return total;
  }

  /** A version's content: empty when none was kept. */
  static content(version: PackedVersion): Buffer | null {
    return version.gz ? Buffer.from(version.gz, 'base64') : null;
  }

  /** The pack first, then its drops: a drop file without its pack is read as nothing. */
  private async remove(pack: string): Promise<void> {
    const base = pack.slice(0, -'.pack'.length);
    try {
      await fs.rm(path.join(this.dir, pack), { force: true });
      for (const name of await fs.readdir(this.dir).catch(noPacks))
        if (name.startsWith(`${base}.`) && name.endsWith('.drop'))
          await fs.rm(path.join(this.dir, name), { force: true });
    } finally {
      this.stale = true;
    }
  }

  /** The pack's versions, null when it does not read back whole (refused, logged once), undefined when it is gone. */
  private async readPack(name: string): Promise<{ versions: PackedVersion[] | null; bytes: number } | undefined> {
    const file = path.join(this.dir, name);
    const raw = await fs.readFile(file).catch(goneMeanwhile);
    if (raw === null) return undefined;
    const refuse = (why: string) => {
      log.warn(`a history pack is refused: ${why}; its versions are not shown, the file is left as it is`, { file });
      return { versions: null, bytes: raw.length };
    };
    const text = raw.toString('utf8');
    const newline = text.indexOf('\n');
    const header = (newline < 0 ? text : text.slice(0, newline)).split(' ');
    const body = newline < 0 ? '' : text.slice(newline + 1);
    if (`${header[0]} ${header[1]}` !== MAGIC || header.length !== 4) return refuse('it has no pack header');
    if (createHash('sha256').update(body).digest('hex') !== header[3])
      return refuse('its content does not match its checksum (written part way, or damaged)');
    const lines = body ? body.split('\n') : [];
    if (lines.length !== Number(header[2])) return refuse(`it holds ${lines.length} versions, not ${header[2]}`);
    const versions: PackedVersion[] = [];
    for (const line of lines) {
      const record = safeJson(line) as { entry?: unknown; gz?: unknown } | null;
      const entry = HistoryEntry.safeParse(record?.entry);
      if (!entry.success) return refuse('a version in it does not parse');
      versions.push({ entry: entry.data, pack: name, ...(typeof record?.gz === 'string' ? { gz: record.gz } : {}) });
    }
    return { versions, bytes: raw.length };
  }
}

/**
 * A folder's mtime is set from a clock that ticks coarsely (a few ms on Linux, up to 2 s on some file systems):
 * a listing taken this soon after the folder last changed could miss a change made in the same tick, so it is
 * taken again on the next read rather than trusted.
 */
const RACY_NS = 2_000_000_000n;
const nowNs = () => BigInt(Date.now()) * 1_000_000n;

const noFolderYet = log.caught('no history pack written yet: no packs folder to look at', null);
const noPacks = log.caught('no history pack written yet (or the folder is gone): no packed versions', [] as string[]);
const goneMeanwhile = log.caught('a pack or drop file was removed between its listing and its read', null);

/** Versions' ids by the pack that holds them. */
export function groupByPack(versions: readonly PackedVersion[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { pack, entry } of versions) groups.set(pack, [...(groups.get(pack) ?? []), entry.id]);
  return groups;
}

/** Written to a unique temp name, then renamed into place: a reader sees all of it or nothing. */
export async function writeWhole(file: string, data: string | Buffer): Promise<void> {
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, data, { mode: PRIVATE_FILE_MODE });
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
