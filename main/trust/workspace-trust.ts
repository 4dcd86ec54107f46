import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { logListenerError } from '../events';

export interface WorkspaceTrustOptions {
  /** The app's data folder: the list of trusted folders lives there, never in a project. */
  dataDir: string;
  /** The workspace folder (absolute, realpath'd). */
  folder: string;
  /** Awaited after trust is granted or revoked, before `set` resolves (what must follow the decision first). */
  onChange?: (trusted: boolean) => void | Promise<void>;
}

interface TrustFile {
  version: 1;
  /** Realpaths of the folders the operator trusted. */
  folders: string[];
}

const TRUST_FILE = 'trusted-folders.json';

/**
 * Workspace trust, as VS Code has it: a folder is untrusted until the operator trusts it, the decision is
 * remembered per folder in the app's data and can be revoked. Until then, project config that starts
 * programs or reaches other servers is not used (main/config asks `trusted`).
 */
export class WorkspaceTrust implements IDisposable {
  private readonly changeEmitter = new Emitter<boolean>({ onListenerError: logListenerError });
  /** Trust was granted or revoked (after `onChange` has run): git and the language server follow it. */
  readonly onDidChange: Event<boolean> = this.changeEmitter.event;

  private constructor(
    private readonly options: WorkspaceTrustOptions,
    private _trusted: boolean,
  ) {}

  static async open(options: WorkspaceTrustOptions): Promise<WorkspaceTrust> {
    const file = await readTrustFile(options.dataDir);
    return new WorkspaceTrust(options, file.folders.includes(options.folder));
  }

  get trusted(): boolean {
    return this._trusted;
  }

  /**
   * Grants or revokes trust for this folder, remembers it, then tells the listener. The list is shared by every
   * Kiln process of the user (windows, web hosts, MCP servers): its read-change-write holds a lock file, so two
   * processes deciding at once both keep their decision.
   */
  async set(trusted: boolean): Promise<void> {
    await withTrustListLock(this.options.dataDir, async () => {
      const file = await readTrustFile(this.options.dataDir);
      const others = file.folders.filter((folder) => folder !== this.options.folder);
      await writeTrustFile(this.options.dataDir, {
        version: 1,
        folders: trusted ? [...others, this.options.folder] : others,
      });
    });
    if (this._trusted === trusted) return;
    this._trusted = trusted;
    await this.options.onChange?.(trusted);
    this.changeEmitter.fire(trusted);
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}

/** A lock older than this was left by a process that died holding it (holding it takes milliseconds). */
const STALE_LOCK_MS = 10_000;

/** Runs `change` holding `trusted-folders.json.lock` (an exclusive create), waiting for another holder. */
async function withTrustListLock(dataDir: string, change: () => Promise<void>): Promise<void> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = path.join(dataDir, `${TRUST_FILE}.lock`);
  for (;;) {
    try {
      await (await fs.open(lock, 'wx', 0o600)).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await fs.stat(lock).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await fs.rm(lock, { force: true });
      // Another process holds it for a few milliseconds: retry shortly (jittered, so waiters do not collide).
      else await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));
    }
  }
  try {
    await change();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

async function readTrustFile(dataDir: string): Promise<TrustFile> {
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(dataDir, TRUST_FILE), 'utf8')) as Partial<TrustFile>;
    const folders = Array.isArray(parsed.folders)
      ? parsed.folders.filter((f): f is string => typeof f === 'string')
      : [];
    return { version: 1, folders };
  } catch {
    // Missing or unreadable: nothing is trusted, which is the safe reading.
    return { version: 1, folders: [] };
  }
}

async function writeTrustFile(dataDir: string, file: TrustFile): Promise<void> {
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const target = path.join(dataDir, TRUST_FILE);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(temp, target);
}

/** Trusts a folder as the operator's "Trust" does (tests and benchmarks that run a project's own models). */
export async function trustFolder(dataDir: string, folder: string): Promise<void> {
  const trust = await WorkspaceTrust.open({ dataDir, folder: await fs.realpath(folder) });
  await trust.set(true);
}
