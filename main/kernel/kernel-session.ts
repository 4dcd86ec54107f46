import type { Kernel, KernelConnection } from '@jupyterlab/services';
import type { KernelInfo } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import {
  Executions,
  sendExecute,
  type ExecuteOptions,
  type ExecutionReply,
  type SentExecution,
  type StrayOutput,
} from './executions';
import type { JupyterConnection, JupyterServerEvent, JupyterServerManager } from './jupyter-server';
import {
  connectKernel,
  kernelGoneMessage,
  renameSession,
  serverStillHas,
  shutdownSession,
  specNamesOf,
  startNotebookSession,
  type KernelSpecNames,
} from './jupyter-sessions';
import {
  couldNotStart,
  mapStatus,
  nudgeUntilSettled,
  setUpKernel,
  untilAnswered,
  untilAnswering,
  untilStatus,
} from './kernel-readiness';
import { createLogger } from '../log';

const log = createLogger('kernel');

export type { ExecuteOptions, ExecutionReply, StrayOutput } from './executions';
export { kernelSetupCode } from './kernel-readiness';

export interface KernelSessionOptions {
  server: JupyterServerManager;
  /** The notebook's path relative to the server's root: the session path, which sets the kernel's working folder. */
  notebookPath: string;
  /** Kernelspec to start; the server's default when null. */
  kernelName?: string | null;
  /** Absolute folder put first on sys.path in Python kernels (the workspace's src/); null for none. */
  srcDir: string | null;
  /** How long a new kernel may take to answer at all; a large environment can import for a long while. */
  answerTimeoutMs?: number;
}

/**
 * One notebook's kernel: a Jupyter session (so the kernel runs in the notebook's folder) and its
 * connection. Survives kernel restarts and server restarts by starting a new kernel when the old one is gone.
 */
export class KernelSession {
  private readonly statusChanged = new Emitter<KernelInfo>({ onListenerError: logListenerError });
  private readonly kernelLost = new Emitter<string>({ onListenerError: logListenerError });
  private readonly strayOutput = new Emitter<StrayOutput>({ onListenerError: logListenerError });
  /** Fires whenever the status shown to the operator changes. */
  readonly onStatusChanged: Event<KernelInfo> = this.statusChanged.event;
  /** The kernel restarted or was replaced without Kiln asking (it died, or the server came back): variables are gone. */
  readonly onKernelLost: Event<string> = this.kernelLost.event;
  /** IOPub messages for no running execution of ours (e.g. update_display_data from a background thread). */
  readonly onStrayOutput: Event<StrayOutput> = this.strayOutput.event;
  private readonly serverTroubled = new Emitter<string>({ onListenerError: logListenerError });
  /**
   * The server stopped answering, is restarting or failed (the argument says so in words): nothing queued can run
   * now, so the notebook ends its queued cells as not run with this reason.
   */
  readonly onServerTrouble: Event<string> = this.serverTroubled.event;
  /** Our executions in flight, their outputs and the input() prompt one of them waits on. */
  private readonly executions = new Executions();
  /** An execution of ours ended (answered, aborted or failed): the kernel's shell may be free. */
  readonly onExecutionEnded: Event<void> = this.executions.onEnded;

  private readonly options: KernelSessionOptions;
  private kernel: KernelConnection | null = null;
  private sessionId: string | null = null;
  private generation = 0;
  private starting: Promise<void> | null = null;
  private startError: KilnError | null = null;
  private needsSetup = true;
  private everConnected = false;
  private intendedRestart = false;
  private disposed = false;
  private spec: KernelSpecNames;
  private lastInfo = '';
  private readonly followingServer: IDisposable;
  /**
   * What the operator is told instead of the kernel's own status: the server not answering or restarting
   * ('disconnected'; the kernel may still be there), or back without this kernel ('dead': Restart starts a new one).
   */
  private trouble: { status: 'disconnected' | 'dead'; message: string } | null = null;
  /** Keeps a remote server watched while this notebook may have a kernel on it. */
  private readonly liveness: IDisposable;

  constructor(options: KernelSessionOptions) {
    this.options = options;
    this.spec = { name: options.kernelName ?? null, displayName: null, language: null };
    this.followingServer = options.server.onStatusChanged((event) => this.onServerStatus(event));
    this.liveness = options.server.watchLiveness();
  }

  get info(): KernelInfo {
    if (this.trouble) return { status: this.trouble.status, ...this.spec, message: this.trouble.message };
    // Until the set-up code ran, the kernel is not ready for the operator's cells. A restart stays "restarting" until
    // then too: the old kernel publishes idle after its shutdown request, before the new one says starting.
    const status =
      this.starting !== null
        ? 'starting'
        : this.intendedRestart
          ? 'restarting'
          : mapStatus(this.kernel, this.everConnected);
    return { status, ...this.spec };
  }

  /**
   * The notebook was renamed or moved: the Jupyter session follows, so the server lists it under its new
   * path (the running kernel keeps its variables and its working folder, as in JupyterLab).
   */
  async setNotebookPath(notebookPath: string): Promise<void> {
    this.options.notebookPath = notebookPath;
    const connection = this.options.server.connection;
    if (!this.sessionId || !connection || connection.generation !== this.generation) return;
    await renameSession(this.sessionId, notebookPath, connection);
  }

  /** Why cells cannot run now (the server is not answering, or came back without this kernel); null when they can. */
  get unavailableReason(): string | null {
    return this.trouble?.message ?? null;
  }

  /** The error that stopped the last start, if any (E_NO_JUPYTER with what to install). */
  get lastStartError(): KilnError | null {
    return this.startError;
  }

  /** Starts (or returns the running) kernel. */
  start(): Promise<void> {
    if (this.disposed) return Promise.reject(new KilnError('E_KERNEL_DEAD', 'The notebook was closed'));
    if (this.kernel && !this.kernel.isDisposed && this.kernel.status !== 'dead') return Promise.resolve();
    if (!this.starting) {
      this.starting = this.startKernel().finally(() => {
        this.starting = null;
        this.announce();
      });
      this.announce();
    }
    return this.starting;
  }

  /**
   * Runs code; resolves when the kernel replied and went idle. Outputs go to `options.onOutput` as they arrive.
   * An execution cut off by interrupt-restart, kernel death or server loss resolves with status 'aborted'.
   * With the kernel running and set up, the request is on its way to the kernel when this returns: callers
   * do their own bookkeeping after it, while the kernel works.
   */
  async execute(code: string, options: ExecuteOptions): Promise<ExecutionReply> {
    // Sent now it would wait unseen in the connection's queue for a server that may never answer.
    if (this.trouble) return { status: 'aborted', executionCount: null, pages: [], reason: this.trouble.message };
    const execution = this.executions.begin();
    try {
      const ready = this.readyKernel();
      const sent = ready ? sendExecute(ready, code, options) : await this.sendWhenReady(code, options);
      return await this.executions.await(sent, options, execution.markStarted);
    } finally {
      execution.end();
    }
  }

  /** The kernel, when an execution can be sent to it at once: running, connected state aside, and set up. */
  private readyKernel(): KernelConnection | null {
    const kernel = this.kernel;
    if (this.disposed || this.starting || this.needsSetup || !kernel || kernel.isDisposed) return null;
    return kernel.status === 'dead' ? null : kernel;
  }

  private async sendWhenReady(code: string, options: ExecuteOptions): Promise<SentExecution> {
    await this.ensureUsable();
    const kernel = this.kernel!;
    if (this.needsSetup) await this.runSetup(kernel);
    return sendExecute(kernel, code, options);
  }

  /**
   * The kernel, when it can answer a completion or inspection now: started, set up, connected and not
   * dead or restarting. Never starts one: a notebook without a running kernel gets no completion.
   */
  assistKernel(): Kernel.IKernelConnection | null {
    const kernel = this.kernel;
    if (this.disposed || this.starting || this.intendedRestart || !kernel || kernel.isDisposed) return null;
    if (kernel.connectionStatus !== 'connected') return null;
    return kernel.status === 'idle' || kernel.status === 'busy' ? kernel : null;
  }

  /**
   * One of our executions is at the kernel. The kernel's own status is no help here: ipykernel also reports
   * busy and idle around control-channel requests, so it can say idle while a cell runs.
   */
  get executing(): boolean {
    return this.executions.executing;
  }

  /** Answers the pending input() prompt; false when nothing is waiting. */
  sendInputReply(value: string): boolean {
    return this.executions.sendInputReply(value);
  }

  /**
   * Interrupts the running cell. ipykernel takes SIGINT in whichever shell request it is handling and ignores it
   * between requests, so while a completion or inspection is ahead of our cell at the kernel, an interrupt sent at
   * once would stop that request and the cell would run on. So it goes once the cell has started (bounded).
   */
  async interrupt(): Promise<void> {
    const kernel = this.kernel;
    if (!kernel || kernel.isDisposed || kernel.status === 'dead') return;
    if (this.trouble) {
      // The server cannot take the interrupt; the operator at least gets the notebook back.
      this.abortAll(`Interrupted while the Jupyter server did not answer; the cell may still be running there`);
      return;
    }
    if (await this.executions.untilStarted()) {
      if (kernel !== this.kernel || kernel.isDisposed) return;
    }
    await kernel.interrupt();
  }

  /** Restarts the kernel: variables gone; running executions end as 'aborted'; src/ back on sys.path. */
  async restart(): Promise<void> {
    if (this.trouble?.status === 'dead') {
      await this.replaceKernel('The kernel was gone; a new one was started');
      return;
    }
    // A restart goes through the server: it can only fail now, and would drop a kernel that may come back.
    if (this.trouble) throw new KilnError('E_NO_JUPYTER', this.trouble.message);
    await this.ensureUsable({ allowDead: true });
    const kernel = this.kernel!;
    if (kernel.status === 'dead' || kernel.isDisposed) {
      await this.replaceKernel('The kernel was dead; a new one was started');
      return;
    }
    this.intendedRestart = true;
    this.abortAll('The kernel was restarted');
    this.needsSetup = true;
    try {
      await kernel.restart();
      await this.waitReady(kernel);
      await this.runSetup(kernel);
    } catch {
      // The kernel could not be restarted in place (gone from the server): start a fresh one.
      await this.replaceKernel('The kernel could not be restarted; a new one was started');
    } finally {
      this.intendedRestart = false;
      this.announce();
    }
  }

  /** Reconnects the WebSocket, or starts a new kernel if the server no longer has this one. */
  async reconnect(): Promise<void> {
    if (this.trouble?.status === 'disconnected') {
      // The server is asked again now; when it answers, the recovery reconnects (or says the kernel is gone).
      await this.options.server.checkLiveness();
      if (this.options.server.status === 'unreachable') throw new KilnError('E_NO_JUPYTER', this.trouble.message);
      return;
    }
    const kernel = this.kernel;
    if (!kernel || kernel.isDisposed || kernel.status === 'dead') {
      await this.replaceKernel('The kernel was gone; a new one was started');
      return;
    }
    try {
      await kernel.reconnect();
      await this.waitReady(kernel);
    } catch {
      await this.replaceKernel('The kernel could not be reached; a new one was started');
    }
    this.announce();
  }

  /** Switches to another kernelspec: the old kernel is shut down and a new one started. */
  async changeKernel(name: string): Promise<void> {
    // A start in progress (the notebook just opened) would be joined, and end with the old kernelspec. Its failure
    // is already the notebook's status; the new kernelspec starts either way.
    if (this.starting)
      await this.starting.catch(log.caught("a start's failure is already the notebook's status", undefined));
    this.spec = { name, displayName: null, language: null };
    await this.shutdownKernel();
    await this.start();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.abortAll('The notebook was closed');
    await this.shutdownKernel();
    this.disposed = true;
    void this.followingServer.dispose();
    void this.liveness.dispose();
    this.serverTroubled.dispose();
    this.statusChanged.dispose();
    this.kernelLost.dispose();
    this.strayOutput.dispose();
    this.executions.dispose();
  }

  private async ensureUsable(options: { allowDead?: boolean } = {}): Promise<void> {
    if (this.disposed) throw new KilnError('E_KERNEL_DEAD', 'The notebook was closed');
    if (this.starting)
      await this.starting.catch(log.caught("a start's failure is already the notebook's status", undefined));
    const kernel = this.kernel;
    if (kernel && !kernel.isDisposed && kernel.status !== 'dead') return;
    if (kernel && !options.allowDead) {
      throw new KilnError('E_KERNEL_DEAD', 'The kernel is dead. Restart it to run cells again.');
    }
    await this.start().catch((err: unknown) => {
      throw couldNotStart(err);
    });
  }

  private async startKernel(): Promise<void> {
    this.startError = null;
    let connection: JupyterConnection;
    try {
      connection = await this.options.server.start();
    } catch (err) {
      this.startError = err instanceof KilnError ? err : new KilnError('E_NO_JUPYTER', String(err));
      throw this.startError;
    }
    try {
      const specs = await this.options.server.kernelSpecs();
      const model = await startNotebookSession(connection, specs, this.options.notebookPath, this.spec.name);
      if (this.disposed) {
        await shutdownSession(model.id, connection);
        throw new KilnError('E_KERNEL_DEAD', 'The notebook was closed');
      }
      if (!model.kernel) throw new Error('The server started a session without a kernel');
      this.sessionId = model.id;
      this.generation = connection.generation;
      this.spec = specNamesOf(model.kernel.name, specs);
      const kernel = connectKernel(model.kernel, connection);
      this.attach(kernel);
      try {
        await this.waitReady(kernel);
      } catch (err) {
        // Nothing of a kernel that never answered stays behind: no session on the server, no reconnecting socket.
        await this.shutdownKernel();
        throw err;
      }
      this.needsSetup = true;
      await this.runSetup(kernel);
    } catch (err) {
      throw couldNotStart(err);
    }
  }

  private attach(kernel: KernelConnection): void {
    this.kernel = kernel;
    this.trouble = null;
    kernel.statusChanged.connect((_sender, status) => {
      if (this.kernel !== kernel) return;
      if (status === 'autorestarting' || (status === 'restarting' && !this.intendedRestart)) {
        this.needsSetup = true;
        this.abortAll('The kernel died and was restarted');
        this.kernelLost.fire('The kernel died and was restarted; variables are gone.');
        nudgeUntilSettled(kernel, () => this.kernel === kernel);
      } else if (status === 'dead') {
        this.abortAll('The kernel died');
      }
      this.announce();
    });
    kernel.connectionStatusChanged.connect((_sender, status) => {
      if (this.kernel !== kernel) return;
      if (status === 'connected') this.everConnected = true;
      // The socket dropped: whether the server itself is gone is worth knowing now, not at the next liveness tick.
      if (status === 'connecting') void this.options.server.checkLiveness();
      this.announce();
    });
    kernel.iopubMessage.connect((_sender, msg) => {
      if (this.kernel !== kernel) return;
      this.executions.route(msg, (stray) => this.strayOutput.fire(stray));
    });
  }

  /** Waits until the kernel answered kernel_info and reported a settled status (idle or busy). */
  private async waitReady(kernel: KernelConnection, timeoutMs = 10_000): Promise<void> {
    await untilAnswered(kernel, this.spec.displayName ?? kernel.name, this.options.answerTimeoutMs ?? 120_000);
    this.everConnected = true;
    // A kernel_info round trip makes the kernel publish its status.
    await untilStatus(kernel, ['idle', 'busy', 'dead'], timeoutMs, () =>
      kernel
        .requestKernelInfo()
        .catch(log.caught('a kernel_info nudge went unanswered; the status wait has its bound', undefined)),
    );
  }

  private async runSetup(kernel: KernelConnection): Promise<void> {
    this.needsSetup = false;
    // After the server restarted a kernel that died, the new one may still be starting: the set-up waits for it.
    await untilAnswering(kernel, this.spec.displayName ?? kernel.name, this.options.answerTimeoutMs ?? 120_000);
    await setUpKernel(kernel, this.spec.language, this.options.srcDir, () => (this.needsSetup = true));
  }

  private async replaceKernel(reason: string): Promise<void> {
    this.abortAll(reason);
    this.trouble = null;
    await this.shutdownKernel();
    await this.start();
  }

  private async shutdownKernel(): Promise<void> {
    const kernel = this.kernel;
    const sessionId = this.sessionId;
    this.kernel = null;
    this.sessionId = null;
    this.executions.forgetInput();
    const connection = this.options.server.connection;
    if (sessionId && connection && connection.generation === this.generation) {
      await shutdownSession(sessionId, connection);
    }
    if (kernel && !kernel.isDisposed) kernel.dispose();
    this.announce();
  }

  private abortAll(reason: string): void {
    this.executions.abortAll(reason);
  }

  private onServerStatus(event: JupyterServerEvent): void {
    if (this.disposed || !this.kernel) return;
    if (event.status === 'unreachable') {
      // The running cell is left running: if the server comes back with the kernel, its reply still arrives.
      const message = event.message ?? 'The Jupyter server is not answering; retrying';
      this.trouble = { status: 'disconnected', message };
      this.serverTroubled.fire(message);
      this.announce();
    } else if (event.status === 'restarting' || event.status === 'failed') {
      const why = event.message ?? 'The Jupyter server stopped.';
      this.abortAll(why);
      this.trouble =
        event.status === 'failed'
          ? { status: 'dead', message: why }
          : { status: 'disconnected', message: `${why} Restarting it; the kernel starts again without its variables.` };
      this.serverTroubled.fire(this.trouble.message);
      this.announce();
    } else if (event.status === 'running' && event.generation === this.generation && this.trouble) {
      void this.recoverAfterOutage();
    } else if (event.status === 'running' && event.generation !== this.generation) {
      this.trouble = null;
      // The server came back, but its kernels did not: start a new one for this notebook.
      const old = this.kernel;
      this.kernel = null;
      this.sessionId = null;
      old.dispose();
      this.kernelLost.fire('The Jupyter server restarted; a new kernel was started and variables are gone.');
      this.start().catch(log.caught("a start's failure after a server restart is the notebook's status", undefined));
    }
  }

  /**
   * The remote server answers again: the same kernel if it still has it (reconnected, variables kept), else the
   * notebook says the kernel is gone and offers Restart. The running cell then ends as not run, with why.
   */
  private async recoverAfterOutage(): Promise<void> {
    const kernel = this.kernel;
    const connection = this.options.server.connection;
    if (!kernel || kernel.isDisposed || !connection) return;
    const stillThere = await serverStillHas(kernel.id, connection);
    if (stillThere === null || this.kernel !== kernel || this.disposed) return;
    if (!stillThere) {
      const message = kernelGoneMessage(connection);
      this.abortAll(message);
      this.trouble = { status: 'dead', message };
      // Its connection would go on trying to reach a kernel that is not there.
      kernel.dispose();
      this.announce();
      return;
    }
    this.trouble = null;
    if (kernel.connectionStatus !== 'connected') {
      try {
        await kernel.reconnect();
        await this.waitReady(kernel);
      } catch (err) {
        log.warn('a kernel could not be reconnected after its server answered again', { kernelId: kernel.id, err });
      }
    }
    this.announce();
  }

  private announce(): void {
    const info = this.info;
    const key = JSON.stringify(info);
    if (key === this.lastInfo) return;
    this.lastInfo = key;
    this.statusChanged.fire(info);
  }
}
