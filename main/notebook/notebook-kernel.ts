import type { CellRunResult, KernelInfo, RunScope } from '../../shared/contract';
import { DisposableStore } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import { DataViewer, KernelAssist, KernelSession, VariablesInspector } from '../kernel';
import type { Kernel } from '@jupyterlab/services';
import type { CellJson, Json } from './format';
import type { CellOutputChange, NotebookModel } from './model';
import { asKernelError, type NotebookHost } from './notebook-host';
import { RunQueue, type QueuedRun } from './run-queue';

/**
 * An open notebook's kernel and its runs: the kernel session (started on open or at the first run), the run queue,
 * each run's outputs into the model, and the kernel's assist, variables and data viewer requests.
 */
export class NotebookKernel {
  private kernel: KernelSession | null = null;
  private kernelStartQueued = false;
  private closed = false;
  /** Completion and inspection: only ever against a kernel that is already running. */
  readonly assist = new KernelAssist({ target: () => this.kernel });
  /** The Variables view's requests: by the assist's rules, against the running kernel only. */
  readonly variables = new VariablesInspector({ assist: this.assist, target: () => this.kernel });
  /** The data viewer's requests (pages, summaries, exports): by the same rules. */
  readonly dataViewer = new DataViewer({ assist: this.assist, target: () => this.kernel });
  private readonly runs: RunQueue;
  /** What this notebook follows of its kernel (replaced when the kernel is shut down for good). */
  private subscriptions = new DisposableStore();

  constructor(
    private readonly host: NotebookHost,
    /** The notebook: its model is replaced on reload and revert. */
    private readonly notebook: { readonly model: NotebookModel },
  ) {
    this.runs = new RunQueue({
      execute: (run) => this.execute(run),
      aborted: (cell, reason) => this.abortedResult(cell, reason),
      queued: (cell) => this.emitCellState(cell, 'queued', cell.execution_count ?? null),
      failed: (cell) => this.emitCellState(cell, 'idle', cell.execution_count ?? null),
      // Once per run or batch, not per cell: a view asks the kernel again only when nothing waits to run.
      drained: () => this.host.events.variablesChanged({ path: this.path }),
    });
  }

  private get model(): NotebookModel {
    return this.notebook.model;
  }

  private get path(): string {
    return this.notebook.model.path;
  }

  /** The kernel's status as the document carries it. */
  get info(): KernelInfo {
    return (
      this.kernel?.info ?? {
        status: this.kernelStartQueued ? 'starting' : 'none',
        name: null,
        displayName: null,
        language: null,
      }
    );
  }

  /** The queue's state of a cell (an edit announces it again). */
  stateOf(cell: CellJson): 'queued' | 'running' | 'idle' {
    return this.runs.stateOf(cell);
  }

  /** The cell was deleted: it does not run. */
  drop(cell: CellJson): void {
    this.runs.drop(cell);
  }

  /** Ends what runs and waits (a reload, a kernel change). */
  abortRuns(): void {
    this.runs.abort();
  }

  /**
   * Starts the kernel once the open's reply is on its way (a task later): starting the Jupyter server and
   * kernel (Python processes) competed with building and sending a big notebook's document for the CPU.
   */
  startKernelSoon(): void {
    this.kernelStartQueued = true;
    setImmediate(() => {
      this.kernelStartQueued = false;
      if (!this.closed) this.startKernel();
    });
  }

  /** Starts the kernel now rather than at the first run, as JupyterLab does on open. */
  startKernel(): void {
    this.kernelSession()
      .start()
      .catch((err: unknown) => this.host.reportJupyterError(this.path, err));
  }

  /** The notebook was renamed or moved: the Jupyter session follows. */
  movedTo(path: string): void {
    this.kernel?.setNotebookPath(path).catch((err: unknown) => this.host.reportJupyterError(this.path, err));
  }

  /**
   * Shuts the kernel down and forgets it (trust was revoked): runs end as aborted, the status reads 'none', and
   * a later run starts a new kernel only once trusted again.
   */
  async stop(reason: string): Promise<void> {
    const kernel = this.kernel;
    if (!kernel) return;
    this.runs.abort();
    this.kernel = null;
    const subscriptions = this.subscriptions;
    this.subscriptions = new DisposableStore();
    await subscriptions.dispose();
    await kernel.dispose();
    this.host.events.kernelStatus({ path: this.path, kernel: this.info });
    this.host.events.jupyterError({ code: 'E_UNTRUSTED', message: reason, path: this.path });
  }

  /** Forgets the queue and shuts the kernel down. */
  async close(): Promise<void> {
    this.closed = true;
    this.runs.abort();
    await this.subscriptions.dispose();
    await this.kernel?.dispose();
  }

  /** Runs (or re-runs) one cell and resolves when it finished. */
  async runCell(cellId: string, allowStdin: boolean): Promise<CellRunResult> {
    const cells = [this.model.cell(cellId)];
    const [result] = this.notRunnable(cells) ?? (await this.runs.enqueue(cells, allowStdin));
    return result;
  }

  /** Runs all cells, those above `cellId` (exclusive) or from `cellId` down (inclusive); stops at the first error. */
  runCells(scope: RunScope, cellId: string | undefined, allowStdin: boolean): Promise<CellRunResult[]> {
    let cells = this.model.cells;
    if (scope !== 'all') {
      if (cellId === undefined) throw new KilnError('E_BAD_REQUEST', `Running cells ${scope} a cell needs its cellId`);
      const index = this.model.indexOf(cellId);
      cells = scope === 'above' ? cells.slice(0, index) : cells.slice(index);
    }
    return Promise.resolve(this.notRunnable(cells) ?? this.runs.enqueue([...cells], allowStdin));
  }

  /**
   * While the server does not answer (or came back without the kernel), cells asked to run end at once as not
   * run, with why: queued behind a cell that cannot finish, they would look busy for as long as the outage lasts.
   */
  private notRunnable(cells: readonly CellJson[]): CellRunResult[] | null {
    const reason = this.kernel?.unavailableReason;
    return reason ? cells.map((cell) => this.abortedResult(cell, reason)) : null;
  }

  async interrupt(): Promise<{ interrupted: boolean }> {
    const wasRunning = this.runs.busy;
    this.runs.abort();
    this.assist.abandonWaiting();
    if (this.kernel) await this.kernel.interrupt();
    return { interrupted: wasRunning };
  }

  async restart(): Promise<KernelInfo> {
    this.runs.abort();
    const kernel = this.kernelSession();
    await this.withJupyterErrors(() => kernel.restart());
    return kernel.info;
  }

  async reconnect(): Promise<KernelInfo> {
    const kernel = this.kernelSession();
    await this.withJupyterErrors(() => kernel.reconnect());
    return kernel.info;
  }

  /** Switches to another kernelspec; the notebook records it in its metadata. */
  async changeKernel(name: string): Promise<KernelInfo> {
    this.runs.abort();
    const kernel = this.kernelSession();
    await this.withJupyterErrors(() => kernel.changeKernel(name));
    return kernel.info;
  }

  /**
   * The kernel's connection for the debugger, started if need be (null while it cannot answer: dead, disconnected).
   * The debugger speaks to it on the control channel, beside the runs.
   */
  async debugKernel(): Promise<{ connection: Kernel.IKernelConnection; info: KernelInfo } | null> {
    const kernel = this.kernelSession();
    await this.withJupyterErrors(() => kernel.start());
    const connection = kernel.assistKernel();
    return connection ? { connection, info: kernel.info } : null;
  }

  inputReply(value: string): { accepted: boolean } {
    return { accepted: this.kernel?.sendInputReply(value) ?? false };
  }

  private kernelSession(): KernelSession {
    if (this.kernel) return this.kernel;
    // The backstop for every way a kernel starts (open, run, restart, reconnect, kernel change).
    this.host.requireTrusted();
    const spec = this.model.json.metadata.kernelspec as { name?: unknown } | undefined;
    const kernel = new KernelSession({
      server: this.host.requireJupyter(),
      notebookPath: this.path,
      kernelName: typeof spec?.name === 'string' ? spec.name : null,
      srcDir: this.host.srcDir,
    });
    this.kernel = kernel;
    this.subscriptions.add(
      kernel.onStatusChanged((info) => this.host.events.kernelStatus({ path: this.path, kernel: info })),
    );
    // The server stopped answering or is restarting: queued cells end now, as not run and why, not busy for ever.
    this.subscriptions.add(kernel.onServerTrouble((reason) => this.runs.abort(reason)));
    this.subscriptions.add(
      kernel.onKernelLost((message) =>
        this.host.events.jupyterError({ code: 'E_KERNEL_DEAD', message, path: this.path }),
      ),
    );
    this.subscriptions.add(
      kernel.onStrayOutput((msg) => {
        if (msg.header.msg_type !== 'update_display_data') return;
        for (const change of this.model.applyDisplayUpdate(msg.content as Json)) this.emitOutput(change);
      }),
    );
    return kernel;
  }

  private async withJupyterErrors<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.host.reportJupyterError(this.path, err);
      throw asKernelError(err);
    }
  }

  private emitOutput(change: CellOutputChange): void {
    this.host.events.output({
      path: this.path,
      cellId: change.cellId,
      rev: this.model.rev,
      change: change.change,
    });
  }

  private emitCellState(
    cell: CellJson,
    state: 'queued' | 'running' | 'idle',
    executionCount: number | null,
    result?: CellRunResult,
  ): void {
    this.host.events.cellState({
      path: this.path,
      cellId: cell.id,
      state,
      execution_count: executionCount,
      ...(result ? { result } : {}),
      // A finished run may have recorded (or dropped) its timing there.
      ...(state === 'idle' && result ? { metadata: structuredClone(cell.metadata ?? {}) } : {}),
    });
  }

  private async execute(run: QueuedRun): Promise<CellRunResult> {
    const { cell } = run;
    const model = this.model;
    if (cell.cell_type !== 'code') {
      return { cell_id: cell.id, status: 'skipped', exec_count: null, duration_ms: 0, had_error: false, outputs: [] };
    }
    const code = model.sourceOf(cell);
    const started = performance.now();
    if (code.trim() === '') {
      this.clearForRun(cell);
      // As in JupyterLab, an empty cell is cleared but not sent to the kernel.
      const result: CellRunResult = {
        cell_id: cell.id,
        status: 'ok',
        exec_count: null,
        duration_ms: 0,
        had_error: false,
        outputs: [],
      };
      this.emitCellState(cell, 'idle', null, result);
      return result;
    }
    const kernel = this.kernelSession();
    // Not sent, and its outputs kept: the server is not answering, or came back without the kernel.
    const unavailable = kernel.unavailableReason;
    if (unavailable) return this.abortedResult(cell, unavailable);
    const timing = this.startTiming(cell);
    // The request leaves for a running kernel before the run's own bookkeeping (clearing the outputs, the UI's
    // events), which then overlaps the kernel's work; the cell's outputs can only arrive after it.
    const replied = this.withJupyterErrors(() =>
      kernel.execute(code, {
        allowStdin: run.allowStdin,
        onTiming: timing ? (label, date) => (timing[`iopub.${label}`] = date) : undefined,
        onOutput: (msg) => {
          // The notebook may have been reloaded meanwhile; outputs then belong to nothing on screen.
          if (this.model !== model || !model.cells.includes(cell)) return;
          for (const change of model.applyOutput(cell, msg.header.msg_type, msg.content as Json))
            this.emitOutput(change);
        },
        onInputRequest: (prompt, password) =>
          this.host.events.inputRequest({ path: model.path, cellId: cell.id, prompt, password }),
      }),
    );
    this.clearForRun(cell);
    const reply = await replied;
    const duration = performance.now() - started;
    if (this.model === model && model.cells.includes(cell)) {
      for (const page of reply.pages) {
        this.emitOutput(model.appendOutput(cell, { output_type: 'display_data', data: page, metadata: {} }));
      }
      if (reply.executionCount !== null) model.setExecutionCount(cell, reply.executionCount);
      if (timing && reply.status !== 'aborted') {
        if (reply.replyStarted) timing['shell.execute_reply.started'] = reply.replyStarted;
        timing['shell.execute_reply'] = reply.replyDate ?? new Date().toISOString();
        model.setCellMetadata(cell.id, { ...cell.metadata, execution: timing });
      }
      this.host.events.dirty({ path: model.path, dirty: model.dirty, rev: model.rev }, { outputsOnly: true });
    }
    const outputs = model.wireCell(cell).outputs;
    const result: CellRunResult = {
      cell_id: cell.id,
      status: reply.status,
      exec_count: reply.executionCount,
      duration_ms: Math.round(duration * 1000) / 1000,
      had_error: reply.status !== 'ok' || outputs.some((o) => o.output_type === 'error'),
      outputs,
      ...(reply.status === 'aborted' && reply.reason ? { reason: reply.reason } : {}),
    };
    this.emitCellState(cell, 'idle', cell.execution_count ?? null, result);
    return result;
  }

  /** A run starts: the cell's outputs cleared and the cell shown running. */
  private clearForRun(cell: CellJson): void {
    const model = this.model;
    if (model.clearOutputs(cell))
      this.host.events.dirty({ path: model.path, dirty: model.dirty, rev: model.rev }, { outputsOnly: true });
    this.emitOutput({ cellId: cell.id, change: { kind: 'clear' } });
    this.emitCellState(cell, 'running', null);
  }

  /**
   * JupyterLab's recordTiming: on, the run's IOPub busy / execute_input / idle and its execute_reply times
   * go into the cell's metadata `execution` (merged over the last run's); off, a run drops what an earlier
   * run recorded, as JupyterLab does, so no stale timing stays with new outputs.
   */
  private startTiming(cell: CellJson): Record<string, string> | null {
    const recorded = cell.metadata?.execution;
    if (this.host.recordTiming()) {
      return recorded && typeof recorded === 'object' && !Array.isArray(recorded)
        ? { ...(recorded as Record<string, string>) }
        : {};
    }
    if (recorded !== undefined) {
      const { execution: _dropped, ...rest } = cell.metadata;
      this.model.setCellMetadata(cell.id, rest);
    }
    return null;
  }

  private abortedResult(cell: CellJson, reason?: string): CellRunResult {
    const code = cell.cell_type === 'code';
    const result: CellRunResult = {
      cell_id: cell.id,
      status: code ? 'aborted' : 'skipped',
      exec_count: null,
      duration_ms: 0,
      had_error: false,
      outputs: code ? this.model.wireCell(cell).outputs : [],
      ...(code && reason ? { reason } : {}),
    };
    if (code) this.emitCellState(cell, 'idle', cell.execution_count ?? null, result);
    return result;
  }
}
