import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { Backup, type BackupPatch } from '../../shared/contract';
import { KeyedSerialQueue } from '../../shared/base/serial-queue';
import { createLogger } from '../log';

const log = createLogger('history.backups');

/** The name ending of what is kept beside a backup (not `.json`: never listed as a backup). */
const BESIDE = '.agent-edits';

/** Backups kept per workspace; past it, the oldest go (a backup is a dirty tab, so this is far above real use). */
export const MAX_BACKUPS = 200;

/**
 * Hot-exit backups of dirty text buffers: one file per path in the app's data folder
 * (`backups/<workspace>/`, 0700/0600), replaced whole on each save, following moves made through Kiln.
 */
export class BackupStore {
  readonly dir: string;
  /** Writes of one path run in order, so an older backup never lands after a newer one or a discard. */
  private readonly writes = new KeyedSerialQueue<string>();

  constructor(options: { dataDir: string; root: string }) {
    const key = createHash('sha256').update(options.root).digest('hex').slice(0, 16);
    this.dir = path.join(options.dataDir, 'backups', key);
  }

  save(backup: Omit<Backup, 'at'>): Promise<void> {
    return this.writes.run(backup.path, () => this.write({ ...backup, at: Date.now() }));
  }

  /**
   * Keeps a backup sent as an edit of its base: the last backup (same version) or the file on disk (same hash, read
   * through `readDisk`). False, and nothing written, when main has not got that base: the window sends it whole.
   */
  patch(
    patch: BackupPatch,
    readDisk: (rel: string) => Promise<{ text: string | null; hash: string; truncated: boolean }>,
  ): Promise<boolean> {
    const { against } = patch;
    return this.writes.run(patch.path, async () => {
      let base: string | null = null;
      if ('version' in against) {
        const record = await this.read(patch.path);
        if (record?.version === against.version) base = record.text;
      } else {
        const disk = await readDisk(patch.path).catch(
          log.caught('the file a backup patch is against is unreadable; the window is asked for the whole text', null),
        );
        if (disk && !disk.truncated && disk.hash === against.diskHash) base = disk.text;
      }
      if (base === null || base.length !== patch.againstLength || patch.start > patch.end || patch.end > base.length)
        return false;
      const text = base.slice(0, patch.start) + patch.text + base.slice(patch.end);
      await this.write({ path: patch.path, text, baseHash: patch.baseHash, version: patch.version, at: Date.now() });
      return true;
    });
  }

  /** Drops the backup, and with it what is kept beside it (see `keepBeside`). */
  discard(rel: string): Promise<boolean> {
    return this.writes.run(rel, async () => {
      await fs
        .rm(this.besideFor(rel), { force: true })
        .catch(
          log.caught('what was kept beside a backup could not be removed; the backup still goes', undefined, 'warn'),
        );
      return fs.rm(this.fileFor(rel)).then(
        () => true,
        () => false,
      );
    });
  }

  /**
   * Keeps `text` beside the path's backup (null: removes it), in order with its backup's writes; it goes when the
   * backup is discarded. What an Agent turn changed in the open notebook, unsaved (unsaved-agent-edits.ts).
   */
  keepBeside(rel: string, text: string | null): Promise<void> {
    return this.writes.run(rel, async () => {
      if (text === null) return fs.rm(this.besideFor(rel), { force: true });
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const file = this.besideFor(rel);
      const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(temp, text, { mode: 0o600 });
      await fs.rename(temp, file);
    });
  }

  /** Everything kept beside backups (each names its own path). */
  async listBeside(): Promise<string[]> {
    await this.writes.whenIdle();
    const texts: string[] = [];
    for (const name of await fs.readdir(this.dir).catch(log.caught('no backups folder yet: nothing beside', []))) {
      if (!name.endsWith(BESIDE)) continue;
      const text = await fs
        .readFile(path.join(this.dir, name), 'utf8')
        .catch(log.caught('removed between its listing and its read (its backup discarded); skipped', null));
      if (text !== null) texts.push(text);
    }
    return texts;
  }

  /** The backup of one path, or null. */
  async get(rel: string): Promise<Backup | null> {
    return this.writes.run(rel, () => this.read(rel));
  }

  /** Every backup, oldest first; over MAX_BACKUPS the oldest are removed. */
  async list(): Promise<Backup[]> {
    await this.writes.whenIdle();
    const backups: Backup[] = [];
    for (const name of await fs.readdir(this.dir).catch(log.caught('no backups folder yet: no backups', []))) {
      if (!name.endsWith('.json')) continue;
      const text = await fs
        .readFile(path.join(this.dir, name), 'utf8')
        .catch(log.caught('a backup removed between its listing and its read; skipped', null));
      const parsed = text === null ? null : parseRecord(text);
      if (parsed) backups.push(parsed);
    }
    backups.sort((a, b) => a.at - b.at);
    for (const stale of backups.splice(0, Math.max(0, backups.length - MAX_BACKUPS))) await this.discard(stale.path);
    return backups;
  }

  /** A move made through Kiln: the backups at or under `from` now belong to the paths under `to`. */
  async applyMove(from: string, to: string): Promise<void> {
    for (const backup of await this.list()) {
      if (backup.path !== from && !backup.path.startsWith(`${from}/`)) continue;
      const moved = `${to}${backup.path.slice(from.length)}`;
      // The window follows the move too and may already have backed up the tab under its new path: that one is newer.
      await this.writes.run(moved, async () => {
        const taken = await fs.stat(this.fileFor(moved)).then(
          () => true,
          () => false,
        );
        if (!taken) await this.write({ ...backup, path: moved });
      });
      await this.discard(backup.path);
    }
  }

  private async read(rel: string): Promise<Backup | null> {
    const text = await fs
      .readFile(this.fileFor(rel), 'utf8')
      .catch(log.caught('no backup of this file (or unreadable): none', null));
    return text === null ? null : parseRecord(text);
  }

  private async write(record: Backup): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileFor(record.path);
    const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(temp, formatRecord(record), { mode: 0o600 });
    await fs.rename(temp, file);
  }

  private fileFor(rel: string): string {
    return path.join(this.dir, `${createHash('sha256').update(rel).digest('hex').slice(0, 32)}.json`);
  }

  private besideFor(rel: string): string {
    return path.join(this.dir, `${createHash('sha256').update(rel).digest('hex').slice(0, 32)}${BESIDE}`);
  }
}

/**
 * A backup file: a first line naming the format, a line of JSON with everything but the text, then the text as it
 * is. The text is not JSON-encoded: escaping a 20 MB notebook's quotes took main 0.4-1.2 s per backup (load 19).
 */
const RECORD_MAGIC = 'kiln-backup 2';

export function formatRecord(record: Backup): string {
  const { text, ...meta } = record;
  return `${RECORD_MAGIC}\n${JSON.stringify(meta)}\n${text}`;
}

/** A backup file's record, or null if it is not one; a backup of the first format (one JSON object) still reads. */
export function parseRecord(file: string): Backup | null {
  let candidate: unknown;
  if (file.startsWith(`${RECORD_MAGIC}\n`)) {
    const metaEnd = file.indexOf('\n', RECORD_MAGIC.length + 1);
    if (metaEnd === -1) return null;
    const meta = safeJson(file.slice(RECORD_MAGIC.length + 1, metaEnd));
    candidate = meta && typeof meta === 'object' ? { ...meta, text: file.slice(metaEnd + 1) } : null;
  } else candidate = safeJson(file);
  const parsed = Backup.safeParse(candidate);
  return parsed.success ? parsed.data : null;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
