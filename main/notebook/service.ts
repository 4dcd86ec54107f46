import path from 'node:path';
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
  FsChange,
  Origin,
  RunScope,
  WriteResult,
} from '../../shared/contract';
import { isKilnError, KilnError } from '../../shared/errors';
import { changeTouches, rekeyAfterMove } from '../../shared/fs-change';
import type { JupyterServerEvent, JupyterServerManager } from '../kernel';
import { KernelSession } from '../kernel';
import { emptyNotebook, parseNotebook, serializeNotebook, validateNotebook, type CellJson, type Json } from './format';
import { NotebookModel, type CellOutputChange } from './model';

type NotebookEventName = keyof typeof notebookEvents;

/** Where the service announces events; the EventHub fits. */
export interface NotebookEvents {
  emit<E extends NotebookEventName>(channel: E, payload: EventPayload<E>): void;
}

/** The part of the Workspace service notebooks need. */
export interface NotebookFiles {
  readonly root: string;
  resolve(rel: string): Promise<string>;
  relative(abs: string): string;
  read(rel: string): Promise<FileContent>;
  write(rel: string, text: string, options?: { origin?: Origin; expectedHash?: string; createParents?: boolean }): Promise<WriteResult>;
  exists(rel: string): Promise<boolean>;
  createFile(rel: string, text: string, options?: { origin?: Origin }): Promise<WriteResult>;
}

export interface NotebookServiceOptions {
  workspace: NotebookFiles;
  /** The Jupyter server notebooks run against; null when none is configured (notebooks still open and edit). */
  jupyter: JupyterServerManager | null;
  events: NotebookEvents;
  /** Start a notebook's kernel as soon as it opens, as JupyterLab does (default true). Off, it starts at the first run. */
  autoStartKernel?: boolean;
  /** Folder put first on sys.path in every kernel; default `<workspace>/src`. null for none. */
  srcDir?: string | null;
}

/** Who asked for a change; edits by others than the operator's own UI are announced with the whole document. */
export interface ChangeOptions {
  origin?: Origin;
}

interface QueuedRun {
  cell: CellJson;
  batch: { stopped: boolean } | null;
  allowStdin: boolean;
  resolve: (result: CellRunResult) => void;
  reject: (err: unknown) => void;
}

interface OpenNotebook {
  model: NotebookModel;
  kernel: KernelSession | null;
  queue: QueuedRun[];
  running: QueuedRun | null;
  pumping: boolean;
  unsubscribe: (() => void)[];
}

/**
 * The authoritative model of every open notebook and its kernel. Every front-end (renderer, agent verbs, MCP)
 * calls these methods; cells are addressed by id.
 */
export class NotebookService {
  private readonly options: NotebookServiceOptions;
  private readonly open_ = new Map<string, OpenNotebook>();
  private readonly opening = new Map<string, Promise<OpenNotebook>>();
  private lastJupyterError: string | null = null;
  private readonly unsubscribeJupyter: (() => void) | null;
  private disposed = false;

  constructor(options: NotebookServiceOptions) {
    this.options = options;
    this.unsubscribeJupyter = options.jupyter?.statusChanged.connect((event) => this.onJupyterStatus(event)) ?? null;
  }

  private get srcDir(): string | null {
    return this.options.srcDir === undefined ? path.join(this.options.workspace.root, 'src') : this.options.srcDir;
  }

  // --- documents ------------------------------------------------------------------------------

  /** Opens a notebook (or returns the open one). Invalid files are refused with E_INVALID_NOTEBOOK and left untouched. */
  async open(rel: string): Promise<NotebookDocument> {
    const nb = await this.ensureOpen(rel);
    return this.documentOf(nb);
  }

  /** Creates a new notebook file (E_EXISTS if there is one) and opens it. */
  async create(rel: string, options: ChangeOptions = {}): Promise<NotebookDocument> {
    const key = await this.key(rel);
    if (await this.options.workspace.exists(key)) throw new KilnError('E_EXISTS', `${key} already exists`);
    await this.options.workspace.write(key, serializeNotebook(emptyNotebook()), { origin: options.origin ?? 'operator' });
    return this.open(key);
  }

  isOpen(rel: string): boolean {
    return this.open_.has(this.keySync(rel));
  }

  openPaths(): string[] {
    return [...this.open_.keys()];
  }

  async get(rel: string): Promise<NotebookDocument> {
    return this.documentOf(await this.notebook(rel));
  }

  /** Writes the notebook as Jupyter formats it. A clean notebook is not rewritten (its bytes stay as they are). */
  async save(rel: string, options: { force?: boolean; origin?: Origin } = {}): Promise<{ saved: boolean; diskHash: string; rev: number }> {
    const nb = await this.notebook(rel);
    const model = nb.model;
    if (!model.dirty) return { saved: false, diskHash: model.diskHash, rev: model.rev };
    const json = model.diskJson();
    const problem = validateNotebook(json, json.nbformat_minor);
    if (problem) throw new KilnError('E_INVALID_NOTEBOOK', `${model.path} was not saved because it would not be a valid notebook: ${problem}`);
    const text = serializeNotebook(json);
    const rev = model.rev;
    let written: WriteResult;
    try {
      written = await this.options.workspace.write(model.path, text, {
        origin: options.origin ?? 'operator',
        expectedHash: options.force || !model.diskHash ? undefined : model.diskHash,
      });
    } catch (err) {
      if (isKilnError(err, 'E_CHANGED_ON_DISK')) {
        const hash = err.details?.diskHash ?? null;
        this.emit('notebook.conflict', { path: model.path, diskHash: hash, message: `${model.path} changed on disk since Kiln read it. Reload it, or save again to overwrite.` });
      }
      throw err;
    }
    model.json.nbformat_minor = json.nbformat_minor;
    model.diskHash = written.hash;
    // Outputs may have arrived while writing; those keep the notebook dirty.
    if (model.rev === rev) {
      model.dirty = false;
      this.emit('notebook.dirty', { path: model.path, dirty: false, rev: model.rev });
    }
    return { saved: true, diskHash: written.hash, rev: model.rev };
  }

  /**
   * Writes the notebook to a new file (never over an existing one) and goes on there: the model with its
   * kernel and Jupyter session re-keyed to the new path. For a notebook whose file went away.
   */
  async saveAs(rel: string, target: string, options: ChangeOptions = {}): Promise<NotebookDocument> {
    const nb = await this.notebook(rel);
    const to = await this.key(target);
    if (!to.toLowerCase().endsWith('.ipynb')) throw new KilnError('E_BAD_REQUEST', `${to} is not a notebook name (.ipynb)`);
    if (this.open_.has(to)) throw new KilnError('E_EXISTS', `${to} is already open`);
    const model = nb.model;
    const json = model.diskJson();
    const problem = validateNotebook(json, json.nbformat_minor);
    if (problem) throw new KilnError('E_INVALID_NOTEBOOK', `${model.path} was not saved because it would not be a valid notebook: ${problem}`);
    const rev = model.rev;
    const written = await this.options.workspace.createFile(to, serializeNotebook(json), { origin: options.origin ?? 'operator' });
    this.open_.delete(model.path);
    this.open_.set(to, nb);
    model.path = to;
    model.json.nbformat_minor = json.nbformat_minor;
    model.diskHash = written.hash;
    if (model.rev === rev) model.dirty = false;
    nb.kernel?.setNotebookPath(to).catch((err: unknown) => this.reportJupyterError(nb, err));
    this.emit('notebook.dirty', { path: to, dirty: model.dirty, rev: model.rev });
    return this.documentOf(nb);
  }

  /** Forgets the notebook (unsaved changes are dropped) and shuts its kernel down. */
  async close(rel: string): Promise<{ closed: boolean }> {
    const key = await this.key(rel);
    const nb = this.open_.get(key);
    if (!nb) return { closed: false };
    this.open_.delete(key);
    this.abortQueue(nb, 'The notebook was closed');
    for (const off of nb.unsubscribe) off();
    await nb.kernel?.dispose();
    return { closed: true };
  }

  /** Re-reads the file, dropping unsaved changes; the kernel keeps running. */
  async revert(rel: string): Promise<NotebookDocument> {
    const nb = await this.notebook(rel);
    const content = await this.options.workspace.read(nb.model.path);
    this.replaceModel(nb, content);
    const document = this.documentOf(nb);
    this.emit('notebook.changed', { path: nb.model.path, document, reason: 'reverted' });
    return document;
  }

  /**
   * The file changed on disk (the watcher saw it, origin external). Clean: reloaded and announced with
   * notebook.changed. Dirty: notebook.conflict. Our own writes (same hash) are ignored.
   */
  async reloadFromDisk(rel: string, diskHash?: string | null): Promise<'reloaded' | 'conflict' | 'unchanged' | 'not-open'> {
    const key = this.keySync(rel);
    const nb = this.open_.get(key);
    if (!nb) return 'not-open';
    const model = nb.model;
    if (diskHash !== undefined && diskHash === model.diskHash) return 'unchanged';
    let content: FileContent | null;
    try {
      content = await this.options.workspace.read(model.path);
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') content = null;
      else throw err;
    }
    if (content && content.hash === model.diskHash) return 'unchanged';
    if (!content) {
      this.emit('notebook.conflict', { path: model.path, diskHash: null, message: `${model.path} was deleted on disk. Save to write it again, or close it.` });
      return 'conflict';
    }
    if (model.dirty) {
      this.emit('notebook.conflict', { path: model.path, diskHash: content.hash, message: `${model.path} changed on disk while it has unsaved changes. Reload it (dropping your changes) or keep yours and save over it.` });
      return 'conflict';
    }
    try {
      this.replaceModel(nb, content);
    } catch (err) {
      const message = err instanceof KilnError ? err.message : String(err);
      this.emit('notebook.conflict', { path: model.path, diskHash: content.hash, message: `${model.path} changed on disk and is no longer a valid notebook (${message}). Kiln kept the version it had.` });
      return 'conflict';
    }
    this.emit('notebook.changed', { path: nb.model.path, document: this.documentOf(nb), reason: 'reloaded' });
    return 'reloaded';
  }

  /**
   * Follows the change feed. A move re-keys every open notebook it carried (the model with its unsaved
   * edits and dirty state, and the Jupyter session's path); any other change to an open notebook's file,
   * or to a folder holding it, is checked against the disk.
   */
  applyChange(change: FsChange): void {
    if (change.type === 'moved') {
      for (const [, next, nb] of rekeyAfterMove(this.open_, change.from, change.to)) {
        nb.model.path = next;
        nb.kernel?.setNotebookPath(next).catch((err: unknown) => this.reportJupyterError(nb, err));
      }
      return;
    }
    for (const key of this.open_.keys()) {
      if (changeTouches(change, key)) this.reloadFromDisk(key).catch(() => undefined);
    }
  }

  // --- cell edits -----------------------------------------------------------------------------

  async insertCell(
    rel: string,
    args: { index?: number; cellType?: CellType; source?: string },
    options: ChangeOptions = {},
  ): Promise<{ cell: NotebookCell; index: number; rev: number; dirty: boolean }> {
    const nb = await this.notebook(rel);
    const { cell, index } = nb.model.insertCell(args.index, args.cellType ?? 'code', args.source ?? '');
    return { cell: nb.model.wireCell(cell), index, ...this.afterEdit(nb, options) };
  }

  async editCell(rel: string, cellId: string, source: string, options: ChangeOptions = {}): Promise<EditResult> {
    const nb = await this.notebook(rel);
    nb.model.editSource(cellId, source);
    return this.afterEdit(nb, options);
  }

  async setCellType(rel: string, cellId: string, cellType: CellType, options: ChangeOptions = {}): Promise<EditResult> {
    const nb = await this.notebook(rel);
    nb.model.setCellType(cellId, cellType);
    return this.afterEdit(nb, options);
  }

  async moveCell(rel: string, cellId: string, toIndex: number, options: ChangeOptions = {}): Promise<EditResult> {
    const nb = await this.notebook(rel);
    nb.model.moveCell(cellId, toIndex);
    return this.afterEdit(nb, options);
  }

  async deleteCell(rel: string, cellId: string, options: ChangeOptions = {}): Promise<{ cell: NotebookCell; index: number; rev: number; dirty: boolean }> {
    const nb = await this.notebook(rel);
    const { cell, index } = nb.model.deleteCell(cellId);
    nb.queue = nb.queue.filter((run) => {
      if (run.cell !== cell) return true;
      run.resolve(this.abortedResult(nb, cell, 'The cell was deleted'));
      return false;
    });
    return { cell: nb.model.wireCell(cell), index, ...this.afterEdit(nb, options) };
  }

  async restoreCell(rel: string, cell: NotebookCell, index: number, options: ChangeOptions = {}): Promise<EditResult> {
    const nb = await this.notebook(rel);
    nb.model.restoreCell(cell, index);
    return this.afterEdit(nb, options);
  }

  async setCellMetadata(rel: string, cellId: string, metadata: Json, options: ChangeOptions = {}): Promise<EditResult> {
    const nb = await this.notebook(rel);
    nb.model.setCellMetadata(cellId, metadata);
    return this.afterEdit(nb, options);
  }

  async clearOutputs(rel: string, cellId?: string, options: ChangeOptions = {}): Promise<EditResult> {
    const nb = await this.notebook(rel);
    const cells = cellId === undefined ? nb.model.cells : [nb.model.cell(cellId)];
    for (const cell of cells) {
      if (nb.model.clearOutputs(cell)) {
        this.emitOutput(nb, { cellId: cell.id, change: { kind: 'clear' } });
        this.emit('notebook.cellState', { path: nb.model.path, cellId: cell.id, state: this.stateOf(nb, cell), execution_count: null });
      }
    }
    return this.afterEdit(nb, options);
  }

  // --- execution ------------------------------------------------------------------------------

  /** Runs (or re-runs) one cell and resolves when it finished. */
  async runCell(rel: string, cellId: string, options: { allowStdin?: boolean } = {}): Promise<CellRunResult> {
    const nb = await this.notebook(rel);
    const cell = nb.model.cell(cellId);
    return this.enqueue(nb, [cell], options.allowStdin ?? true).then((results) => results[0]);
  }

  /** Runs all cells, those above `cellId` (exclusive) or from `cellId` down (inclusive); stops at the first error. */
  async runCells(rel: string, scope: RunScope, cellId?: string, options: { allowStdin?: boolean } = {}): Promise<{ results: CellRunResult[] }> {
    const nb = await this.notebook(rel);
    let cells = nb.model.cells;
    if (scope !== 'all') {
      if (cellId === undefined) throw new KilnError('E_BAD_REQUEST', `Running cells ${scope} a cell needs its cellId`);
      const index = nb.model.indexOf(cellId);
      cells = scope === 'above' ? cells.slice(0, index) : cells.slice(index);
    }
    return { results: await this.enqueue(nb, [...cells], options.allowStdin ?? true) };
  }

  async interrupt(rel: string): Promise<{ interrupted: boolean }> {
    const nb = await this.notebook(rel);
    const wasRunning = nb.running !== null || nb.queue.length > 0;
    this.abortQueue(nb, 'Interrupted before it ran');
    if (nb.kernel) await nb.kernel.interrupt();
    return { interrupted: wasRunning };
  }

  async restart(rel: string): Promise<KernelInfo> {
    const nb = await this.notebook(rel);
    this.abortQueue(nb, 'The kernel was restarted');
    const kernel = this.kernelFor(nb);
    await this.withJupyterErrors(nb, () => kernel.restart());
    return kernel.info;
  }

  async restartRunAll(rel: string): Promise<{ results: CellRunResult[] }> {
    await this.restart(rel);
    return this.runCells(rel, 'all');
  }

  async reconnect(rel: string): Promise<KernelInfo> {
    const nb = await this.notebook(rel);
    const kernel = this.kernelFor(nb);
    await this.withJupyterErrors(nb, () => kernel.reconnect());
    return kernel.info;
  }

  async kernelSpecs(): Promise<{ default: string | null; specs: KernelSpecInfo[] }> {
    const jupyter = this.requireJupyter();
    return this.withJupyterErrors(null, () => jupyter.kernelSpecs());
  }

  /** Switches the notebook to another kernelspec; records it in the notebook's metadata. */
  async setKernel(rel: string, name: string): Promise<KernelInfo> {
    const nb = await this.notebook(rel);
    const specs = await this.kernelSpecs();
    const spec = specs.specs.find((s) => s.name === name);
    if (!spec) throw new KilnError('E_NOT_FOUND', `No kernel named "${name}" on the Jupyter server (has: ${specs.specs.map((s) => s.name).join(', ')})`);
    this.abortQueue(nb, 'The kernel was changed');
    const kernel = this.kernelFor(nb);
    await this.withJupyterErrors(nb, () => kernel.changeKernel(name));
    nb.model.setKernelspec({ name: spec.name, display_name: spec.displayName, language: spec.language });
    this.afterEdit(nb, {});
    return kernel.info;
  }

  async inputReply(rel: string, value: string): Promise<{ accepted: boolean }> {
    const nb = await this.notebook(rel);
    return { accepted: nb.kernel?.sendInputReply(value) ?? false };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.unsubscribeJupyter?.();
    await Promise.all([...this.open_.keys()].map((key) => this.close(key)));
  }

  // --- internals ------------------------------------------------------------------------------

  private emit<E extends NotebookEventName>(channel: E, payload: EventPayload<E>): void {
    this.options.events.emit(channel, payload);
  }

  private keySync(rel: string): string {
    return path.posix.normalize(rel.replace(/\\/g, '/')).replace(/^\.\/+/, '').replace(/\/+$/, '');
  }

  /** The canonical workspace-relative path (also the guard: paths outside the workspace are refused). */
  private async key(rel: string): Promise<string> {
    const abs = await this.options.workspace.resolve(rel);
    return this.options.workspace.relative(abs);
  }

  private async notebook(rel: string): Promise<OpenNotebook> {
    const nb = this.open_.get(this.keySync(rel)) ?? this.open_.get(await this.key(rel));
    if (!nb) throw new KilnError('E_NOT_FOUND', `The notebook ${rel} is not open`, { path: rel });
    return nb;
  }

  private async ensureOpen(rel: string): Promise<OpenNotebook> {
    if (this.disposed) throw new KilnError('E_SHUTTING_DOWN', 'Kiln is shutting down');
    const key = await this.key(rel);
    const existing = this.open_.get(key);
    if (existing) return existing;
    let pending = this.opening.get(key);
    if (!pending) {
      pending = this.load(key).finally(() => this.opening.delete(key));
      this.opening.set(key, pending);
    }
    return pending;
  }

  private async load(key: string): Promise<OpenNotebook> {
    if (!key.toLowerCase().endsWith('.ipynb')) throw new KilnError('E_BAD_REQUEST', `${key} is not a notebook (.ipynb)`);
    const content = await this.options.workspace.read(key);
    const text = notebookText(key, content);
    const parsed = parseNotebook(text, key);
    const empty = text.trim() === '';
    const nb: OpenNotebook = {
      model: new NotebookModel(key, parsed.json, content.hash, parsed.warnings, empty),
      kernel: null,
      queue: [],
      running: null,
      pumping: false,
      unsubscribe: [],
    };
    this.open_.set(key, nb);
    if ((this.options.autoStartKernel ?? true) && this.options.jupyter) {
      const kernel = this.kernelFor(nb);
      kernel.start().catch((err: unknown) => this.reportJupyterError(nb, err));
    }
    return nb;
  }

  private replaceModel(nb: OpenNotebook, content: FileContent): void {
    // Checked here too: the watcher's reload reads the file itself, and a binary file must not parse as ''.
    const parsed = parseNotebook(notebookText(nb.model.path, content), nb.model.path);
    this.abortQueue(nb, 'The notebook was reloaded');
    nb.model = new NotebookModel(nb.model.path, parsed.json, content.hash, parsed.warnings);
  }

  private kernelFor(nb: OpenNotebook): KernelSession {
    if (nb.kernel) return nb.kernel;
    const jupyter = this.requireJupyter();
    const spec = nb.model.json.metadata.kernelspec as { name?: unknown } | undefined;
    const kernel = new KernelSession({
      server: jupyter,
      notebookPath: nb.model.path,
      kernelName: typeof spec?.name === 'string' ? spec.name : null,
      srcDir: this.srcDir,
    });
    nb.kernel = kernel;
    nb.unsubscribe.push(
      kernel.statusChanged.connect((info) => this.emit('notebook.kernelStatus', { path: nb.model.path, kernel: info })),
      kernel.kernelLost.connect((message) => this.emit('notebook.jupyterError', { code: 'E_KERNEL_DEAD', message, path: nb.model.path })),
      kernel.strayOutput.connect((msg) => {
        if (msg.header.msg_type !== 'update_display_data') return;
        for (const change of nb.model.applyDisplayUpdate(msg.content as Json)) this.emitOutput(nb, change);
      }),
    );
    return kernel;
  }

  private requireJupyter(): JupyterServerManager {
    if (!this.options.jupyter) {
      throw new KilnError('E_NO_JUPYTER', 'No Jupyter server is configured. Install Jupyter or set a Jupyter command or remote server in the settings.');
    }
    return this.options.jupyter;
  }

  private async withJupyterErrors<T>(nb: OpenNotebook | null, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.reportJupyterError(nb, err);
      if (err instanceof KilnError) throw err;
      throw new KilnError('E_KERNEL_DEAD', err instanceof Error ? err.message : String(err));
    }
  }

  /** Announces a Jupyter problem once (not once per cell or per notebook). */
  private reportJupyterError(nb: OpenNotebook | null, err: unknown): void {
    const code = err instanceof KilnError ? err.code : 'E_KERNEL_DEAD';
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'E_NO_JUPYTER') {
      if (this.lastJupyterError === message) return;
      this.lastJupyterError = message;
      this.emit('notebook.jupyterError', { code, message });
      return;
    }
    this.emit('notebook.jupyterError', { code, message, path: nb?.model.path });
  }

  private onJupyterStatus(event: JupyterServerEvent): void {
    if (event.status === 'running') this.lastJupyterError = null;
    if (event.status === 'restarting') {
      this.emit('notebook.jupyterError', { code: 'E_KERNEL_DEAD', message: `${event.message ?? 'The Jupyter server stopped.'} Restarting it; kernels start again without their variables.` });
    }
  }

  private afterEdit(nb: OpenNotebook, options: ChangeOptions): EditResult {
    const model = nb.model;
    this.emit('notebook.dirty', { path: model.path, dirty: model.dirty, rev: model.rev });
    if (options.origin && options.origin !== 'operator') {
      this.emit('notebook.changed', { path: model.path, document: this.documentOf(nb), reason: 'edited' });
    }
    return { rev: model.rev, dirty: model.dirty };
  }

  private documentOf(nb: OpenNotebook): NotebookDocument {
    const model = nb.model;
    const { metadata, nbformat, nbformat_minor } = model.json;
    return {
      path: model.path,
      nbformat,
      nbformat_minor,
      metadata: structuredClone(metadata ?? {}),
      cells: model.cells.map((cell) => model.wireCell(cell)),
      dirty: model.dirty,
      rev: model.rev,
      diskHash: model.diskHash,
      kernel: nb.kernel?.info ?? { status: 'none', name: null, displayName: null, language: null },
      warnings: [...model.warnings],
    };
  }

  private stateOf(nb: OpenNotebook, cell: CellJson): 'queued' | 'running' | 'idle' {
    if (nb.running?.cell === cell) return 'running';
    return nb.queue.some((run) => run.cell === cell) ? 'queued' : 'idle';
  }

  private emitOutput(nb: OpenNotebook, change: CellOutputChange): void {
    this.emit('notebook.output', { path: nb.model.path, cellId: change.cellId, rev: nb.model.rev, change: change.change });
  }

  private enqueue(nb: OpenNotebook, cells: CellJson[], allowStdin: boolean): Promise<CellRunResult[]> {
    const batch = cells.length > 1 ? { stopped: false } : null;
    const promises = cells.map(
      (cell) =>
        new Promise<CellRunResult>((resolve, reject) => {
          nb.queue.push({ cell, batch, allowStdin, resolve, reject });
          if (cell.cell_type === 'code') {
            this.emit('notebook.cellState', { path: nb.model.path, cellId: cell.id, state: 'queued', execution_count: cell.execution_count ?? null });
          }
        }),
    );
    void this.pump(nb);
    return Promise.all(promises);
  }

  private async pump(nb: OpenNotebook): Promise<void> {
    if (nb.pumping) return;
    nb.pumping = true;
    try {
      while (nb.queue.length > 0) {
        const run = nb.queue.shift()!;
        if (run.batch?.stopped) {
          run.resolve(this.abortedResult(nb, run.cell, 'An earlier cell failed'));
          continue;
        }
        nb.running = run;
        try {
          const result = await this.execute(nb, run);
          if (result.had_error && run.batch) run.batch.stopped = true;
          run.resolve(result);
        } catch (err) {
          if (run.batch) run.batch.stopped = true;
          this.emit('notebook.cellState', { path: nb.model.path, cellId: run.cell.id, state: 'idle', execution_count: run.cell.execution_count ?? null });
          run.reject(err);
          // Without a kernel the rest of the queue cannot run either.
          this.abortQueue(nb, err instanceof Error ? err.message : String(err));
        } finally {
          nb.running = null;
        }
      }
    } finally {
      nb.pumping = false;
    }
  }

  private async execute(nb: OpenNotebook, run: QueuedRun): Promise<CellRunResult> {
    const { cell } = run;
    const model = nb.model;
    if (cell.cell_type !== 'code') {
      return { cell_id: cell.id, status: 'skipped', exec_count: null, duration_ms: 0, had_error: false, outputs: [] };
    }
    const code = model.sourceOf(cell);
    if (model.clearOutputs(cell)) this.emit('notebook.dirty', { path: model.path, dirty: model.dirty, rev: model.rev });
    this.emitOutput(nb, { cellId: cell.id, change: { kind: 'clear' } });
    this.emit('notebook.cellState', { path: model.path, cellId: cell.id, state: 'running', execution_count: null });
    const started = performance.now();
    if (code.trim() === '') {
      // As in JupyterLab, an empty cell is cleared but not sent to the kernel.
      const result: CellRunResult = { cell_id: cell.id, status: 'ok', exec_count: null, duration_ms: 0, had_error: false, outputs: [] };
      this.emit('notebook.cellState', { path: model.path, cellId: cell.id, state: 'idle', execution_count: null, result });
      return result;
    }
    const kernel = this.kernelFor(nb);
    const reply = await this.withJupyterErrors(nb, () =>
      kernel.execute(code, {
        allowStdin: run.allowStdin,
        onOutput: (msg) => {
          // The notebook may have been reloaded meanwhile; outputs then belong to nothing on screen.
          if (nb.model !== model || !model.cells.includes(cell)) return;
          for (const change of model.applyOutput(cell, msg.header.msg_type, msg.content as Json)) this.emitOutput(nb, change);
        },
        onInputRequest: (prompt, password) => this.emit('notebook.inputRequest', { path: model.path, cellId: cell.id, prompt, password }),
      }),
    );
    const duration = performance.now() - started;
    if (nb.model === model && model.cells.includes(cell)) {
      for (const page of reply.pages) {
        this.emitOutput(nb, model.appendOutput(cell, { output_type: 'display_data', data: page, metadata: {} }));
      }
      if (reply.executionCount !== null) model.setExecutionCount(cell, reply.executionCount);
      this.emit('notebook.dirty', { path: model.path, dirty: model.dirty, rev: model.rev });
    }
    const outputs = model.wireCell(cell).outputs;
    const result: CellRunResult = {
      cell_id: cell.id,
      status: reply.status,
      exec_count: reply.executionCount,
      duration_ms: Math.round(duration * 1000) / 1000,
      had_error: reply.status !== 'ok' || outputs.some((o) => o.output_type === 'error'),
      outputs,
    };
    this.emit('notebook.cellState', { path: model.path, cellId: cell.id, state: 'idle', execution_count: cell.execution_count ?? null, result });
    return result;
  }

  private abortedResult(nb: OpenNotebook, cell: CellJson, _reason: string): CellRunResult {
    const result: CellRunResult = {
      cell_id: cell.id,
      status: cell.cell_type === 'code' ? 'aborted' : 'skipped',
      exec_count: null,
      duration_ms: 0,
      had_error: false,
      outputs: cell.cell_type === 'code' ? nb.model.wireCell(cell).outputs : [],
    };
    if (cell.cell_type === 'code') {
      this.emit('notebook.cellState', { path: nb.model.path, cellId: cell.id, state: 'idle', execution_count: cell.execution_count ?? null, result });
    }
    return result;
  }

  /** Drops every queued run (they report 'aborted'); the running one is left to the kernel (interrupt/restart ends it). */
  private abortQueue(nb: OpenNotebook, reason: string): void {
    const queued = nb.queue.splice(0);
    for (const run of queued) {
      if (run.batch) run.batch.stopped = true;
      run.resolve(this.abortedResult(nb, run.cell, reason));
    }
    if (nb.running?.batch) nb.running.batch.stopped = true;
  }
}

/** The file's text if it can be a notebook at all (not truncated, not binary). */
function notebookText(key: string, content: FileContent): string {
  if (content.truncated) throw new KilnError('E_TOO_LARGE', `${key} is too large to open as a notebook (${content.size} bytes)`);
  if (content.text === null) throw new KilnError('E_INVALID_NOTEBOOK', `${key} is not a valid notebook: the file is binary, not JSON text`, { reason: 'binary' });
  return content.text;
}
