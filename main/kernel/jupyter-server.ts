import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { KernelSpecAPI, ServerConnection } from '@jupyterlab/services';
import WebSocket from 'ws';
import { Emitter, type Event } from '../../shared/base/event';
import { toDisposable, type IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import { findJupyter, JUPYTER_INSTALL_HINT, userJupyterDataDir, type JupyterCommand } from './discovery';
import { CappedText, killStragglers, killTreeOnExit, newRunId, RUN_ID_VARIABLE, stopProcessGroup } from '../process';
import { serverConfigSource } from './server-config';
import { directKernelSocketClass } from './direct-socket';
import { KERNEL_LAUNCHER_FILE, writePrivateKernelspecs } from './kernelspecs';

export interface RemoteJupyter {
  /** e.g. http://gpu-box:8888/ or https://hub.example.org/user/me/ */
  url: string;
  token: string;
}

/** The end of the server's output is what says why it failed; only that is kept. */
const SERVER_LOG_LIMITS = { head: 0, tail: 16_000 };

export interface JupyterServerOptions {
  /** The folder the embedded server serves (its root_dir): the workspace. */
  rootDir: string;
  /**
   * Parent folder for the server's private Jupyter dirs (config, data, runtime, IPython); a fresh
   * subfolder is made in it per start-up and removed on dispose. Defaults to the OS temp folder.
   * Never the operator's home: Kiln must not touch their Jupyter setup.
   */
  stateDir?: string;
  /** The configured command that runs `jupyter` (e.g. ['/opt/conda/bin/jupyter']); PATH is searched when omitted. */
  command?: string[];
  /** Use this server instead of starting one (same code path from here on). */
  remote?: RemoteJupyter;
  /** Environment for discovery and the server (PATH matters); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long the server may take to answer /api/status. */
  startTimeoutMs?: number;
  /** Restarts allowed within a minute before giving up on a crashing server. */
  maxRestartsPerMinute?: number;
}

/**
 * 'unreachable': a remote server that was running stopped answering; Kiln keeps asking, and says 'running' again
 * (same generation: its kernels may still be there) once it answers.
 */
export type JupyterServerStatus =
  'stopped' | 'starting' | 'running' | 'unreachable' | 'restarting' | 'failed' | 'disposed';

export interface JupyterServerEvent {
  status: JupyterServerStatus;
  /** Bumps on every (re)start; kernels of an older generation are gone. */
  generation: number;
  /** Why (for 'failed', 'restarting' and 'unreachable'). */
  message?: string;
}

/** How to talk to the running server. */
export interface JupyterConnection {
  baseUrl: string;
  wsUrl: string;
  token: string;
  settings: ServerConnection.ISettings;
  generation: number;
  remote: boolean;
}

/** Where the embedded server finds Kiln's own kernelspecs, and the launcher they start kernels through. */
export interface OwnKernelspecs {
  kernelsDir: string;
  launcher: string;
}

/** Writes kernelspecs of Kiln's making (a workspace's environments) into the embedded server's private data folder. */
export type KernelspecWriter = (where: OwnKernelspecs) => Promise<void>;

export interface KernelSpecList {
  default: string | null;
  specs: { name: string; displayName: string; language: string }[];
}

/**
 * Kernel WebSockets that speak the v1 kernel protocol when the server offers it (jupyter_server ≥ 1.21):
 * the server then relays the kernel's frames as they are, where with the JSON protocol it unpacks, checks,
 * re-encodes and signs every message, which is most of a short execution's round trip.
 * `ws` (unlike a browser) refuses a handshake in which the server picks no subprotocol, as older servers
 * do; @jupyterlab/services then reconnects offering none, and this remembers that server so its later
 * sockets ask for the JSON protocol straight away.
 */
class KernelWebSocket extends WebSocket {
  /** Origins whose server picked no subprotocol when offered the v1 protocol. */
  static readonly jsonOnly = new Set<string>();

  constructor(url: string | URL, protocols?: string | string[]) {
    const origin = new URL(url).origin;
    super(url, KernelWebSocket.jsonOnly.has(origin) ? [] : protocols);
    this.once('error', (err) => {
      if (err.message === 'Server sent no subprotocol') KernelWebSocket.jsonOnly.add(origin);
    });
  }
}

/**
 * How @jupyterlab/services reaches a server. `runtimeDir`, the embedded server's private runtime folder where
 * its kernels' connection files are, lets kernel connections speak ZMQ to those kernels (see direct-socket.ts).
 */
export function makeServerSettings(baseUrl: string, token: string, runtimeDir?: string): ServerConnection.ISettings {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return ServerConnection.makeSettings({
    baseUrl: base,
    wsUrl: base.replace(/^http/, 'ws'),
    token,
    appendToken: true,
    WebSocket: runtimeDir
      ? directKernelSocketClass(runtimeDir, (url, protocols) => new KernelWebSocket(url, protocols))
      : (KernelWebSocket as unknown as typeof globalThis.WebSocket),
    fetch: globalThis.fetch,
    Request: globalThis.Request,
    Headers: globalThis.Headers,
  });
}

function ownKernelspecsIn(privateDir: string): OwnKernelspecs {
  return {
    kernelsDir: path.join(privateDir, 'data', 'kernels'),
    launcher: path.join(privateDir, KERNEL_LAUNCHER_FILE),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether the server answers /api/status: 'answered', 'timed-out', or 'failed' (refused, reset, an error status). */
async function askStatus(
  baseUrl: string,
  token: string,
  timeoutMs: number,
): Promise<'answered' | 'timed-out' | 'failed'> {
  try {
    const res = await fetch(`${baseUrl}api/status`, {
      headers: { Authorization: `token ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? 'answered' : 'failed';
  } catch (err) {
    return err instanceof Error && err.name === 'TimeoutError' ? 'timed-out' : 'failed';
  }
}

async function answersStatus(baseUrl: string, token: string): Promise<boolean> {
  return (await askStatus(baseUrl, token, 3000)) === 'answered';
}

const TOKEN_FILE = 'token';

/**
 * A remote server is asked this often whether it answers, while a notebook has a kernel session on it. A refused
 * connection counts at once; a request that times out is asked again at once, and only two in a row count (a busy
 * server or a slow network is not an outage). So a server that stops answering is said so within 6.5 s.
 */
const LIVENESS_INTERVAL_MS = 1_500;
/** How long one liveness answer may take. */
const LIVENESS_TIMEOUT_MS = 2_500;

/** What the toolbar and the cells say while a remote server does not answer (JupyterLab: "Server Connection Error"). */
export function notAnsweringMessage(baseUrl: string): string {
  return `Jupyter server at ${baseUrl} is not answering; retrying`;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const shuttingDown = () => new KilnError('E_SHUTTING_DOWN', 'The Jupyter server manager was shut down');

/**
 * Owns the Jupyter server notebooks run against: the embedded one Kiln starts (lazily, watched, restarted
 * when it dies, stopped with its whole process group on dispose) or a remote one given by URL and token.
 */
export class JupyterServerManager {
  private readonly statusChanged = new Emitter<JupyterServerEvent>({ onListenerError: logListenerError });
  readonly onStatusChanged: Event<JupyterServerEvent> = this.statusChanged.event;
  private readonly options: JupyterServerOptions;
  private _status: JupyterServerStatus = 'stopped';
  private _connection: JupyterConnection | null = null;
  private starting: Promise<JupyterConnection> | null = null;
  private switching: Promise<void> | null = null;
  private child: ChildProcess | null = null;
  private output = new CappedText(SERVER_LOG_LIMITS);
  private generation = 0;
  private token = randomBytes(24).toString('hex');
  private port = 0;
  private _privateDir: string | null = null;
  private restartTimes: number[] = [];
  private disposed = false;
  /** Kernel sessions that want the remote server watched; no polling while there are none. */
  private livenessWatchers = 0;
  private livenessTimer: ReturnType<typeof setTimeout> | null = null;
  private livenessProbe: Promise<void> | null = null;
  private readonly kernelspecWriters = new Set<KernelspecWriter>();

  constructor(options: JupyterServerOptions) {
    this.options = { ...options };
  }

  get status(): JupyterServerStatus {
    return this._status;
  }

  get connection(): JupyterConnection | null {
    return this._connection;
  }

  /** The server's private folder (config, data, runtime, IPython dirs); its path is in every process Kiln started. */
  get privateDir(): string | null {
    return this._privateDir;
  }

  /** Whether notebooks run on a remote server (configured so), whose kernelspecs Kiln cannot write. */
  get isRemote(): boolean {
    return this.options.remote !== undefined;
  }

  /** Where Kiln's own kernelspecs go while the embedded server has its private folder; null for a remote server. */
  get ownKernelspecs(): OwnKernelspecs | null {
    return this._privateDir && !this.options.remote ? ownKernelspecsIn(this._privateDir) : null;
  }

  /**
   * Adds kernelspecs to every start of the embedded server: the wrapped ones are written afresh at each start
   * (kernelspecs.ts), so a writer's are too, before the server answers its first request.
   */
  addKernelspecWriter(writer: KernelspecWriter): IDisposable {
    this.kernelspecWriters.add(writer);
    return toDisposable(() => {
      this.kernelspecWriters.delete(writer);
    });
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The tail of the embedded server's output, for diagnostics. */
  get log(): string {
    return this.output.parts().tail;
  }

  /** Starts the server once (or connects to the remote one); later calls share the result. */
  start(): Promise<JupyterConnection> {
    if (this.switching) return this.switching.then(() => this.start());
    if (this.disposed) return Promise.reject(shuttingDown());
    if (this._connection && this._status === 'running') return Promise.resolve(this._connection);
    // Connecting again would start a new generation and so orphan the kernels the server may still have.
    if (this._connection && this._status === 'unreachable')
      return Promise.reject(new KilnError('E_NO_JUPYTER', notAnsweringMessage(this._connection.baseUrl)));
    if (!this.starting) {
      this.starting = this.startOnce().finally(() => {
        this.starting = null;
      });
    }
    return this.starting;
  }

  /**
   * Switches where Jupyter comes from (workspace trust granted or revoked, or the config edited). When it
   * changed, a running server is stopped with its kernels and the next one starts from the new source;
   * open notebooks get new kernels, as after a server restart.
   */
  async reconfigure(source: { command?: string[]; remote?: RemoteJupyter }): Promise<void> {
    const current = { command: this.options.command, remote: this.options.remote };
    if (
      this.disposed ||
      JSON.stringify(current) === JSON.stringify({ command: source.command, remote: source.remote })
    ) {
      // Already switching to this source (another caller asked first): done when the old server is stopped.
      await this.switching;
      return;
    }
    this.options.command = source.command;
    this.options.remote = source.remote;
    const wasActive = this._connection !== null || this.starting !== null;
    // From here on no caller gets the old server: start() waits for the switch.
    this._connection = null;
    const switching = (async () => {
      await this.starting?.catch(() => undefined);
      this._connection = null;
      await this.stopChild();
      if (wasActive)
        this.setStatus(
          'restarting',
          'Jupyter restarts: where it comes from changed (workspace trust or the jupyter: config).',
        );
      else this.setStatus('stopped');
    })().finally(() => {
      if (this.switching === switching) this.switching = null;
    });
    this.switching = switching;
    await switching;
    if (wasActive) await this.start().catch(() => undefined);
  }

  /**
   * Watches a remote server while held (a notebook's kernel session holds it): asked every few seconds, it turns
   * 'unreachable' when it stops answering and 'running' again when it answers. The embedded server needs none:
   * its exit is seen at once and restarts it.
   */
  watchLiveness(): IDisposable {
    this.livenessWatchers += 1;
    this.scheduleLivenessProbe();
    return toDisposable(() => {
      this.livenessWatchers -= 1;
      if (this.livenessWatchers === 0 && this.livenessTimer) {
        clearTimeout(this.livenessTimer);
        this.livenessTimer = null;
      }
    });
  }

  /** Asks the remote server now rather than at the next tick (a kernel's WebSocket closed). */
  checkLiveness(): Promise<void> {
    return this.probeLiveness();
  }

  private scheduleLivenessProbe(): void {
    if (this.livenessTimer || this.livenessProbe || this.livenessWatchers === 0 || this.disposed) return;
    this.livenessTimer = setTimeout(() => {
      this.livenessTimer = null;
      void this.probeLiveness();
    }, LIVENESS_INTERVAL_MS);
    // A watched server never keeps Kiln (or a test run) alive.
    this.livenessTimer.unref?.();
  }

  private probeLiveness(): Promise<void> {
    if (this.livenessProbe) return this.livenessProbe;
    const connection = this._connection;
    if (!connection?.remote || this.disposed || (this._status !== 'running' && this._status !== 'unreachable')) {
      this.scheduleLivenessProbe();
      return Promise.resolve();
    }
    const probe = (async () => {
      let answer = await askStatus(connection.baseUrl, connection.token, LIVENESS_TIMEOUT_MS);
      if (answer === 'timed-out' && this._status === 'running')
        answer = await askStatus(connection.baseUrl, connection.token, LIVENESS_TIMEOUT_MS);
      const answers = answer === 'answered';
      // The server was switched or shut down meanwhile: this answer is about a server no longer in use.
      if (this.disposed || this._connection !== connection) return;
      if (!answers && this._status === 'running')
        this.setStatus('unreachable', notAnsweringMessage(connection.baseUrl));
      else if (answers && this._status === 'unreachable')
        this.setStatus('running', `Jupyter server at ${connection.baseUrl} is answering again`);
    })().finally(() => {
      this.livenessProbe = null;
      this.scheduleLivenessProbe();
    });
    this.livenessProbe = probe;
    return probe;
  }

  async kernelSpecs(): Promise<KernelSpecList> {
    const connection = await this.start();
    const models = await KernelSpecAPI.getSpecs(connection.settings);
    const specs = Object.values(models.kernelspecs)
      .filter((spec): spec is NonNullable<typeof spec> => Boolean(spec))
      .map((spec) => ({ name: spec.name, displayName: spec.display_name, language: spec.language }))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
    return { default: models.default || null, specs };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.livenessTimer) clearTimeout(this.livenessTimer);
    this.livenessTimer = null;
    // A start in progress can wait long for the server to answer: stop its child now, not after. No child is
    // spawned from here on (spawnOn checks), so once the start settles nothing of it is left to stop.
    await this.stopChild();
    await this.starting?.catch(() => undefined);
    if (this._privateDir) {
      await fs.rm(this._privateDir, { recursive: true, force: true }).catch(() => undefined);
    }
    this._connection = null;
    this.setStatus('disposed');
    this.statusChanged.dispose();
  }

  private setStatus(status: JupyterServerStatus, message?: string): void {
    this._status = status;
    this.statusChanged.fire({ status, generation: this.generation, message });
  }

  private async startOnce(): Promise<JupyterConnection> {
    this.setStatus('starting');
    try {
      const connection = this.options.remote ? await this.connectRemote(this.options.remote) : await this.spawnServer();
      if (this.disposed) throw shuttingDown();
      this._connection = connection;
      this.setStatus('running');
      return connection;
    } catch (err) {
      if (!this.disposed) this.setStatus('failed', err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  private async connectRemote(remote: RemoteJupyter): Promise<JupyterConnection> {
    const baseUrl = remote.url.endsWith('/') ? remote.url : `${remote.url}/`;
    if (!(await answersStatus(baseUrl, remote.token))) {
      throw new KilnError(
        'E_NO_JUPYTER',
        `The Jupyter server at ${baseUrl} did not answer (check the URL and token, and that it is running).`,
      );
    }
    this.generation += 1;
    return {
      baseUrl,
      wsUrl: baseUrl.replace(/^http/, 'ws'),
      token: remote.token,
      settings: makeServerSettings(baseUrl, remote.token),
      generation: this.generation,
      remote: true,
    };
  }

  private async preparePrivateDir(): Promise<string> {
    if (this._privateDir) return this._privateDir;
    const parent = this.options.stateDir ?? os.tmpdir();
    await fs.mkdir(parent, { recursive: true });
    const dir = await fs.mkdtemp(path.join(parent, 'kiln-jupyter-'));
    for (const sub of ['config', 'data', 'runtime', 'ipython'])
      await fs.mkdir(path.join(dir, sub), { recursive: true });
    await fs.writeFile(path.join(dir, 'kiln_server_config.py'), serverConfigSource());
    // The token never goes on the command line (/proc/*/cmdline is world-readable): the config reads it from
    // this owner-only file, in a folder only the owner can enter (mkdtemp makes it 0700).
    await fs.writeFile(path.join(dir, TOKEN_FILE), this.token, { mode: 0o600 });
    this._privateDir = dir;
    return dir;
  }

  /** The operator's own Jupyter data folders (kernelspecs of conda envs, venvs): their user folder and JUPYTER_PATH. */
  private operatorJupyterPath(): string {
    const env = this.options.env ?? process.env;
    const userData = userJupyterDataDir(env, env.HOME ?? os.homedir());
    return [userData, env.JUPYTER_PATH].filter(Boolean).join(path.delimiter);
  }

  private serverEnv(dir: string): NodeJS.ProcessEnv {
    const env = { ...(this.options.env ?? process.env) };
    return {
      ...env,
      JUPYTER_CONFIG_DIR: path.join(dir, 'config'),
      JUPYTER_DATA_DIR: path.join(dir, 'data'),
      JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime'),
      IPYTHONDIR: path.join(dir, 'ipython'),
      // The operator's kernelspecs stay visible, read-only; Kiln's data dir goes first (JUPYTER_PATH outranks
      // JUPYTER_DATA_DIR), so its wrapped copies of them (kernelspecs.ts) are the ones that run.
      JUPYTER_PATH: [path.join(dir, 'data'), this.operatorJupyterPath()].filter(Boolean).join(path.delimiter),
      KILN_PARENT_PID: String(process.pid),
      KILN_JUPYTER_TOKEN_FILE: path.join(dir, TOKEN_FILE),
      // debugpy's warning about frozen modules would otherwise land in every kernel's stderr.
      PYDEVD_DISABLE_FILE_VALIDATION: '1',
    };
  }

  private async spawnServer(): Promise<JupyterConnection> {
    const command = await findJupyter({ command: this.options.command, env: this.options.env });
    const dir = await this.preparePrivateDir();
    // Kernels start through Kiln's launcher, never `-m ipykernel_launcher` resolved from the notebook's folder.
    const env = this.serverEnv(dir);
    await writePrivateKernelspecs({
      privateDir: dir,
      command,
      env: { ...env, JUPYTER_PATH: this.operatorJupyterPath() },
    });
    for (const writer of this.kernelspecWriters) {
      await writer(ownKernelspecsIn(dir)).catch((err: unknown) => {
        // The server still starts with Jupyter's kernelspecs; a notebook naming a missing one gets the default.
        console.warn("[kiln] could not write Kiln's environment kernelspecs; the server starts without them", err);
      });
    }
    let lastError: KilnError | null = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!this.port || attempt > 0) this.port = await freePort();
      try {
        return await this.spawnOn(command, dir, this.port);
      } catch (err) {
        lastError = err instanceof KilnError ? err : new KilnError('E_NO_JUPYTER', String(err));
        // Only a lost race for the port is worth another try.
        if (!/address already in use|errno 98|port .* in use/i.test(this.log)) break;
      }
    }
    throw lastError ?? new KilnError('E_NO_JUPYTER', `Jupyter could not start. ${JUPYTER_INSTALL_HINT}`);
  }

  private async spawnOn(command: JupyterCommand, dir: string, port: number): Promise<JupyterConnection> {
    const args = [
      ...command.argv.slice(1),
      'server',
      `--config=${path.join(dir, 'kiln_server_config.py')}`,
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.root_dir=${this.options.rootDir}`,
      '--ServerApp.open_browser=False',
      // Jupyter refuses to run as root unless told; containers often run as root.
      ...(process.getuid?.() === 0 ? ['--ServerApp.allow_root=True'] : []),
    ];
    // Checked right before spawning, with no await in between: dispose either finds the child or none is started.
    if (this.disposed) throw shuttingDown();
    this.output = new CappedText(SERVER_LOG_LIMITS);
    // The run id marks the server and its kernels (their own sessions) for a synchronous kill if Kiln exits
    // before stopping them, e.g. when a host's stop grace runs out during a slow start.
    const runId = newRunId();
    const child = spawn(command.argv[0], args, {
      cwd: this.options.rootDir,
      env: { ...this.serverEnv(dir), [RUN_ID_VARIABLE]: runId },
      // Its own process group, so dispose can stop the server and everything it started in one signal.
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const forgetOnExit = child.pid ? killTreeOnExit(child.pid, runId) : () => undefined;
    const collect = (chunk: Buffer) => {
      this.output.push(chunk.toString('utf8'));
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    let exited = false;
    let spawnError: Error | null = null;
    child.on('error', (err) => {
      spawnError = err;
      exited = true;
    });
    child.on('exit', () => {
      exited = true;
      forgetOnExit();
      if (this.child === child) void this.onServerExit(child);
    });

    const baseUrl = `http://127.0.0.1:${port}/`;
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 90_000);
    while (!exited && !this.disposed && Date.now() < deadline) {
      if (await answersStatus(baseUrl, this.token)) {
        this.generation += 1;
        return {
          baseUrl,
          wsUrl: `ws://127.0.0.1:${port}/`,
          token: this.token,
          settings: makeServerSettings(baseUrl, this.token, path.join(dir, 'runtime')),
          generation: this.generation,
          remote: false,
        };
      }
      await delay(150);
    }
    // dispose stops the child.
    if (this.disposed) throw shuttingDown();
    const why = spawnError ? (spawnError as Error).message : this.tail();
    if (!exited) {
      this.child = null;
      if (child.pid) await stopProcessGroup(child.pid, dir, 2000);
      throw new KilnError('E_NO_JUPYTER', `The Jupyter server did not answer within the start-up time. ${why}`.trim());
    }
    this.child = null;
    throw new KilnError(
      'E_NO_JUPYTER',
      `Jupyter could not start (${command.argv.join(' ')} server): ${why} ${JUPYTER_INSTALL_HINT}`,
    );
  }

  private tail(): string {
    const lines = this.log
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.slice(-6).join(' | ');
  }

  private async onServerExit(child: ChildProcess): Promise<void> {
    if (this.disposed || this.child !== child) return;
    this.child = null;
    const wasRunning = this._status === 'running';
    this._connection = null;
    if (!wasRunning) return;
    const now = Date.now();
    this.restartTimes = this.restartTimes.filter((t) => now - t < 60_000);
    const why = `The Jupyter server stopped unexpectedly (exit code ${child.exitCode ?? child.signalCode}).`;
    // Kernels of the dead server may linger in their own sessions; they are unreachable now.
    await killStragglers(this._privateDir);
    if (this.restartTimes.length >= (this.options.maxRestartsPerMinute ?? 5)) {
      this.setStatus('failed', `${why} It keeps stopping, so Kiln gave up restarting it. ${this.tail()}`);
      return;
    }
    this.restartTimes.push(now);
    this.setStatus('restarting', why);
    try {
      await this.start();
    } catch {
      // start() already reported 'failed'.
    }
  }

  private async stopChild(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      // Done when Node has reaped it: until then its pid still answers signals, as a zombie.
      const reaped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await stopProcessGroup(child.pid, this._privateDir);
      await Promise.race([reaped, delay(2000)]);
    } else {
      await killStragglers(this._privateDir);
    }
  }
}
