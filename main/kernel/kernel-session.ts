import { KernelAPI, KernelConnection, KernelMessage, SessionAPI } from '@jupyterlab/services';
import type { Kernel } from '@jupyterlab/services';
import path from 'node:path';
import type { KernelInfo, KernelStatus } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import type { JupyterConnection, JupyterServerEvent, JupyterServerManager } from './jupyter-server';
import { confirmStdinRoute } from './stdin-probe';

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

/** What one execution reports back (outputs arrive separately through `output`). */
export interface ExecutionReply {
  status: 'ok' | 'error' | 'aborted';
  executionCount: number | null;
  /** Pager payloads (e.g. from `obj?`), shown as outputs as JupyterLab does. */
  pages: Record<string, unknown>[];
  /** Why an execution was aborted, when it was. */
  reason?: string;
  /** The execute_reply's header date and ipykernel's `started` metadata (ISO), for recorded timing. */
  replyDate?: string;
  replyStarted?: string;
}

export interface ExecuteOptions {
  allowStdin?: boolean;
  /** Receives every IOPub message that belongs to this execution (stream, display_data, update_display_data, execute_result, error, clear_output). */
  onOutput: (msg: KernelMessage.IIOPubMessage) => void;
  onInputRequest?: (prompt: string, password: boolean) => void;
  /** This execution's status and execute_input messages on IOPub: 'status.busy', 'execute_input', 'status.idle', with the message's date. */
  onTiming?: (label: string, date: string) => void;
}

/** IOPub messages not tied to a running execution of ours: update_display_data from threads, or from other clients. */
export type StrayOutput = KernelMessage.IIOPubMessage;

/**
 * Python run silently after every kernel (re)start: the workspace's src/ first on sys.path, and import
 * caches invalidated before each cell so a module written to src/ after the kernel started imports
 * (Python caches directory listings, and caches "no such folder" if src/ did not exist yet).
 */
export function kernelSetupCode(srcDir: string): string {
  return [
    'def _kiln_setup():',
    '    import sys, importlib',
    `    src = ${JSON.stringify(srcDir)}`,
    '    while src in sys.path:',
    '        sys.path.remove(src)',
    '    sys.path.insert(0, src)',
    '    sys.path_importer_cache.pop(src, None)',
    '    importlib.invalidate_caches()',
    '    try:',
    '        ip = get_ipython()',
    '    except NameError:',
    '        return',
    '    def _kiln_invalidate_import_caches(*args, **kwargs):',
    '        importlib.invalidate_caches()',
    "    for cb in list(ip.events.callbacks.get('pre_run_cell', [])):",
    "        if getattr(cb, '__name__', '') == '_kiln_invalidate_import_caches':",
    "            ip.events.unregister('pre_run_cell', cb)",
    "    ip.events.register('pre_run_cell', _kiln_invalidate_import_caches)",
    '_kiln_setup()',
    'del _kiln_setup',
  ].join('\n');
}

interface SentExecution {
  kernel: KernelConnection;
  future: Kernel.IShellFuture<KernelMessage.IExecuteRequestMsg, KernelMessage.IExecuteReplyMsg>;
}

interface PendingExecution {
  msgId: string;
  options: ExecuteOptions;
  abort: (reason: string) => void;
  /** The kernel started running it (its execute_input). */
  markStarted: () => void;
}

/** How long an interrupt waits for our cell to start at the kernel: a completion ahead of it may take its 5 s bound. */
const INTERRUPT_START_WAIT_MS = 6_000;

function mapStatus(kernel: KernelConnection | null, connected: boolean): KernelStatus {
  if (!kernel) return 'none';
  switch (kernel.status) {
    case 'dead':
    case 'terminating':
      return 'dead';
    case 'restarting':
    case 'autorestarting':
      return 'restarting';
    case 'unknown':
    case 'starting':
      return 'starting';
    default:
      if (kernel.connectionStatus === 'disconnected' || (kernel.connectionStatus === 'connecting' && connected))
        return 'disconnected';
      return kernel.status === 'busy' ? 'busy' : 'idle';
  }
}

/** How often the server is asked whether a kernel that has not answered yet still exists. */
const KERNEL_LOOKUP_MS = 2_000;

/** Resolves once the kernel's status is one of `settled`, or after `timeoutMs`; `nudge` makes it publish one. */
function untilStatus(
  kernel: Kernel.IKernelConnection,
  settled: readonly string[],
  timeoutMs: number,
  nudge?: () => void,
): Promise<void> {
  if (settled.includes(kernel.status)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      kernel.statusChanged.disconnect(onStatus);
      resolve();
    };
    const onStatus = (_sender: unknown, status: string) => {
      if (settled.includes(status)) done();
    };
    const timer = setTimeout(done, timeoutMs);
    kernel.statusChanged.connect(onStatus);
    nudge?.();
  });
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
  private readonly executionEnded = new Emitter<void>({ onListenerError: logListenerError });
  /** An execution of ours ended (answered, aborted or failed): the kernel's shell may be free. */
  readonly onExecutionEnded: Event<void> = this.executionEnded.event;

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
  private readonly pending = new Map<string, PendingExecution>();
  /** Our executions the kernel has not started yet (being sent, or queued behind a completion): each settles when it does or ends. */
  private readonly unstarted = new Set<Promise<void>>();
  private pendingInput: { parent: KernelMessage.IHeader<'input_request'>; kernel: KernelConnection } | null = null;
  private spec: { name: string | null; displayName: string | null; language: string | null };
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
    await SessionAPI.updateSession(
      { id: this.sessionId, path: notebookPath, name: path.posix.basename(notebookPath) },
      connection.settings,
    );
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
    let markStarted = () => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    this.unstarted.add(started);
    try {
      const ready = this.readyKernel();
      const sent = ready ? this.sendExecute(ready, code, options) : await this.sendWhenReady(code, options);
      return await this.awaitExecution(sent, options, markStarted);
    } finally {
      markStarted();
      this.unstarted.delete(started);
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
    return this.sendExecute(kernel, code, options);
  }

  private sendExecute(kernel: KernelConnection, code: string, options: ExecuteOptions): SentExecution {
    // Kiln sends one execution at a time and stops a batch itself on error; the kernel's own stop_on_error
    // would also abort the next request if it lands in the moment after an error reply.
    const future = kernel.requestExecute(
      { code, silent: false, store_history: true, allow_stdin: options.allowStdin ?? true, stop_on_error: false },
      true,
    );
    return { kernel, future };
  }

  private async awaitExecution(
    { kernel, future }: SentExecution,
    options: ExecuteOptions,
    markStarted: () => void,
  ): Promise<ExecutionReply> {
    const msgId = future.msg.header.msg_id;
    let abortReason: string | null = null;
    const aborted = new Promise<void>((resolve) => {
      this.pending.set(msgId, {
        msgId,
        options,
        abort: (reason) => {
          abortReason = reason;
          resolve();
        },
        markStarted,
      });
    });
    future.onStdin = (msg) => {
      if (msg.header.msg_type !== 'input_request') return;
      const content = msg.content as KernelMessage.IInputRequestMsg['content'];
      this.pendingInput = { parent: msg.header as KernelMessage.IHeader<'input_request'>, kernel };
      options.onInputRequest?.(content.prompt, content.password);
    };
    try {
      const reply = await Promise.race([future.done.catch(() => null), aborted.then(() => null)]);
      if (!reply || abortReason !== null) {
        return {
          status: 'aborted',
          executionCount: null,
          pages: [],
          reason: abortReason ?? 'The execution was cut off (kernel restarted or disconnected)',
        };
      }
      const content = reply.content as
        KernelMessage.IExecuteReply | KernelMessage.IReplyErrorContent | KernelMessage.IReplyAbortContent;
      const status = content.status === 'ok' ? 'ok' : content.status === 'error' ? 'error' : 'aborted';
      const executionCount =
        'execution_count' in content && typeof content.execution_count === 'number' ? content.execution_count : null;
      const pages: Record<string, unknown>[] = [];
      if (content.status === 'ok') {
        for (const payload of (content as KernelMessage.IExecuteReply).payload ?? []) {
          if (payload.source === 'page' && payload.data && typeof payload.data === 'object')
            pages.push(payload.data as Record<string, unknown>);
        }
      }
      const started = (reply.metadata as { started?: unknown } | undefined)?.started;
      return {
        status,
        executionCount,
        pages,
        replyDate: reply.header.date || undefined,
        replyStarted: typeof started === 'string' ? started : undefined,
      };
    } finally {
      this.pending.delete(msgId);
      if (this.pendingInput?.kernel === kernel) this.pendingInput = null;
      future.dispose();
      this.executionEnded.fire();
    }
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
    return this.pending.size > 0;
  }

  /** Answers the pending input() prompt; false when nothing is waiting. */
  sendInputReply(value: string): boolean {
    const waiting = this.pendingInput;
    if (!waiting || waiting.kernel.isDisposed) return false;
    this.pendingInput = null;
    waiting.kernel.sendInputReply({ status: 'ok', value }, waiting.parent);
    return true;
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
    const notStarted = [...this.unstarted];
    if (notStarted.length) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, INTERRUPT_START_WAIT_MS)));
      await Promise.race([Promise.all(notStarted), bound]);
      clearTimeout(timer);
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
    if (this.starting) await this.starting.catch(() => undefined);
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
    this.executionEnded.dispose();
  }

  // -------------------------------------------------------------------------------------------

  private async ensureUsable(options: { allowDead?: boolean } = {}): Promise<void> {
    if (this.disposed) throw new KilnError('E_KERNEL_DEAD', 'The notebook was closed');
    if (this.starting) await this.starting.catch(() => undefined);
    const kernel = this.kernel;
    if (kernel && !kernel.isDisposed && kernel.status !== 'dead') return;
    if (kernel && !options.allowDead) {
      throw new KilnError('E_KERNEL_DEAD', 'The kernel is dead. Restart it to run cells again.');
    }
    try {
      await this.start();
    } catch (err) {
      if (err instanceof KilnError) throw err;
      throw new KilnError(
        'E_KERNEL_DEAD',
        `The kernel could not be started: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
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
      // A notebook written elsewhere may name a kernel this server lacks; the server's default runs it then.
      const wanted =
        this.spec.name && specs.specs.some((s) => s.name === this.spec.name) ? this.spec.name : specs.default;
      const name = wanted ?? undefined;
      const model = await SessionAPI.startSession(
        {
          path: this.options.notebookPath,
          type: 'notebook',
          name: path.posix.basename(this.options.notebookPath),
          kernel: { name },
        } as Parameters<typeof SessionAPI.startSession>[0],
        connection.settings,
      );
      if (this.disposed) {
        await SessionAPI.shutdownSession(model.id, connection.settings).catch(() => undefined);
        throw new KilnError('E_KERNEL_DEAD', 'The notebook was closed');
      }
      if (!model.kernel) throw new Error('The server started a session without a kernel');
      this.sessionId = model.id;
      this.generation = connection.generation;
      const spec = specs.specs.find((s) => s.name === model.kernel!.name);
      this.spec = {
        name: model.kernel.name,
        displayName: spec?.displayName ?? model.kernel.name,
        language: spec?.language ?? null,
      };
      const kernel = new KernelConnection({
        model: model.kernel,
        serverSettings: connection.settings,
        username: 'kiln',
        handleComms: false,
      });
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
      if (err instanceof KilnError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new KilnError('E_KERNEL_DEAD', `The kernel could not be started: ${message}`);
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
        this.nudgeUntilSettled(kernel);
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
      const parentId = (msg.parent_header as Partial<KernelMessage.IHeader>)?.msg_id;
      const pending = parentId ? this.pending.get(parentId) : undefined;
      const type = msg.header.msg_type;
      if (pending && type === 'execute_input') pending.markStarted();
      if (pending && (type === 'status' || type === 'execute_input')) {
        const label =
          type === 'status' ? `status.${(msg.content as { execution_state?: string }).execution_state}` : type;
        pending.options.onTiming?.(label, msg.header.date || new Date().toISOString());
      }
      // debug_event belongs to the debugger (main/debugger listens on the connection itself), not to any output.
      if (type === 'status' || type === 'execute_input' || type === 'debug_event' || type.startsWith('comm_')) return;
      if (pending) pending.options.onOutput(msg);
      else this.strayOutput.fire(msg);
    });
  }

  /**
   * After Jupyter restarts a crashed kernel, its first "idle" can be published before the server's
   * subscription is back, leaving the status at "starting". Asking for kernel_info makes it publish again.
   */
  private nudgeUntilSettled(kernel: KernelConnection): void {
    let tries = 0;
    const timer = setInterval(() => {
      const settled = kernel.status === 'idle' || kernel.status === 'busy' || kernel.status === 'dead';
      if (this.kernel !== kernel || kernel.isDisposed || settled || ++tries > 60) {
        clearInterval(timer);
        return;
      }
      if (kernel.connectionStatus === 'connected') kernel.requestKernelInfo().catch(() => undefined);
    }, 1000);
  }

  /** Waits until the kernel answered kernel_info and reported a settled status (idle or busy). */
  private async waitReady(kernel: KernelConnection, timeoutMs = 10_000): Promise<void> {
    await this.untilAnswered(kernel);
    this.everConnected = true;
    // A kernel_info round trip makes the kernel publish its status.
    await untilStatus(kernel, ['idle', 'busy', 'dead'], timeoutMs, () =>
      kernel.requestKernelInfo().catch(() => undefined),
    );
  }

  /**
   * Resolves when the kernel answers kernel_info. Rejects when it dies first, when the server no longer
   * has it (its program exited as it started and the server gave up restarting it), or after
   * answerTimeoutMs (120 s): a kernel that never answers must not leave the notebook starting forever.
   */
  private untilAnswered(kernel: KernelConnection): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const name = this.spec.displayName ?? kernel.name;
      let settled = false;
      const finish = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearInterval(lookForIt);
        clearTimeout(deadline);
        kernel.statusChanged.disconnect(onStatus);
        if (error === null) resolve();
        else reject(new KilnError('E_KERNEL_DEAD', `The kernel "${name}" ${error}`));
      };
      const onStatus = (_sender: unknown, status: string) => {
        if (status === 'dead') finish('died before it answered.');
      };
      const lookForIt = setInterval(() => {
        KernelAPI.getKernelModel(kernel.id, kernel.serverSettings).then(
          (model) => {
            if (!model)
              finish(
                'stopped as it started. Check that its environment runs (for Python, that it has ipykernel), or choose another kernel.',
              );
          },
          () => undefined, // The server itself is unreachable: its own status reports that.
        );
      }, KERNEL_LOOKUP_MS);
      const answerMs = this.options.answerTimeoutMs ?? 120_000;
      const deadline = setTimeout(() => finish(`did not answer within ${answerMs / 1000} s.`), answerMs);
      kernel.statusChanged.connect(onStatus);
      kernel.info.then(
        () => finish(null),
        (err: unknown) => finish(`could not be reached: ${err instanceof Error ? err.message : String(err)}`),
      );
    });
  }

  private async runSetup(kernel: Kernel.IKernelConnection): Promise<void> {
    this.needsSetup = false;
    const language = this.spec.language;
    if (language !== null && language.toLowerCase() !== 'python') return;
    const srcDir = this.options.srcDir;
    if (srcDir) {
      const future = kernel.requestExecute(
        { code: kernelSetupCode(srcDir), silent: true, store_history: false, allow_stdin: false, stop_on_error: false },
        true,
      );
      try {
        await future.done;
      } catch {
        this.needsSetup = true;
      } finally {
        future.dispose();
      }
    }
    await confirmStdinRoute(kernel);
    // The kernel says idle a moment after the replies to these requests (and to the server's own kernel_info
    // nudges): a start or restart answers with the kernel as the operator will find it.
    await untilStatus(kernel, ['idle', 'dead'], 5_000);
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
    this.pendingInput = null;
    const connection = this.options.server.connection;
    if (sessionId && connection && connection.generation === this.generation) {
      await SessionAPI.shutdownSession(sessionId, connection.settings).catch(() => undefined);
    }
    if (kernel && !kernel.isDisposed) kernel.dispose();
    this.announce();
  }

  private abortAll(reason: string): void {
    for (const pending of [...this.pending.values()]) pending.abort(reason);
    this.pending.clear();
    this.pendingInput = null;
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
      this.start().catch(() => undefined);
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
    let model: Awaited<ReturnType<typeof KernelAPI.getKernelModel>>;
    try {
      model = await KernelAPI.getKernelModel(kernel.id, connection.settings);
    } catch (err) {
      // It stopped answering again; the liveness check says so and brings us back here when it answers.
      console.warn(`[kiln] could not look up kernel ${kernel.id} after the server answered again`, err);
      return;
    }
    if (this.kernel !== kernel || this.disposed) return;
    if (!model) {
      const message = `The kernel is gone: the Jupyter server at ${connection.baseUrl} answers again but no longer has it. Restart to start a new kernel (variables are gone).`;
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
        console.warn(`[kiln] could not reconnect to kernel ${kernel.id}`, err);
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
