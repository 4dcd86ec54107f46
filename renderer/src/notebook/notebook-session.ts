import type {
  CellRunResult,
  CellState,
  CellType,
  EventChannel,
  EventPayload,
  KilnBridge,
  NotebookCell,
  NotebookDocument,
  OutputChange,
  PlacedCell,
  RunScope,
} from '../../../shared/contract';
import { isKilnError } from '../../../shared/errors';
import { pathAfterMove } from '../../../shared/fs-change';
import { Store, type Notify } from '../base';
import { withCellState, withOutputChange } from './cell-events';
import { CellsArriving } from './cells-arriving';
import { NotebookRequests } from './notebook-requests';
import {
  INITIAL_STATE,
  adoptedState,
  idleView,
  movedBlock,
  problemOf,
  type CellView,
  type NotebookSessionState,
} from './notebook-session-state';
import { FIRST_MOUNT } from './progressive-mount';
import { SourceEdits } from './source-edits';

export { movedBlock, type CellView, type NotebookProblem, type NotebookSessionState } from './notebook-session-state';

/**
 * The renderer's copy of one open notebook: loads it through `notebook.open`, applies the main process's
 * events, and sends every edit as a request. Repaints are batched to one per animation frame so a cell
 * streaming thousands of messages costs one render per frame, not one per message. Its parts: the requests to main
 * (`notebook-requests.ts`), typed text on its way (`source-edits.ts`), a big notebook's rest arriving
 * (`cells-arriving.ts`), and how output and run-state events change a cell (`cell-events.ts`).
 */
export class NotebookSession extends Store<NotebookSessionState> {
  /** Output events at or below this revision are already in the loaded document. */
  private baseRev = -1;
  /** Whether the rest of the document is still arriving (requests about cells wait for it). */
  private readonly arriving = new CellsArriving();
  private readonly requests: NotebookRequests;
  private readonly edits: SourceEdits;

  constructor(
    private readonly bridge: KilnBridge,
    /** Follows the file through renames and moves (from the change feed), unsaved edits and all. */
    public path: string,
  ) {
    super(INITIAL_STATE);
    this.requests = new NotebookRequests(
      bridge,
      () => this.path,
      () => this.arriving.whole,
    );
    this.edits = new SourceEdits((cellId, source) =>
      this.ask('notebook.editCell', { cellId, source })
        .then((r) => this.set({ dirty: r.dirty }))
        .catch((err: unknown) => this.report(err)),
    );
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

  /** The cells an open left out, once the first ones painted (see CellsArriving.fetchRest). */
  private loadPendingCells(doc: NotebookDocument): Promise<void> {
    return this.arriving.fetchRest(doc, {
      ask: this.ask,
      append: (cells) => this.set({ cells: [...this.state.cells, ...cells.map(idleView)] }),
      adopt: (whole) => this.adopt(whole),
      arrived: () => this.setWhole(true),
      failed: (err) => this.report(err),
    });
  }

  private setWhole(whole: boolean): void {
    if (this.state.allCellsLoaded !== whole) this.set({ allCellsLoaded: whole });
    this.arriving.setWhole(whole);
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
    this.arriving.end();
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
    this.edits.later(cellId, source);
    if (!this.state.dirty) this.set({ dirty: true });
  }

  /** Sends typed-but-unsent edits; every other operation waits for this first. */
  flushEdits(): Promise<void> {
    return this.edits.flush();
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
    this.edits.cancel();
    this.adopt(await this.ask('notebook.revert', {}));
  }

  async close(): Promise<void> {
    this.edits.cancel();
    await this.ask('notebook.close', {}).catch(() => undefined);
  }

  /**
   * Who asks the operator to trust the folder when main refuses to start a kernel (E_UNTRUSTED): resolves true
   * when they trusted it, and the refused request is then sent again. Returns the way to take it back.
   */
  setTrustGate(gate: () => Promise<boolean>): () => void {
    return this.requests.setTrustGate(gate);
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

  private ask: NotebookRequests['ask'] = (channel, args) => this.requests.ask(channel, args);

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

  /**
   * The main process replaced the document. If it reloaded from disk while typed text was still on its way,
   * the typing is kept (sent again on top of the disk version) and the conflict bar lets the operator choose.
   */
  private adoptChanged(doc: NotebookDocument, reason: 'reloaded' | 'reverted' | 'edited'): void {
    // Typed text main may not have applied yet: sent (in flight) or still waiting to be sent.
    const unsent = reason === 'reloaded' ? this.edits.unsent() : new Map<string, string>();
    this.edits.cancel();
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
    this.arriving.token += 1;
    this.baseRev = doc.rev;
    this.set(adoptedState(this.state, doc), 'now');
    this.setWhole(!doc.pendingCells);
  }

  private onOutput(cellId: string, rev: number, change: OutputChange): void {
    if (rev <= this.baseRev) return;
    this.patchCell(cellId, (c) => withOutputChange(c, change));
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
      (c) => withCellState(c, state, executionCount, result, metadata),
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
