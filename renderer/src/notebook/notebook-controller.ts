import type { CellType, NotebookCell } from '../../../shared/contract';
import { Store } from '../base';
import type { CellActions } from './Cell';
import type { EditorHandle, EditorKey } from './CellEditor';
import type { NotebookSession } from './notebook-session';

export type NotebookMode = 'command' | 'edit';

export interface NotebookViewState {
  activeId: string | null;
  /** JupyterLab's modes: command (keys act on cells) or edit (keys go to the cell's editor). */
  mode: NotebookMode;
  /** Markdown cells shown as source (being edited) rather than rendered. */
  unrendered: ReadonlySet<string>;
  /** Bumped when focus should move to the active cell (or its editor). */
  focusTick: number;
  saving: boolean;
}

/**
 * What the notebook view does with the operator's intent: selection and mode, running and advancing,
 * inserting, deleting (with undo), saving. The session holds the document; this holds the view's part,
 * so the keys, the toolbar and each cell drive one object.
 */
export class NotebookController extends Store<NotebookViewState> implements CellActions {
  readonly editors = new Map<string, EditorHandle>();
  readonly cellElements = new Map<string, HTMLDivElement>();
  private readonly deleted: { cell: NotebookCell; index: number }[] = [];

  constructor(
    readonly session: NotebookSession,
    private readonly options: {
      /** Where a failed operation is told (a toast). */
      onError: (err: unknown) => void;
      /** The notebook now lives in another file (Save As): its tab goes there too. */
      retarget: (from: string, to: string) => void;
    },
  ) {
    super({ activeId: null, mode: 'command', unrendered: new Set(), focusTick: 0, saving: false });
  }

  /** The first cell is selected once the notebook is there, and selection never points at a deleted cell. */
  keepSelection(): void {
    const { status, cells } = this.session.getState();
    const { activeId } = this.state;
    if (status !== 'ready' || (activeId && cells.some((c) => c.cell.id === activeId))) return;
    this.set({ activeId: cells[0]?.cell.id ?? null });
  }

  private cellAt(index: number): string | null {
    return this.session.getState().cells[index]?.cell.id ?? null;
  }

  private unrender(cellId: string): void {
    if (!this.state.unrendered.has(cellId)) this.set({ unrendered: new Set(this.state.unrendered).add(cellId) });
  }

  private render(cellId: string): void {
    if (!this.state.unrendered.has(cellId)) return;
    const unrendered = new Set(this.state.unrendered);
    unrendered.delete(cellId);
    this.set({ unrendered });
  }

  /** Selects a cell and moves focus to it (command mode) or into its editor (edit mode). */
  focus = (cellId: string | null, mode: NotebookMode): void => {
    if (!cellId) return;
    if (mode === 'edit' && this.session.cell(cellId)?.cell.cell_type === 'markdown') this.unrender(cellId);
    this.set({ activeId: cellId, mode, focusTick: this.state.focusTick + 1 });
  };

  /** A click or focus inside a cell: it becomes the active one without stealing focus back. */
  select = (cellId: string, mode: NotebookMode): void => {
    if (this.state.activeId === cellId && this.state.mode === mode) return;
    if (mode !== 'edit') return this.focus(cellId, 'command');
    this.set({ activeId: cellId, mode: 'edit' });
    if (this.session.cell(cellId)?.cell.cell_type === 'markdown') {
      this.unrender(cellId);
      this.set({ focusTick: this.state.focusTick + 1 });
    }
  };

  /** Runs a cell (rendering a markdown one), then stays, moves to the next cell, or inserts one. */
  run = (cellId: string, then: 'stay' | 'advance' | 'insert'): void => {
    const view = this.session.cell(cellId);
    if (!view) return;
    if (view.cell.cell_type === 'markdown') {
      this.render(cellId);
      void this.session.flushEdits();
    } else if (view.cell.cell_type === 'code') {
      void this.session.runCell(cellId);
    }
    const index = this.session.indexOf(cellId);
    if (then === 'advance') {
      const next = this.cellAt(index + 1);
      if (next) this.focus(next, 'command');
      else void this.insertAt(index + 1, 'code', 'edit');
    } else if (then === 'insert') {
      void this.insertAt(index + 1, 'code', 'edit');
    } else if (view.cell.cell_type === 'markdown' || this.state.mode !== 'edit') {
      this.focus(cellId, 'command');
    }
  };

  runScope = (cellId: string, scope: 'above' | 'below'): void => void this.session.runCells(scope, cellId);

  runAll = (): void => void this.session.runCells('all');

  edit = (cellId: string, source: string): void => this.session.editSource(cellId, source);

  editorKey = (cellId: string, key: EditorKey): void => {
    const index = this.session.indexOf(cellId);
    if (key === 'escape') this.focus(cellId, 'command');
    else if (key === 'run') this.run(cellId, 'stay');
    else if (key === 'run-advance') this.run(cellId, 'advance');
    else if (key === 'run-insert') this.run(cellId, 'insert');
    else if (key === 'up-out' && index > 0) this.focus(this.cellAt(index - 1), 'edit');
    else if (key === 'down-out' && this.cellAt(index + 1)) this.focus(this.cellAt(index + 1), 'edit');
  };

  /** Command mode's arrows and j/k: the cell above or below becomes the selected one. */
  selectBy = (by: -1 | 1): void => {
    const { cells } = this.session.getState();
    const index = this.session.indexOf(this.state.activeId ?? '');
    this.focus(cells[Math.min(cells.length - 1, Math.max(0, index + by))]?.cell.id ?? null, 'command');
  };

  move = (cellId: string, by: -1 | 1): void => {
    this.session
      .moveCell(cellId, this.session.indexOf(cellId) + by)
      .then(() => this.focus(cellId, 'command'), this.options.onError);
  };

  remove = (cellId: string): void => {
    const index = this.session.indexOf(cellId);
    this.session.deleteCell(cellId).then((removed) => {
      this.deleted.push(removed);
      const { cells } = this.session.getState();
      this.focus(cells[Math.min(index, cells.length - 1)]?.cell.id ?? null, 'command');
    }, this.options.onError);
  };

  /** Puts the last deleted cell back where it was. */
  undoDelete = (): void => {
    const last = this.deleted.pop();
    if (last)
      this.session
        .restoreCell(last.cell, last.index)
        .then(() => this.focus(last.cell.id, 'command'), this.options.onError);
  };

  insert = (cellId: string, where: 'above' | 'below'): void => {
    void this.insertAt(this.session.indexOf(cellId) + (where === 'below' ? 1 : 0), 'code', 'command');
  };

  /** A new cell below the selected one (at the end when none is). */
  insertBelowActive = (): void => {
    const index = this.session.indexOf(this.state.activeId ?? '');
    void this.insertAt(index >= 0 ? index + 1 : this.session.getState().cells.length, 'code', 'edit');
  };

  insertAt = async (index: number, type: CellType, mode: NotebookMode): Promise<void> => {
    try {
      const id = await this.session.insertCell(index, type);
      if (type === 'markdown') this.unrender(id);
      this.focus(id, mode);
    } catch (err) {
      this.options.onError(err);
    }
  };

  setType = (cellId: string, type: CellType): void => {
    this.session.setCellType(cellId, type).then(() => {
      if (type === 'markdown') this.unrender(cellId);
      this.focus(cellId, 'command');
    }, this.options.onError);
  };

  clear = (cellId: string): void => void this.session.clearOutputs(cellId).catch(this.options.onError);

  clearAll = (): void => void this.session.clearOutputs().catch(this.options.onError);

  answer = (cellId: string, value: string): void => void this.session.answerInput(cellId, value);

  /** Saves; `force` writes over a file that changed on disk (the conflict bar's Overwrite). */
  save = async (force = false): Promise<void> => {
    this.set({ saving: true });
    try {
      await this.session.save(force);
    } catch (err) {
      this.options.onError(err);
    } finally {
      this.set({ saving: false });
    }
  };

  /** Writes the notebook to a new file and carries on there (the way out when its file went away). */
  saveAs = async (target: string): Promise<void> => {
    const from = this.session.path;
    try {
      this.options.retarget(from, await this.session.saveAs(target));
    } catch (err) {
      this.options.onError(err);
      throw err;
    }
  };

  revert = (): void => void this.session.revert().catch(this.options.onError);

  registerEditor = (cellId: string, editor: EditorHandle | null): void => {
    if (editor) this.editors.set(cellId, editor);
    else this.editors.delete(cellId);
  };

  registerCell = (cellId: string, element: HTMLDivElement | null): void => {
    if (element) this.cellElements.set(cellId, element);
    else this.cellElements.delete(cellId);
  };
}
