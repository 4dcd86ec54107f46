import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FsChange, KernelEnvironment, KernelEnvironmentList } from '../../../shared/contract';
import { Emitter, type Event } from '../../../shared/base/event';
import { DisposableStore, type IDisposable } from '../../../shared/base/lifecycle';
import { SerialQueue } from '../../../shared/base/serial-queue';
import { changedPaths } from '../../../shared/fs-change';
import { KilnError } from '../../../shared/errors';
import { logListenerError } from '../../events';
import type { JupyterServerManager, OwnKernelspecs } from '../jupyter-server';
import {
  findCondaEnvironments,
  findWorkspaceEnvironments,
  readCondaEnv,
  readVenv,
  type FoundEnvironment,
} from './discover';
import {
  environmentDisplayName,
  environmentKernelspec,
  environmentKernelspecName,
  writeEnvironmentKernelspec,
} from './kernelspec';
import { EnvironmentStateFile } from './state';

export interface KernelEnvironmentsOptions {
  /** The workspace folder, absolute and realpath'd. */
  root: string;
  /** Kiln's data folder: which kernelspec starts which environment is remembered there. */
  dataDir: string;
  trusted: () => boolean;
  jupyter: JupyterServerManager;
  /** PATH (for conda) and the rest; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The operator's home (conda's environments.txt, user site-packages); default os.homedir(). */
  userHome?: string;
  /** How long workspace changes gather before the environments are looked at again (default 300 ms). */
  settleMs?: number;
}

export const UNTRUSTED_ENVIRONMENTS_NOTE =
  "This folder's Python environments appear here once it is trusted: a kernel runs the folder's code.";
export const REMOTE_ENVIRONMENTS_NOTE =
  "Environments run on Kiln's own Jupyter server; this workspace uses a remote server (its kernelspecs are listed).";

/** What a folder holds when it is (or is becoming) an environment: `python -m venv` writes them one after another. */
const ENVIRONMENT_MARKERS = new Set(['pyvenv.cfg', 'conda-meta', 'bin', 'Scripts']);

/** conda is asked again after this long at most (it takes a second); the workspace is re-read on every change. */
const CONDA_TTL_MS = 60_000;

interface Scan {
  list: KernelEnvironmentList;
  /** By id (the kernelspec name). */
  found: Map<string, FoundEnvironment>;
  /** Direct children of the root that hold pyvenv.cfg or conda-meta: changes under them may change the list. */
  folders: Set<string>;
}

/**
 * The Python environments a notebook's kernel can run in: venvs one level down in the workspace and the
 * operator's conda environments, found from disk (discover.ts). Picking one writes a kernelspec for it into the
 * embedded server's private data folder (never the operator's Jupyter folders), again at every server start for
 * those a notebook chose. Follows the workspace's change feed: a new `.venv` is listed within a second.
 */
export class KernelEnvironments implements IDisposable {
  private readonly options: KernelEnvironmentsOptions;
  private readonly disposables = new DisposableStore();
  private readonly changed = new Emitter<KernelEnvironmentList>({ onListenerError: logListenerError });
  /** Fires when the list changed (an environment came, went or got ipykernel; trust changed). */
  readonly onDidChange: Event<KernelEnvironmentList> = this.changed.event;
  private readonly state: EnvironmentStateFile;
  private readonly scans = new SerialQueue();
  private current: Scan | null = null;
  private rescanTimer: ReturnType<typeof setTimeout> | null = null;
  private conda: { at: number; found: Promise<FoundEnvironment[]> } | null = null;
  private disposed = false;

  constructor(options: KernelEnvironmentsOptions) {
    this.options = options;
    this.state = new EnvironmentStateFile(options.dataDir, options.root);
    this.disposables.add(options.jupyter.addKernelspecWriter((where) => this.writeRemembered(where)));
  }

  /** The environments offered now (looked for on first use). */
  async list(): Promise<KernelEnvironmentList> {
    return (this.current ?? (await this.rescan())).list;
  }

  /** Looks again; announces the list when it changed. */
  rescan(options: { refreshConda?: boolean } = {}): Promise<Scan> {
    if (options.refreshConda) this.conda = null;
    return this.scans.run(async () => {
      const scan = await this.scan();
      const before = this.current && JSON.stringify(this.current.list);
      this.current = scan;
      if (!this.disposed && before !== JSON.stringify(scan.list)) this.changed.fire(scan.list);
      return scan;
    });
  }

  /** From the change feed: a change to a direct child of the root, or inside an environment's folder, looks again. */
  applyChange(change: FsChange): void {
    if (this.disposed || !this.options.trusted() || this.options.jupyter.isRemote) return;
    const relevant = changedPaths(change).some((rel) => {
      const parts = rel.split('/');
      // A folder made, moved or removed at the top; its pyvenv.cfg or interpreter appearing; or anything inside a
      // known environment (ipykernel installed). A file saved elsewhere is no environment's business.
      if (parts.length === 1) return change.isDir;
      return ENVIRONMENT_MARKERS.has(parts[1]) || (this.current?.folders.has(parts[0]) ?? false);
    });
    if (!relevant || this.rescanTimer) return;
    // Throttled, not debounced: a pip install's thousands of files must not postpone the update for ever.
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = null;
      void this.rescan().catch((err: unknown) => console.warn('[kiln] looking for environments failed', err));
    }, this.options.settleMs ?? 300);
  }

  /** Trust granted or revoked: offered or withdrawn at once. */
  trustChanged(): Promise<Scan> {
    return this.rescan({ refreshConda: true });
  }

  /**
   * Makes the environment's kernelspec available to the embedded server and remembers it, so the notebook's
   * choice survives restarts. Returns the kernelspec name to switch to.
   */
  async prepare(id: string): Promise<{ name: string; displayName: string }> {
    if (!this.options.trusted())
      throw new KilnError(
        'E_UNTRUSTED',
        "Kernel not started: this folder is not trusted. A kernel runs the folder's code.",
      );
    if (this.options.jupyter.isRemote) throw new KilnError('E_BAD_REQUEST', REMOTE_ENVIRONMENTS_NOTE);
    let env = (this.current ?? (await this.rescan())).found.get(id);
    // Made a moment ago, before the feed's rescan: look once more.
    if (!env) env = (await this.rescan()).found.get(id);
    if (!env) throw new KilnError('E_NOT_FOUND', `No Python environment ${id} (it may have been removed)`);
    const shown = this.current?.list.environments.find((e) => e.id === id);
    if (!env.hasIpykernel || !shown)
      throw new KilnError(
        'E_BAD_REQUEST',
        `${shown?.path ?? env.dir} has no ipykernel, so no kernel can start from it. Install it with: ${installCommand(env)}`,
      );
    await this.state.remember(id, env.dir);
    // Written once the server runs: a start in progress rewrites its kernels folder, and would drop it.
    await this.options.jupyter.start();
    const where = this.options.jupyter.ownKernelspecs;
    if (where) await this.writeSpec(where, id, env);
    return { name: id, displayName: shown.displayName };
  }

  dispose(): void {
    this.disposed = true;
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.rescanTimer = null;
    this.disposables.dispose();
    this.changed.dispose();
  }

  private async scan(): Promise<Scan> {
    const empty = (note: string): Scan => ({
      list: { offered: false, note, environments: [] },
      found: new Map(),
      folders: new Set(),
    });
    // Nothing of an untrusted folder is looked at, so nothing of it is offered or run.
    if (!this.options.trusted()) return empty(UNTRUSTED_ENVIRONMENTS_NOTE);
    if (this.options.jupyter.isRemote) return empty(REMOTE_ENVIRONMENTS_NOTE);
    const home = this.options.userHome ?? os.homedir();
    const inWorkspace = await findWorkspaceEnvironments(this.options.root, home);
    const workspaceDirs = new Set(inWorkspace.map((env) => env.dir));
    const conda = (await this.condaEnvironments()).filter((env) => !workspaceDirs.has(env.dir));
    const found = new Map<string, FoundEnvironment>();
    const environments: KernelEnvironment[] = [];
    for (const env of [...inWorkspace, ...conda]) {
      const id = environmentKernelspecName(env.dir);
      if (found.has(id)) continue;
      found.set(id, env);
      environments.push(this.describe(id, env));
    }
    return {
      list: { offered: true, note: null, environments },
      found,
      folders: new Set(inWorkspace.map((env) => path.basename(env.dir))),
    };
  }

  private condaEnvironments(): Promise<FoundEnvironment[]> {
    if (!this.conda || Date.now() - this.conda.at > CONDA_TTL_MS) {
      const found = findCondaEnvironments(this.options.env ?? process.env, this.options.userHome ?? os.homedir());
      this.conda = { at: Date.now(), found };
    }
    return this.conda.found;
  }

  private describe(id: string, env: FoundEnvironment): KernelEnvironment {
    const inWorkspace = isInside(env.dir, this.options.root);
    const shownPath = inWorkspace
      ? path.relative(this.options.root, env.dir).split(path.sep).join('/')
      : tildePath(env.dir, this.options.userHome ?? os.homedir());
    return {
      id,
      kind: env.kind,
      path: shownPath,
      inWorkspace,
      pythonVersion: env.version,
      hasIpykernel: env.hasIpykernel,
      installCommand: env.hasIpykernel ? null : installCommand(env),
      displayName: environmentDisplayName(
        env,
        env.kind === 'conda' && !inWorkspace ? `conda: ${shownPath}` : shownPath,
      ),
    };
  }

  /** At each start of the embedded server: the remembered environments' kernelspecs, re-read from disk. */
  private async writeRemembered(where: OwnKernelspecs): Promise<void> {
    if (!this.options.trusted()) return;
    for (const [name, dir] of await this.state.kernelspecs()) {
      // A name no longer matching its folder's (state from elsewhere) is not trusted to start anything.
      if (environmentKernelspecName(dir) !== name) continue;
      // A workspace folder replaced by a symlink since is not followed, as discovery does not follow it.
      if (isInside(dir, this.options.root) && !(await isRealDir(dir))) continue;
      const env = (await readVenv(dir, this.options.userHome ?? os.homedir())) ?? (await readCondaEnv(dir));
      if (env?.hasIpykernel) await this.writeSpec(where, name, env);
    }
  }

  private async writeSpec(where: OwnKernelspecs, name: string, env: FoundEnvironment): Promise<void> {
    const described = this.describe(name, env);
    await writeEnvironmentKernelspec(
      where.kernelsDir,
      name,
      environmentKernelspec(env, { launcher: where.launcher, displayName: described.displayName }),
    );
  }
}

async function isRealDir(dir: string): Promise<boolean> {
  return fs.lstat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function tildePath(dir: string, home: string): string {
  return isInside(dir, home) ? `~/${path.relative(home, dir).split(path.sep).join('/')}` : dir;
}

const shellQuote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** The command that would install ipykernel there; for the operator to run (it reaches the network). */
export function installCommand(env: FoundEnvironment): string {
  return env.kind === 'conda'
    ? `conda install -p ${shellQuote(env.dir)} ipykernel`
    : `${shellQuote(env.python)} -m pip install ipykernel`;
}
