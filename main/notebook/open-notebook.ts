import type {
  CellRunResult,
  CellType,
  EditResult,
  EventPayload,
  FileContent,
  KernelInfo,
  KernelSpecInfo,
  NotebookCell,
  NotebookDocument,
  notebookEvents,
  variablesEvents,
  Origin,
  PlacedCell,
  RunScope,
  WriteResult,
} from '../../shared/contract';
import { DisposableStore } from '../../shared/base/lifecycle';
import { SerialQueue } from '../../shared/base/serial-queue';
import { isKilnError, KilnError } from '../../shared/errors';
import { DataViewer, KernelAssist, KernelSession, VariablesInspector, type JupyterServerManager } from '../kernel';
import type { Kernel } from '@jupyterlab/services';
import { parseNotebook, serializeNotebook, validateNotebook, type CellJson, type Json } from './format';
import { NotebookModel, type CellOutputChange } from './model';
import { RunQueue, type QueuedRun } from './run-queue';

type NotebookEventName = keyof typeof notebookEvents | keyof typeof variablesEvents;

/** Cells an operation put in place, as the wire carries them. */
export type InsertedCells = EditResult & { cells: NotebookCell[]; index: number };

/** The part of the Workspace service notebooks need. */
export interface NotebookFiles {
  readonly root: string;
  resolve(rel: string): Promise<string>;
  relative(abs: string): string;
  read(rel: string): Promise<FileContent>;
  write(
    rel: string,
    text: string,
    options?: { origin?: Origin; expectedHash?: string; createParents?: boolean },
  ): Promise<WriteResult>;
  exists(rel: string): Promise<boolean>;
  createFile(rel: string, text: string, options?: { origin?: Origin }): Promise<WriteResult>;
}

/** A dirty notebook kept for hot exit: its bytes as a save would write them, and the disk hash they stand on. */
export interface NotebookBackup {
  text: string;
  /** The file's hash the edits were made over; null when the file did not exist. */
  baseHash: string | null;
}

/** Who asked for a change; edits by others than the operator's own UI are announced with the whole document. */
export interface ChangeOptions {
  origin?: Origin;
}

/** What every open notebook shares with the others, through the service that holds them. */
export interface NotebookHost {
  readonly workspace: NotebookFiles;
  /** Folder put first on sys.path in every kernel, or null (always null in an untrusted workspace). */
  readonly srcDir: string | null;
  /** E_UNTRUSTED unless the workspace is trusted: a kernel runs the folder's code. */
  requireTrusted(): void;
  /** `outputsOnly`: the change touched outputs (or run state), no cell's source: the language mirror has nothing to update. */
  emit<E extends NotebookEventName>(channel: E, payload: EventPayload<E>, options?: { outputsOnly?: boolean }): void;
  /** The Jupyter server, or E_NO_JUPYTER. */
  requireJupyter(): JupyterServerManager;
  /** Announces a Jupyter problem (once, for a missing Jupyter). */
  reportJupyterError(path: string | null, err: unknown): void;
  /** Whether runs record their timing in the cell's metadata `execution`, as JupyterLab's recordTiming does. */
  recordTiming(): boolean;
}

/** One open notebook: its authoritative model, its kernel and its run queue. Cells are addressed by id. */
export class OpenNotebook {
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
  /** Reloads and reverts, one at a time: a read that started earlier never lands after a later one. */
  private readonly diskReads = new SerialQueue();

  /** Reads the file at `key` as a notebook; E_INVALID_NOTEBOOK (the file untouched) if it is not one. */
  static async load(host: NotebookHost, key: string, backup: NotebookBackup | null = null): Promise<OpenNotebook> {
    if (!key.toLowerCase().endsWith('.ipynb'))
      throw new KilnError('E_BAD_REQUEST', `${key} is not a notebook (.ipynb)`);
    if (backup) return OpenNotebook.restore(host, key, backup);
    const content = await host.workspace.read(key);
    const text = notebookText(key, content);
    const parsed = parseNotebook(text, key);
    return new OpenNotebook(
      host,
      new NotebookModel(key, parsed.json, content.hash, parsed.warnings, text.trim() === ''),
    );
  }

  /**
   * Reopens a notebook from its hot-exit backup: dirty, standing on the disk version it was typed over, so a
   * save is refused if the disk moved on since. That case (or a file that is gone) is the conflict the
   * window shows when it opens the notebook (`startConflict`); nothing is written.
   */
  private static async restore(host: NotebookHost, key: string, backup: NotebookBackup): Promise<OpenNotebook> {
    const parsed = parseNotebook(backup.text, key);
    const disk = await host.workspace.read(key).catch((err: unknown) => {
      if (isKilnError(err, 'E_NOT_FOUND')) return null;
      throw err;
    });
    const nb = new OpenNotebook(
      host,
      new NotebookModel(key, parsed.json, backup.baseHash ?? '', parsed.warnings, true),
    );
    if (!disk) {
      nb.startConflict = {
        diskHash: null,
        message: `${key} was deleted on disk. Save to write it again, or close it.`,
      };
    } else if (disk.hash !== backup.baseHash) {
      nb.startConflict = {
        diskHash: disk.hash,
        message: `${key} changed on disk since your unsaved changes were kept. Reload it (dropping your changes) or keep yours and save over it.`,
      };
    }
    return nb;
  }

  /** The conflict a notebook restored from a backup opened with, until it is saved or reverted. */
  startConflict: { diskHash: string | null; message: string } | null = null;

  /** The hot-exit backup of this notebook as it is now; null when it has no unsaved changes. */
  backup(): NotebookBackup | null {
    const model = this.model;
    if (!model.dirty) return null;
    return { text: serializeNotebook(model.diskJson()), baseHash: model.diskHash || null };
  }

  private constructor(
    private readonly host: NotebookHost,
    public model: NotebookModel,
  ) {
    this.runs = new RunQueue({
      execute: (run) => this.execute(run),
      aborted: (cell, reason) => this.abortedResult(cell, reason),
      queued: (cell) => this.emitCellState(cell, 'queued', cell.execution_count ?? null),
      failed: (cell) => this.emitCellState(cell, 'idle', cell.execution_count ?? null),
      // Once per run or batch, not per cell: a view asks the kernel again only when nothing waits to run.
      drained: () => this.host.emit('notebook.variablesChanged', { path: this.path }, { outputsOnly: true }),
    });
  }

  get path(): string {
    return this.model.path;
  }

  /**
   * The document as the wire carries it. With `firstCells`, only that many cells (and `pendingCells` for the rest):
   * copying and sending a 20 MB notebook's every output before its first screen could paint was most of its open.
   */
  document(options: { firstCells?: number } = {}): NotebookDocument {
    const model = this.model;
    const { metadata, nbformat, nbformat_minor } = model.json;
    const total = model.cells.length;
    const sent = Math.min(total, options.firstCells ?? total);
    return {
      path: model.path,
      nbformat,
      nbformat_minor,
      metadata: structuredClone(metadata ?? {}),
      cells: model.cells.slice(0, sent).map((cell) => model.wireCell(cell)),
      ...(options.firstCells !== undefined ? { pendingCells: total - sent } : {}),
      dirty: model.dirty,
      rev: model.rev,
      diskHash: model.diskHash,
      kernel: this.kernel?.info ?? {
        status: this.kernelStartQueued ? 'starting' : 'none',
        name: null,
        displayName: null,
        language: null,
      },
      warnings: [...model.warnings],
    };
  }

  /** Cells of the document a caller holds at `rev` over `diskHash`; stale once the notebook moved on from it. */
  cellRange(range: { from: number; count: number; rev: number; diskHash: string }): {
    cells: NotebookCell[];
    stale: boolean;
  } {
    const model = this.model;
    if (model.rev !== range.rev || model.diskHash !== range.diskHash) return { cells: [], stale: true };
    const cells = model.cells.slice(range.from, range.from + range.count).map((cell) => model.wireCell(cell));
    return { cells, stale: false };
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

  // --- the file -------------------------------------------------------------------------------

  /** Writes the notebook as Jupyter formats it. A clean notebook is not rewritten (its bytes stay as they are). */
  async save(options: {
    force?: boolean;
    origin?: Origin;
  }): Promise<{ saved: boolean; diskHash: string; rev: number }> {
    const model = this.model;
    if (!model.dirty) return { saved: false, diskHash: model.diskHash, rev: model.rev };
    const written = await this.persist(async (text) => {
      try {
        return await this.host.workspace.write(model.path, text, {
          origin: options.origin ?? 'operator',
          expectedHash: options.force || !model.diskHash ? undefined : model.diskHash,
        });
      } catch (err) {
        if (isKilnError(err, 'E_CHANGED_ON_DISK')) {
          const hash = err.details?.diskHash ?? null;
          this.host.emit('notebook.conflict', {
            path: model.path,
            diskHash: hash,
            message: `${model.path} changed on disk since Kiln read it. Reload it, or save again to overwrite.`,
          });
        }
        throw err;
      }
    });
    this.startConflict = null;
    if (!model.dirty) this.host.emit('notebook.dirty', { path: model.path, dirty: false, rev: model.rev });
    return { saved: true, diskHash: written.hash, rev: model.rev };
  }

  /** Writes the notebook to a new file `to` (never over an existing one) and goes on there, kernel and Jupyter session included. */
  async saveAs(to: string, options: ChangeOptions): Promise<void> {
    await this.persist((text) => this.host.workspace.createFile(to, text, { origin: options.origin ?? 'operator' }));
    this.movedTo(to);
    this.host.emit('notebook.dirty', { path: to, dirty: this.model.dirty, rev: this.model.rev });
  }

  /** The file was renamed or moved: the model (with its unsaved edits) and the Jupyter session follow. */
  movedTo(path: string): void {
    this.model.path = path;
    this.kernel?.setNotebookPath(path).catch((err: unknown) => this.host.reportJupyterError(this.path, err));
  }

  /** Re-reads the file, dropping unsaved changes; the kernel keeps running. */
  revert(): Promise<NotebookDocument> {
    return this.diskReads.run(async () => {
      this.replaceModel(await this.host.workspace.read(this.path));
      this.startConflict = null;
      const document = this.document();
      this.host.emit('notebook.changed', { path: this.path, document, reason: 'reverted' });
      return document;
    });
  }

  /**
   * The file changed on disk (the watcher saw it, origin external). Clean: reloaded and announced with
   * notebook.changed. Dirty: notebook.conflict. Our own writes (same hash) are ignored.
   */
  reloadFromDisk(diskHash?: string | null): Promise<'reloaded' | 'conflict' | 'unchanged'> {
    return this.diskReads.run(() => this.reloadNow(diskHash));
  }

  private async reloadNow(diskHash?: string | null): Promise<'reloaded' | 'conflict' | 'unchanged'> {
    if (diskHash !== undefined && diskHash === this.model.diskHash) return 'unchanged';
    let content: FileContent | null;
    try {
      content = await this.host.workspace.read(this.path);
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') content = null;
      else throw err;
    }
    // Judged by the model as it is now: the operator may have typed during the read.
    const model = this.model;
    if (content && content.hash === model.diskHash) return 'unchanged';
    if (!content) {
      this.host.emit('notebook.conflict', {
        path: model.path,
        diskHash: null,
        message: `${model.path} was deleted on disk. Save to write it again, or close it.`,
      });
      return 'conflict';
    }
    if (model.dirty) {
      this.host.emit('notebook.conflict', {
        path: model.path,
        diskHash: content.hash,
        message: `${model.path} changed on disk while it has unsaved changes. Reload it (dropping your changes) or keep yours and save over it.`,
      });
      return 'conflict';
    }
    try {
      this.replaceModel(content);
    } catch (err) {
      const message = err instanceof KilnError ? err.message : String(err);
      this.host.emit('notebook.conflict', {
        path: model.path,
        diskHash: content.hash,
        message: `${model.path} changed on disk and is no longer a valid notebook (${message}). Kiln kept the version it had.`,
      });
      return 'conflict';
    }
    this.host.emit('notebook.changed', { path: this.path, document: this.document(), reason: 'reloaded' });
    return 'reloaded';
  }

  /**
   * Shuts the kernel down and forgets it (trust was revoked): runs end as aborted, the status reads 'none', and
   * a later run starts a new kernel only once trusted again.
   */
  async stopKernel(reason: string): Promise<void> {
    const kernel = this.kernel;
    if (!kernel) return;
    this.runs.abort();
    this.kernel = null;
    const subscriptions = this.subscriptions;
    this.subscriptions = new DisposableStore();
    await subscriptions.dispose();
    await kernel.dispose();
    this.host.emit('notebook.kernelStatus', { path: this.path, kernel: this.document().kernel });
    this.host.emit('notebook.jupyterError', { code: 'E_UNTRUSTED', message: reason, path: this.path });
  }

  /** Forgets the queue and shuts the kernel down. */
  async close(): Promise<void> {
    this.closed = true;
    this.runs.abort();
    await this.subscriptions.dispose();
    await this.kernel?.dispose();
  }

  // --- cell edits -----------------------------------------------------------------------------

  insertCell(
    args: { index?: number; cellType?: CellType; source?: string },
    options: ChangeOptions,
  ): { cell: NotebookCell; index: number; rev: number; dirty: boolean } {
    const { cell, index } = this.model.insertCell(args.index, args.cellType ?? 'code', args.source ?? '');
    return { cell: this.model.wireCell(cell), index, ...this.afterEdit(options) };
  }

  editCell(cellId: string, source: string, options: ChangeOptions): EditResult {
    this.model.editSource(cellId, source);
    return this.afterEdit(options);
  }

  /** One edit over several cells: all are checked first, so a bad id changes nothing. */
  editCells(edits: { cellId: string; source: string }[], options: ChangeOptions): EditResult {
    for (const { cellId } of edits) this.model.requireKnownType(this.model.cell(cellId));
    for (const { cellId, source } of edits) this.model.editSource(cellId, source);
    return this.afterEdit(options);
  }

  setCellType(cellId: string, cellType: CellType, options: ChangeOptions): EditResult {
    this.model.setCellType(cellId, cellType);
    return this.afterEdit(options);
  }

  moveCell(cellId: string, toIndex: number, options: ChangeOptions): EditResult {
    this.model.moveCell(cellId, toIndex);
    return this.afterEdit(options);
  }

  deleteCell(
    cellId: string,
    options: ChangeOptions,
  ): { cell: NotebookCell; index: number; rev: number; dirty: boolean } {
    const { cell, index } = this.model.deleteCell(cellId);
    this.runs.drop(cell);
    return { cell: this.model.wireCell(cell), index, ...this.afterEdit(options) };
  }

  restoreCell(cell: NotebookCell, index: number, options: ChangeOptions): EditResult {
    this.model.restoreCell(cell, index);
    return this.afterEdit(options);
  }

  insertCells(index: number, cells: NotebookCell[], keepIds: boolean, options: ChangeOptions): InsertedCells {
    const inserted = this.model.insertCells(index, cells, keepIds);
    return {
      cells: inserted.cells.map((c) => this.model.wireCell(c)),
      index: inserted.index,
      ...this.afterEdit(options),
    };
  }

  deleteCells(cellIds: string[], options: ChangeOptions): EditResult & { removed: PlacedCell[] } {
    const removed = this.model.deleteCells(cellIds);
    for (const { cell } of removed) this.runs.drop(cell);
    return {
      removed: removed.map(({ cell, index }) => ({ cell: this.model.wireCell(cell), index })),
      ...this.afterEdit(options),
    };
  }

  moveCells(cellIds: string[], toIndex: number, options: ChangeOptions): EditResult {
    this.model.moveCells(cellIds, toIndex);
    return this.afterEdit(options);
  }

  mergeCells(
    cellIds: string[],
    primaryId: string | undefined,
    options: ChangeOptions,
  ): EditResult & { cell: NotebookCell; index: number; removed: PlacedCell[] } {
    const merged = this.model.mergeCells(cellIds, primaryId);
    for (const { cell } of merged.removed) this.runs.drop(cell);
    if (merged.cell.cell_type === 'code') {
      this.emitOutput({ cellId: merged.cell.id, change: { kind: 'clear' } });
      this.emitCellState(merged.cell, this.runs.stateOf(merged.cell), null);
    }
    return {
      cell: this.model.wireCell(merged.cell),
      index: merged.index,
      removed: merged.removed.map(({ cell, index }) => ({ cell: this.model.wireCell(cell), index })),
      ...this.afterEdit(options),
    };
  }

  splitCell(cellId: string, offsets: number[], options: ChangeOptions): InsertedCells {
    const split = this.model.splitCell(cellId, offsets);
    return { cells: split.cells.map((c) => this.model.wireCell(c)), index: split.index, ...this.afterEdit(options) };
  }

  setCellMetadata(cellId: string, metadata: Json, options: ChangeOptions): EditResult {
    this.model.setCellMetadata(cellId, metadata);
    return this.afterEdit(options);
  }

  clearOutputs(cellId: string | undefined, options: ChangeOptions): EditResult {
    const model = this.model;
    const cells = cellId === undefined ? model.cells : [model.cell(cellId)];
    for (const cell of cells) {
      if (model.clearOutputs(cell)) {
        this.emitOutput({ cellId: cell.id, change: { kind: 'clear' } });
        this.emitCellState(cell, this.runs.stateOf(cell), null);
      }
    }
    return this.afterEdit(options);
  }

  // --- execution ------------------------------------------------------------------------------

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

  /** Switches to another kernelspec and records it in the notebook's metadata. */
  async changeKernel(spec: KernelSpecInfo): Promise<KernelInfo> {
    this.runs.abort();
    const kernel = this.kernelSession();
    await this.withJupyterErrors(() => kernel.changeKernel(spec.name));
    this.model.setKernelspec({ name: spec.name, display_name: spec.displayName, language: spec.language });
    this.afterEdit({});
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

  // --- internals ------------------------------------------------------------------------------

  /** Validates, serialises and writes the notebook through `write`; what was written becomes the disk state. */
  private async persist(write: (text: string) => Promise<WriteResult>): Promise<WriteResult> {
    const model = this.model;
    const json = model.diskJson();
    const problem = validateNotebook(json, json.nbformat_minor);
    if (problem)
      throw new KilnError(
        'E_INVALID_NOTEBOOK',
        `${model.path} was not saved because it would not be a valid notebook: ${problem}`,
      );
    const rev = model.rev;
    const written = await write(serializeNotebook(json));
    model.json.nbformat_minor = json.nbformat_minor;
    model.diskHash = written.hash;
    // Outputs may have arrived while writing; those keep the notebook dirty.
    if (model.rev === rev) model.dirty = false;
    return written;
  }

  private replaceModel(content: FileContent): void {
    // Checked here too: the watcher's reload reads the file itself, and a binary file must not parse as ''.
    const parsed = parseNotebook(notebookText(this.path, content), this.path);
    this.runs.abort();
    this.model = new NotebookModel(this.path, parsed.json, content.hash, parsed.warnings);
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
      kernel.onStatusChanged((info) => this.host.emit('notebook.kernelStatus', { path: this.path, kernel: info })),
    );
    // The server stopped answering or is restarting: queued cells end now, as not run and why, not busy for ever.
    this.subscriptions.add(kernel.onServerTrouble((reason) => this.runs.abort(reason)));
    this.subscriptions.add(
      kernel.onKernelLost((message) =>
        this.host.emit('notebook.jupyterError', { code: 'E_KERNEL_DEAD', message, path: this.path }),
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

  private afterEdit(options: ChangeOptions): EditResult {
    const model = this.model;
    this.host.emit('notebook.dirty', { path: model.path, dirty: model.dirty, rev: model.rev });
    if (options.origin && options.origin !== 'operator') {
      this.host.emit('notebook.changed', { path: model.path, document: this.document(), reason: 'edited' });
    }
    return { rev: model.rev, dirty: model.dirty };
  }

  private emitOutput(change: CellOutputChange): void {
    this.host.emit('notebook.output', {
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
    this.host.emit('notebook.cellState', {
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
          this.host.emit('notebook.inputRequest', { path: model.path, cellId: cell.id, prompt, password }),
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
      this.host.emit('notebook.dirty', { path: model.path, dirty: model.dirty, rev: model.rev }, { outputsOnly: true });
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
      this.host.emit('notebook.dirty', { path: model.path, dirty: model.dirty, rev: model.rev }, { outputsOnly: true });
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

/** A Jupyter failure as callers get it: Kiln's own errors as they are, anything else as E_KERNEL_DEAD. */
export function asKernelError(err: unknown): KilnError {
  return err instanceof KilnError
    ? err
    : new KilnError('E_KERNEL_DEAD', err instanceof Error ? err.message : String(err));
}

/** The file's text if it can be a notebook at all (not truncated, not binary). */
function notebookText(key: string, content: FileContent): string {
  if (content.truncated)
    throw new KilnError('E_TOO_LARGE', `${key} is too large to open as a notebook (${content.size} bytes)`);
  if (content.text === null)
    throw new KilnError('E_INVALID_NOTEBOOK', `${key} is not a valid notebook: the file is binary, not JSON text`, {
      reason: 'binary',
    });
  return content.text;
}
