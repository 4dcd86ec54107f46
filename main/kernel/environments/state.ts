import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SerialQueue } from '../../../shared/base/serial-queue';
import { createLogger } from '../../log';
import { environmentKernelspecName } from './kernelspec';

const log = createLogger('kernel.environments');

/**
 * Which environment each of Kiln's environment kernelspecs starts, per workspace, in Kiln's data folder: a notebook
 * remembers only the kernelspec (its metadata, as Jupyter does), never a path of this machine. Kiln's private
 * Jupyter folder is fresh for each run, so this is how a notebook reopened later finds its environment again.
 */
const EnvironmentState = z.object({
  version: z.literal(1),
  workspaceRoot: z.string(),
  /** Kernelspec name → the environment's folder (absolute). */
  kernelspecs: z.record(z.string(), z.object({ dir: z.string() })),
});
type EnvironmentState = z.infer<typeof EnvironmentState>;

export class EnvironmentStateFile {
  private readonly file: string;
  private readonly writes = new SerialQueue();
  private readonly loaded: Promise<EnvironmentState>;

  constructor(
    dataDir: string,
    private readonly workspaceRoot: string,
  ) {
    const key = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 40);
    this.file = path.join(dataDir, 'kernel-environments', `${key}.json`);
    this.loaded = this.load();
  }

  /**
   * The remembered kernelspecs: name → environment folder. An entry whose folder is gone, or whose name is no longer
   * its folder's kernelspec, is pruned as it is read (and logged), so the file does not grow with every venv ever
   * picked; a notebook naming a pruned kernelspec falls back to the default kernel, as it does on another machine.
   */
  async kernelspecs(): Promise<Map<string, string>> {
    const state = await this.loaded;
    const pruned: { name: string; dir: string; why: string }[] = [];
    for (const [name, { dir }] of Object.entries(state.kernelspecs)) {
      const why = await goneReason(name, dir);
      if (why === null) continue;
      pruned.push({ name, dir, why });
      delete state.kernelspecs[name];
    }
    if (pruned.length) {
      log.info('pruned remembered environments whose folder or kernelspec is gone', { pruned });
      await this.save(state);
    }
    return new Map(Object.entries(state.kernelspecs).map(([name, { dir }]) => [name, dir]));
  }

  /** Remembers that `name` starts the environment in `dir`. */
  async remember(name: string, dir: string): Promise<void> {
    const state = await this.loaded;
    if (state.kernelspecs[name]?.dir === dir) return;
    state.kernelspecs[name] = { dir };
    await this.save(state);
  }

  private async save(state: EnvironmentState): Promise<void> {
    const json = JSON.stringify(state);
    await this.writes.run(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(temp, json, { mode: 0o600 });
      await fs.rename(temp, this.file);
    });
  }

  private async load(): Promise<EnvironmentState> {
    const fresh: EnvironmentState = { version: 1, workspaceRoot: this.workspaceRoot, kernelspecs: {} };
    let json: unknown;
    try {
      json = JSON.parse(await fs.readFile(this.file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        console.warn('[kiln] environment choices unreadable; notebooks fall back to the default kernel', err);
      return fresh;
    }
    const parsed = EnvironmentState.safeParse(json);
    if (!parsed.success || parsed.data.workspaceRoot !== this.workspaceRoot) {
      console.warn('[kiln] environment choices of another shape or folder; starting afresh');
      return fresh;
    }
    return parsed.data;
  }
}

/** Why a remembered entry no longer starts anything, or null while it still may. */
async function goneReason(name: string, dir: string): Promise<string | null> {
  if (environmentKernelspecName(dir) !== name) return "its name is not its folder's kernelspec";
  try {
    return (await fs.stat(dir)).isDirectory() ? null : 'its folder is no longer a folder';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'its folder is gone';
    // Unreadable now (permissions, a disk not mounted): kept, it may come back.
    log.caught('a remembered environment folder could not be checked; kept', null)(err);
    return null;
  }
}
