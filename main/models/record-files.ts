import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { KeyedSerialQueue } from '../../shared/base/serial-queue';

/** Session records hold file contents: their folder is the owner's alone, and so is each file. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Session records as JSON files in one app-data folder: hashed names, atomic writes, and writes of one
 * file kept in order (a load waits for them). Both session stores persist through this.
 */
export class RecordFiles {
  private readonly writes = new KeyedSerialQueue<string>();

  constructor(private readonly dir: string) {}

  /** The record's file, named by a hash of its key parts (so any path or root fits a file name). */
  fileFor(...keyParts: string[]): string {
    const key = createHash('sha256').update(keyParts.join('\0')).digest('hex').slice(0, 40);
    return path.join(this.dir, `${key}.json`);
  }

  /** The parsed record; null when missing, unreadable or not matching the schema (the session starts cold). */
  async load<S extends z.ZodType>(file: string, schema: S): Promise<z.output<S> | null> {
    await this.writes.whenIdle(file);
    let json: unknown;
    try {
      json = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch {
      return null;
    }
    const parsed = schema.safeParse(json);
    return parsed.success ? parsed.data : null;
  }

  /** Saves a snapshot of the record as it is now, atomically. */
  save(file: string, record: unknown): Promise<void> {
    const json = JSON.stringify(record);
    return this.writes.run(file, async () => {
      await fs.mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(temp, json, { mode: PRIVATE_FILE_MODE });
      await fs.rename(temp, file);
    });
  }

  delete(file: string): Promise<void> {
    return this.writes.run(file, () => fs.rm(file, { force: true }));
  }

  flush(): Promise<void> {
    return this.writes.whenIdle();
  }
}
