import type {
  CellRunResult,
  CellState,
  CellType,
  EventChannel,
  EventPayload,
  KernelInfo,
  KernelSpecInfo,
  KilnBridge,
  NotebookCell,
  NotebookDocument,
  NotebookOutput,
  OutputChange,
  PlacedCell,
  RequestArgs,
  RequestChannel,
  RequestResult,
  RunScope,
} from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { isKilnError } from '../../../shared/errors';
import { pathAfterMove } from '../../../shared/fs-change';
import { numbersOutside } from '../../../shared/python-json';
import { Store, shownError, type Notify } from '../base';
import { FIRST_MOUNT } from './progressive-mount';

/** The requests that address one notebook by its path. */
type NotebookRequest = {
  [C in RequestChannel]: C extends `notebook.${string}` ? (RequestArgs<C> extends { path: string } ? C : never) : never;
}[RequestChannel];

/** One cell as the view shows it: the document's cell plus what only the running session knows. */
export interface CellView {
  cell: NotebookCell;
  state: CellState;
  /** A pending input() prompt. */
  input: { prompt: string; password: boolean } | null;
  /** What the operator answered to input() prompts in this run (shown as JupyterLab does; not saved). */
  answers: string[];
  /** Why the cell's last run did not happen or was cut off, when the kernel said (not saved; the next run clears it). */
  note?: string;
}

export interface NotebookProblem {
  code: string;
  message: string;
}

export interface NotebookSessionState {
  status: 'loading' | 'ready' | 'error';
  /** Why the notebook could not be opened (invalid JSON, schema error, ...). */
  error: NotebookProblem | null;
  cells: CellView[];
  dirty: boolean;
  kernel: KernelInfo;
  metadata: Record<string, unknown>;
  warnings: string[];
  /** Changed on disk while dirty. */
  conflict: string | null;
  /** The conflict is that the file is gone (deleted, or renamed by another program): Save As is the way out. */
  conflictDeleted: boolean;
  /** Jupyter missing or unreachable, the server restarting, a run refused. */
  jupyterError: NotebookProblem | null;
  specs: { default: string | null; specs: KernelSpecInfo[] } | null;
  /** Bumped when the whole document was replaced (reload, revert, agent edit): editors resync their text. */
  generation: number;
  /** Every cell has arrived: an open sends a big notebook's first cells first and the rest after they painted. */
  allCellsLoaded: boolean;
}

const NO_KERNEL: KernelInfo = { status: 'none', name: null, displayName: null, language: null };

/** Before the first load. */
const INITIAL_STATE: NotebookSessionState = {
  status: 'loading',
  error: null,
  cells: [],
  dirty: false,
  kernel: NO_KERNEL,
  metadata: {},
  warnings: [],
  conflict: null,
  conflictDeleted: false,
  jupyterError: null,
  specs: null,
  generation: 0,
  allCellsLoaded: false,
};

function problemOf(err: unknown): NotebookProblem {
  const { code, message } = shownError(err);
  return { code, message };
}

/** Stream text of an output (list-of-lines on disk, one string once streaming). */
function withAppendedText(output: NotebookOutput, text: string): NotebookOutput {
  const current = joinMultiline((output as { text?: string | string[] }).text);
  return { ...output, text: current + text };
}

/** A cell as a fresh view shows it: not running, no prompt. */
function idleView(cell: NotebookCell): CellView {
  return { cell, state: 'idle', input: null, answers: [] };
}

/** The list with `moving` taken out (in order) and put back as one block starting at `toIndex`. */
export function movedBlock<T extends { cell: { id: string } }>(
  list: readonly T[],
  moving: ReadonlySet<string>,
  toIndex: number,
): T[] {
  const picked = list.filter((c) => moving.has(c.cell.id));
  const rest = list.filter((c) => !moving.has(c.cell.id));
  const to = Math.min(Math.max(0, toIndex), rest.length);
  return [...rest.slice(0, to), ...picked, ...rest.slice(to)];
}

const EDIT_DELAY_MS = 250;
/** Cells per request when the rest of a notebook follows its first screen: about a megabyte of a heavy notebook, one short task to parse. */
const PENDING_CELLS_CHUNK = 50;
/** Requests that go out while the rest of the document is still arriving; every other one waits for it (it may address those cells). */
const BEFORE_WHOLE: ReadonlySet<string> = new Set([
  'notebook.open',
  'notebook.cells',
  'notebook.get',
  'notebook.close',
]);

/** Resolves once the page has painted (a frame, then a task), or soon in a page that does not paint (hidden). */
function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const fallback = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(fallback);
        resolve();
      }),
    );
  });
}

/**
 * The renderer's copy of one open notebook: loads it through `notebook.open`, applies the main process's
 * events, and sends every edit as a request. Repaints are batched to one per animation frame so a cell
 * streaming thousands of messages costs one render per frame, not one per message.
 */
export class NotebookSession extends Store<NotebookSessionState> {
  /** Output events at or below this revision are already in the loaded document. */
  private baseRev = -1;
  private readonly pendingEdits = new Map<string, { timer: ReturnType<typeof setTimeout>; source: string }>();
  private readonly inflightEdits = new Set<Promise<unknown>>();
  /** Sources sent but not yet acknowledged: a reload from disk can overtake them in main. */
  private readonly inflightSources = new Map<string, string>();
  /** Asks the operator to trust the folder (see setTrustGate). */
  private trustGate: (() => Promise<boolean>) | null = null;
  /** Bumped by every adopted document: the rest of an earlier one stops arriving. */
  private documentToken = 0;
  /** While the rest of the document is arriving: settles when it has (requests about cells wait for it). */
  private wholeDocument: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(
    private readonly bridge: KilnBridge,
    /** Follows the file through renames and moves (from the change feed), unsaved edits and all. */
    public path: string,
  ) {
    super(INITIAL_STATE);
    this.own(
      bridge.on('fs.change', (change) => {
        if (change.type === 'moved') this.path = pathAfterMove(this.path, change.from, change.to) ?? this.path;
      }),
    );
    this.listen('notebook.output', (e) => this.onOutput(e.cellId, e.rev, e.change));
    this.listen('notebook.cellState', (e) =>
      this.onCellState(e.cellId, e.state, e.execution_count, e.result, e.metadata),
    );
    this.listen('notebook.kernelStatus', (e) => this.set({ kernel: e.kernel }));
    this.listen('notebook.changed', (e) => this.adoptChanged(e.document, e.reason));
    this.listen('notebook.conflict', (e) => this.set({ conflict: e.message, conflictDeleted: e.diskHash === null }));
    this.listen('notebook.dirty', (e) => this.set({ dirty: e.dirty }));
    this.listen('notebook.inputRequest', (e) =>
      this.patchCell(e.cellId, () => ({ input: { prompt: e.prompt, password: e.password } })),
    );
    // Jupyter problems without a path concern every notebook (the server is shared).
    this.own(
      bridge.on('notebook.jupyterError', (e) => {
        if (e.path === undefined || e.path === this.path)
          this.set({ jupyterError: { code: e.code, message: e.message } });
      }),
    );
  }

  /** Opens the notebook: its first screen of cells at once, the rest after they painted. */
  async load(): Promise<void> {
    let doc: NotebookDocument;
    try {
      doc = await this.ask('notebook.open', { firstCells: FIRST_MOUNT });
    } catch (err) {
      this.set({ status: 'error', error: problemOf(err) }, 'now');
      return;
    }
    this.adopt(doc);
    void this.loadSpecs();
    await this.loadPendingCells(doc);
  }

  /**
   * The cells an open left out, in chunks, once the first ones painted. If the notebook changed in main
   * meanwhile, the whole document is taken instead; a document adopted meanwhile (reload, revert) ends this.
   */
  private async loadPendingCells(doc: NotebookDocument): Promise<void> {
    if (!doc.pendingCells) return;
    const token = this.documentToken;
    const end = doc.cells.length + doc.pendingCells;
    try {
      await afterPaint();
      for (let from = doc.cells.length; from < end && token === this.documentToken;) {
        const count = Math.min(PENDING_CELLS_CHUNK, end - from);
        const chunk = await this.ask('notebook.cells', { from, count, rev: doc.rev, diskHash: doc.diskHash });
        if (token !== this.documentToken) return;
        if (chunk.stale || chunk.cells.length === 0) {
          this.adopt(await this.ask('notebook.get', {}));
          return;
        }
        from += chunk.cells.length;
        this.set({ cells: [...this.state.cells, ...chunk.cells.map(idleView)] });
      }
      if (token === this.documentToken) this.setWhole(true);
    } catch (err) {
      if (token !== this.documentToken) return;
      // The cells held are still right; requests go ahead rather than wait for cells that will not come.
      this.report(err);
      this.setWhole(true);
    }
  }

  private setWhole(whole: boolean): void {
    if (this.state.allCellsLoaded !== whole) this.set({ allCellsLoaded: whole });
    if (whole) {
      this.wholeDocument?.resolve();
      this.wholeDocument = null;
    } else if (!this.wholeDocument) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.wholeDocument = { promise, resolve };
    }
  }

  /** The kernelspecs for the picker; also how a missing Jupyter is noticed when its one-time event was missed. */
  async loadSpecs(): Promise<void> {
    try {
      this.set({ specs: await this.bridge.request('notebook.kernelSpecs', {}) });
    } catch (err) {
      const problem = problemOf(err);
      if (problem.code === 'E_NO_JUPYTER') this.set({ jupyterError: problem });
    }
  }

  override dispose(): void {
    // The rest of the document stops arriving; nothing waits for it any more.
    this.documentToken += 1;
    this.wholeDocument?.resolve();
    this.wholeDocument = null;
    void this.flushEdits();
    super.dispose();
  }

  cell(cellId: string): CellView | undefined {
    return this.state.cells.find((c) => c.cell.id === cellId);
  }

  indexOf(cellId: string): number {
    return this.state.cells.findIndex((c) => c.cell.id === cellId);
  }

  // ---- edits ----

  /** The editor's text changed: kept locally at once, sent after a short pause (or before anything else). */
  editSource(cellId: string, source: string): void {
    const view = this.cell(cellId);
    if (!view || view.cell.source === source) return;
    this.patchCell(cellId, (c) => ({ cell: { ...c.cell, source } }), 'now');
    const pending = this.pendingEdits.get(cellId);
    if (pending) clearTimeout(pending.timer);
    this.pendingEdits.set(cellId, { source, timer: setTimeout(() => void this.sendEdit(cellId), EDIT_DELAY_MS) });
    if (!this.state.dirty) this.set({ dirty: true });
  }

  /** Sends typed-but-unsent edits; every other operation waits for this first. */
  async flushEdits(): Promise<void> {
    for (const cellId of [...this.pendingEdits.keys()]) void this.sendEdit(cellId);
    await Promise.allSettled([...this.inflightEdits]);
  }

  private sendEdit(cellId: string): Promise<unknown> {
    const pending = this.pendingEdits.get(cellId);
    if (!pending) return Promise.resolve();
    clearTimeout(pending.timer);
    this.pendingEdits.delete(cellId);
    this.inflightSources.set(cellId, pending.source);
    const job = this.ask('notebook.editCell', { cellId, source: pending.source })
      .then((r) => this.set({ dirty: r.dirty }))
      .catch((err: unknown) => this.report(err))
      .finally(() => {
        this.inflightEdits.delete(job);
        if (this.inflightSources.get(cellId) === pending.source) this.inflightSources.delete(cellId);
      });
    this.inflightEdits.add(job);
    return job;
  }

  async insertCell(index: number, cellType: CellType = 'code', source = ''): Promise<string> {
    await this.flushEdits();
    const r = await this.ask('notebook.insertCell', { index, cellType, source });
    const cells = [...this.state.cells];
    cells.splice(r.index, 0, { cell: r.cell, state: 'idle', input: null, answers: [] });
    this.set({ cells, dirty: r.dirty }, 'now');
    return r.cell.id;
  }

  async deleteCell(cellId: string): Promise<{ cell: NotebookCell; index: number }> {
    await this.flushEdits();
    const r = await this.ask('notebook.deleteCell', { cellId });
    this.set({ cells: this.state.cells.filter((c) => c.cell.id !== cellId), dirty: r.dirty }, 'now');
    return { cell: r.cell, index: r.index };
  }

  async restoreCell(cell: NotebookCell, index: number): Promise<void> {
    await this.flushEdits();
    const r = await this.ask('notebook.restoreCell', { cell, index });
    const cells = [...this.state.cells];
    cells.splice(Math.min(index, cells.length), 0, { cell, state: 'idle', input: null, answers: [] });
    this.set({ cells, dirty: r.dirty }, 'now');
  }

  async moveCell(cellId: string, toIndex: number): Promise<void> {
    const from = this.indexOf(cellId);
    if (from < 0 || toIndex < 0 || toIndex >= this.state.cells.length || toIndex === from) return;
    await this.flushEdits();
    const r = await this.ask('notebook.moveCell', { cellId, toIndex });
    const cells = [...this.state.cells];
    const [moved] = cells.splice(from, 1);
    cells.splice(toIndex, 0, moved);
    this.set({ cells, dirty: r.dirty }, 'now');
  }

  // ---- several cells at once ----

  /** Inserts cells as one block: a paste (new ids) or an undo putting cells back (`keepIds`). */
  async insertCells(index: number, cells: NotebookCell[], keepIds = false): Promise<NotebookCell[]> {
    await this.flushEdits();
    const r = await this.ask('notebook.insertCells', { index, cells, keepIds });
    const next = [...this.state.cells];
    next.splice(r.index, 0, ...r.cells.map((cell) => idleView(cell)));
    this.set({ cells: next, dirty: r.dirty }, 'now');
    return r.cells;
  }

  /** Deletes cells; resolves them with the indexes they had, in document order. */
  async deleteCells(cellIds: string[]): Promise<PlacedCell[]> {
    await this.flushEdits();
    const r = await this.ask('notebook.deleteCells', { cellIds });
    const gone = new Set(r.removed.map((p) => p.cell.id));
    this.set({ cells: this.state.cells.filter((c) => !gone.has(c.cell.id)), dirty: r.dirty }, 'now');
    return r.removed;
  }

  /**
   * Moves cells (in document order) as one block whose first cell lands at `toIndex`. `applied` runs as the move
   * is applied, before the view re-renders, so what it changes (the selection) shows in the same render.
   */
  async moveCells(cellIds: string[], toIndex: number, applied?: () => void): Promise<void> {
    await this.flushEdits();
    const r = await this.ask('notebook.moveCells', { cellIds, toIndex });
    this.set({ cells: movedBlock(this.state.cells, new Set(cellIds), toIndex), dirty: r.dirty }, 'now');
    applied?.();
  }

  /** Replaces a cell's metadata (hidden input or outputs, scrolling, collapsed headings). */
  async setCellMetadata(cellId: string, metadata: NotebookCell['metadata']): Promise<void> {
    await this.flushEdits();
    const r = await this.ask('notebook.setCellMetadata', { cellId, metadata });
    this.patchCell(cellId, (c) => ({ cell: { ...c.cell, metadata } }), 'now');
    this.set({ dirty: r.dirty }, 'now');
  }

  /** JupyterLab's merge (Shift+M); resolves the merged cell and the cells it took in. */
  async mergeCells(cellIds: string[], primaryId?: string): Promise<{ cell: NotebookCell; removed: PlacedCell[] }> {
    await this.flushEdits();
    const r = await this.ask('notebook.mergeCells', { cellIds, primaryId });
    const gone = new Set(r.removed.map((p) => p.cell.id));
    const cells = this.state.cells.filter((c) => !gone.has(c.cell.id) && c.cell.id !== r.cell.id);
    cells.splice(r.index, 0, idleView(r.cell));
    // The merged cell's editor takes its new text.
    this.set({ cells, dirty: r.dirty, generation: this.state.generation + 1 }, 'now');
    return { cell: r.cell, removed: r.removed };
  }

  /** JupyterLab's split at the cursor (Ctrl+Shift+-); resolves the parts. */
  async splitCell(cellId: string, offsets: number[]): Promise<NotebookCell[]> {
    await this.flushEdits();
    const r = await this.ask('notebook.splitCell', { cellId, offsets });
    const cells = this.state.cells.filter((c) => c.cell.id !== cellId);
    cells.splice(r.index, 0, ...r.cells.map((cell) => idleView(cell)));
    this.set({ cells, dirty: r.dirty, generation: this.state.generation + 1 }, 'now');
    return r.cells;
  }

  async setCellType(cellId: string, cellType: CellType): Promise<void> {
    const view = this.cell(cellId);
    if (!view || view.cell.cell_type === cellType) return;
    await this.flushEdits();
    const r = await this.ask('notebook.setCellType', { cellId, cellType });
    this.patchCell(
      cellId,
      (c) => ({
        cell: {
          ...c.cell,
          cell_type: cellType,
          outputs: cellType === 'code' ? c.cell.outputs : [],
          execution_count: cellType === 'code' ? c.cell.execution_count : null,
        },
      }),
      'now',
    );
    this.set({ dirty: r.dirty }, 'now');
  }

  /** Several cells' new sources as one edit in main (Replace All); open editors take the text (undoable). */
  async replaceSources(edits: { cellId: string; source: string }[]): Promise<void> {
    if (!edits.length) return;
    await this.flushEdits();
    const r = await this.ask('notebook.editCells', { edits });
    const bySource = new Map(edits.map((e) => [e.cellId, e.source]));
    const cells = this.state.cells.map((c) =>
      bySource.has(c.cell.id) ? { ...c, cell: { ...c.cell, source: bySource.get(c.cell.id)! } } : c,
    );
    this.set({ cells, dirty: r.dirty, generation: this.state.generation + 1 }, 'now');
  }

  async clearOutputs(cellId?: string): Promise<void> {
    await this.flushEdits();
    const r = await this.ask('notebook.clearOutputs', { cellId });
    this.set({ dirty: r.dirty });
  }

  // ---- running ----

  async runCell(cellId: string): Promise<CellRunResult | null> {
    await this.flushEdits();
    this.patchCell(cellId, () => ({ answers: [] }));
    try {
      return await this.ask('notebook.runCell', { cellId });
    } catch (err) {
      this.report(err);
      return null;
    }
  }

  async runCells(scope: RunScope, cellId?: string): Promise<void> {
    await this.flushEdits();
    try {
      await this.ask('notebook.runCells', { scope, cellId });
    } catch (err) {
      this.report(err);
    }
  }

  async interrupt(): Promise<void> {
    await this.call(() => this.ask('notebook.interrupt', {}));
  }

  async restart(): Promise<void> {
    const kernel = await this.call(() => this.ask('notebook.restart', {}));
    if (kernel) this.set({ kernel, jupyterError: null });
  }

  async restartRunAll(): Promise<void> {
    await this.flushEdits();
    await this.call(() => this.ask('notebook.restartRunAll', {}));
  }

  async reconnect(): Promise<void> {
    const kernel = await this.call(() => this.ask('notebook.reconnect', {}));
    if (kernel) this.set({ kernel, jupyterError: null });
  }

  async setKernel(name: string): Promise<void> {
    const kernel = await this.call(() => this.ask('notebook.setKernel', { name }));
    if (kernel) this.set({ kernel });
  }

  /** Starts the kernel from a Python environment (main writes its kernelspec); the metadata names it as setKernel does. */
  async setEnvironment(id: string): Promise<void> {
    const kernel = await this.call(() => this.ask('notebook.setEnvironment', { id }));
    if (kernel) this.set({ kernel });
  }

  async answerInput(cellId: string, value: string): Promise<void> {
    const view = this.cell(cellId);
    const shown = view?.input?.password ? '········' : value;
    this.patchCell(
      cellId,
      (c) => ({ input: null, answers: [...c.answers, `${c.input?.prompt ?? ''}${shown}`] }),
      'now',
    );
    await this.call(() => this.ask('notebook.inputReply', { value }));
  }

  // ---- file ----

  async save(force = false): Promise<void> {
    await this.flushEdits();
    const r = await this.ask('notebook.save', { force });
    if (r.saved || force) this.set({ conflict: null, conflictDeleted: false });
  }

  /** Writes the notebook to a new file and follows it there; resolves the new path. */
  async saveAs(target: string): Promise<string> {
    await this.flushEdits();
    const doc = await this.ask('notebook.saveAs', { target });
    this.path = doc.path;
    this.set({ conflict: null, conflictDeleted: false, dirty: doc.dirty }, 'now');
    return doc.path;
  }

  async revert(): Promise<void> {
    this.cancelEdits();
    this.adopt(await this.ask('notebook.revert', {}));
  }

  async close(): Promise<void> {
    this.cancelEdits();
    await this.ask('notebook.close', {}).catch(() => undefined);
  }

  /**
   * Who asks the operator to trust the folder when main refuses to start a kernel (E_UNTRUSTED): resolves true
   * when they trusted it, and the refused request is then sent again. Returns the way to take it back.
   */
  setTrustGate(gate: () => Promise<boolean>): () => void {
    this.trustGate = gate;
    return () => {
      if (this.trustGate === gate) this.trustGate = null;
    };
  }

  dismissJupyterError(): void {
    this.set({ jupyterError: null });
  }

  // ---- internals ----

  private listen<E extends EventChannel>(channel: E, handler: (payload: EventPayload<E>) => void): void {
    this.own(
      this.bridge.on(channel, (payload) => {
        if ((payload as { path?: string }).path !== this.path) return;
        handler(payload);
      }),
    );
  }

  /**
   * A request about this notebook, sent to where its file is now. Main re-keys an open notebook the
   * moment Kiln moves its file, and the feed's `moved` reaches this window ahead of main's answer, so a
   * request that crossed the move fails as not open after `path` has followed: it is sent again there.
   */
  private async ask<C extends NotebookRequest>(
    channel: C,
    args: Omit<RequestArgs<C>, 'path'>,
    retriedTrusted = false,
  ): Promise<RequestResult<C>> {
    if (this.wholeDocument && !BEFORE_WHOLE.has(channel)) await this.wholeDocument.promise;
    const path = this.path;
    try {
      return await this.bridge.request(channel, { ...args, path } as RequestArgs<C>);
    } catch (err) {
      // Run, Run All, Restart...: the folder is not trusted. The operator is asked; trusted, the request goes again.
      if (isKilnError(err, 'E_UNTRUSTED') && !retriedTrusted && this.trustGate && (await this.trustGate()))
        return this.ask(channel, args, true);
      if (this.path === path || !isKilnError(err, 'E_NOT_FOUND')) throw err;
      return this.ask(channel, args, retriedTrusted);
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      this.report(err);
      return null;
    }
  }

  private report(err: unknown): void {
    // Refused as untrusted, and the operator said no: the toolbar already says why nothing runs.
    if (isKilnError(err, 'E_UNTRUSTED')) return;
    this.set({ jupyterError: problemOf(err) }, 'now');
  }

  private cancelEdits(): void {
    for (const pending of this.pendingEdits.values()) clearTimeout(pending.timer);
    this.pendingEdits.clear();
    this.inflightSources.clear();
  }

  /**
   * The main process replaced the document. If it reloaded from disk while typed text was still on its way,
   * the typing is kept (sent again on top of the disk version) and the conflict bar lets the operator choose.
   */
  private adoptChanged(doc: NotebookDocument, reason: 'reloaded' | 'reverted' | 'edited'): void {
    // Typed text main may not have applied yet: sent (in flight) or still waiting to be sent.
    const unsent = new Map(reason === 'reloaded' ? this.inflightSources : []);
    if (reason === 'reloaded') for (const [cellId, pending] of this.pendingEdits) unsent.set(cellId, pending.source);
    this.cancelEdits();
    this.adopt(doc);
    const kept = [...unsent].filter(([cellId]) => this.cell(cellId));
    if (!kept.length) return;
    for (const [cellId, source] of kept) this.editSource(cellId, source);
    this.set(
      {
        conflict: `${this.path} changed on disk while you were typing; your edits are kept. Reload to take the version on disk, or Overwrite it with yours.`,
        conflictDeleted: false,
        generation: this.state.generation + 1,
      },
      'now',
    );
  }

  private adopt(doc: NotebookDocument): void {
    this.documentToken += 1;
    this.baseRev = doc.rev;
    const previous = new Map(this.state.cells.map((c) => [c.cell.id, c]));
    this.set(
      {
        status: 'ready',
        error: null,
        cells: doc.cells.map((cell) => ({
          cell,
          state: previous.get(cell.id)?.state ?? 'idle',
          input: null,
          answers: [],
        })),
        dirty: doc.dirty,
        kernel: doc.kernel.status === 'none' && this.state.kernel.status !== 'none' ? this.state.kernel : doc.kernel,
        metadata: doc.metadata,
        warnings: doc.warnings,
        conflict: doc.dirty ? this.state.conflict : null,
        conflictDeleted: doc.dirty && this.state.conflictDeleted,
        generation: this.state.generation + 1,
        allCellsLoaded: !doc.pendingCells,
      },
      'now',
    );
    this.setWhole(!doc.pendingCells);
  }

  private onOutput(cellId: string, rev: number, change: OutputChange): void {
    if (rev <= this.baseRev) return;
    this.patchCell(cellId, (c) => {
      const outputs = [...c.cell.outputs];
      // The file's number texts describe the outputs it held; a replaced or cleared output drops its own.
      let exactNumbers = c.cell.exactNumbers;
      switch (change.kind) {
        case 'append':
          outputs.push(change.output);
          break;
        case 'appendText':
          if (outputs[change.index]) outputs[change.index] = withAppendedText(outputs[change.index], change.text);
          break;
        case 'replace':
          outputs[change.index] = change.output;
          exactNumbers = numbersOutside(exactNumbers, `/outputs/${change.index}`);
          break;
        case 'clear':
          outputs.length = 0;
          exactNumbers = numbersOutside(exactNumbers, '/outputs');
          break;
      }
      return { cell: { ...c.cell, outputs, exactNumbers } };
    });
  }

  private onCellState(
    cellId: string,
    state: CellState,
    executionCount: number | null,
    result?: CellRunResult,
    metadata?: Record<string, unknown>,
  ): void {
    this.patchCell(
      cellId,
      (c) => ({
        state,
        input: state === 'idle' ? null : c.input,
        note: result?.status === 'aborted' ? result.reason : undefined,
        cell: {
          ...c.cell,
          ...(metadata ? { metadata } : {}),
          execution_count: executionCount,
          // The final result carries the complete outputs: a safety net should an event have been missed.
          outputs:
            result && result.status !== 'skipped' && result.outputs.length >= c.cell.outputs.length
              ? result.outputs
              : c.cell.outputs,
        },
      }),
      state !== 'idle' ? 'now' : 'frame',
    );
  }

  private patchCell(cellId: string, change: (view: CellView) => Partial<CellView>, notify: Notify = 'frame'): void {
    let found = false;
    const cells = this.state.cells.map((c) => {
      if (c.cell.id !== cellId) return c;
      found = true;
      return { ...c, ...change(c) };
    });
    if (found) this.set({ cells }, notify);
  }

  /** Updates state; repaints at the next frame unless 'now' (for changes the operator just made). */
  protected override set(patch: Partial<NotebookSessionState>, notify: Notify = 'frame'): void {
    super.set(patch, notify);
  }
}
