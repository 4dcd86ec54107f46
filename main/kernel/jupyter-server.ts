import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { KernelSpecAPI } from '@jupyterlab/services';
import { Emitter, type Event } from '../../shared/base/event';
import { toDisposable, type IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import { findJupyter, JUPYTER_INSTALL_HINT, type JupyterCommand } from './discovery';
import { CappedText, killStragglers, killTreeOnExit, newRunId, RUN_ID_VARIABLE, stopProcessGroup } from '../process';
import { writePrivateKernelspecs } from './kernelspecs';
import { createLogger } from '../log';
import { RemoteLiveness } from './remote-liveness';
import { answersStatus, makeServerSettings, notAnsweringMessage } from './server-connection';
import { makePrivateDir, operatorJupyterPath, ownKernelspecsIn, serverEnv } from './server-private-dir';
import type {
  JupyterConnection,
  JupyterServerEvent,
  JupyterServerOptions,
  JupyterServerStatus,
  KernelspecWriter,
  KernelSpecList,
  OwnKernelspecs,
  RemoteJupyter,
} from './server-types';

export { makeServerSettings, notAnsweringMessage } from './server-connection';
export type * from './server-types';

const log = createLogger('kernel');

/** The end of the server's output is what says why it failed; only that is kept. */
const SERVER_LOG_LIMITS = { head: 0, tail: 16_000 };

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
  private readonly liveness: RemoteLiveness;
  private readonly kernelspecWriters = new Set<KernelspecWriter>();

  constructor(options: JupyterServerOptions) {
    this.options = { ...options };
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the watch reads the manager's state as it is then
    const manager = this;
    this.liveness = new RemoteLiveness({
      get connection() {
        return manager._connection;
      },
      get status() {
        return manager._status;
      },
      get disposed() {
        return manager.disposed;
      },
      setStatus: (status, message) => this.setStatus(status, message),
    });
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
      // expected: a failed start already reported its status; only its end is awaited here
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
    if (wasActive)
      await this.start().catch(
        log.caught("the restart from the new source failed; its status says 'failed'", undefined),
      );
  }

  /**
   * Watches a remote server while held (a notebook's kernel session holds it): asked every few seconds, it turns
   * 'unreachable' when it stops answering and 'running' again when it answers. The embedded server needs none:
   * its exit is seen at once and restarts it.
   */
  watchLiveness(): IDisposable {
    return this.liveness.watch();
  }

  /** Asks the remote server now rather than at the next tick (a kernel's WebSocket closed). */
  checkLiveness(): Promise<void> {
    return this.liveness.check();
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
    this.liveness.stop();
    // A start in progress can wait long for the server to answer: stop its child now, not after. No child is
    // spawned from here on (spawnOn checks), so once the start settles nothing of it is left to stop.
    await this.stopChild();
    // expected: a failed start already reported its status; only its end is awaited here
    await this.starting?.catch(() => undefined);
    if (this._privateDir) {
      await fs
        .rm(this._privateDir, { recursive: true, force: true })
        .catch(
          log.caught(
            "the Jupyter server's private folder could not be removed; it is in the temp folder",
            undefined,
            'warn',
          ),
        );
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
    this._privateDir = await makePrivateDir(this.options, this.token);
    return this._privateDir;
  }

  private async spawnServer(): Promise<JupyterConnection> {
    const command = await findJupyter({ command: this.options.command, env: this.options.env });
    const dir = await this.preparePrivateDir();
    // Kernels start through Kiln's launcher, never `-m ipykernel_launcher` resolved from the notebook's folder.
    const env = serverEnv(this.options, dir);
    await writePrivateKernelspecs({
      privateDir: dir,
      command,
      env: { ...env, JUPYTER_PATH: operatorJupyterPath(this.options) },
    });
    for (const writer of this.kernelspecWriters) {
      await writer(ownKernelspecsIn(dir)).catch((err: unknown) => {
        // The server still starts with Jupyter's kernelspecs; a notebook naming a missing one gets the default.
        log.warn("Kiln's environment kernelspecs could not be written; the server starts without them", { err });
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
      env: { ...serverEnv(this.options, dir), [RUN_ID_VARIABLE]: runId },
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
      // expected: start() already reported 'failed'.
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
