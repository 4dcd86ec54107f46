import type { CellType, NotebookCell } from '../../../shared/contract';
import { cellClipboard } from './cell-clipboard';
import {
  asHeading,
  outputsHidden,
  outputsScrolled,
  sourceHidden,
  withOutputsHidden,
  withOutputsScrolled,
  withSourceHidden,
} from './cell-metadata';
import type { NotebookSelection } from './notebook-selection';
import type { NotebookSession } from './notebook-session';
import { movedBlock } from './notebook-session-state';
import type { CellEdit, CellUndo, ReplaceStep } from './notebook-undo';
import type { NotebookMode, ViewState } from './notebook-view-state';
import { headingsHiding, withHeadingCollapsed } from './sections';
import type { EditorHandle, EditorKey } from './types';

export interface NotebookActionsOptions {
  /** Where a failed operation is told (a toast). */
  onError: (err: unknown) => void;
  /** The notebook now lives in another file (Save As): its tab goes there too. */
  retarget: (from: string, to: string) => void;
}

/**
 * What the operator does to cells and to the notebook: running and advancing, inserting, deleting, moving, the cell
 * clipboard, merge and split, types and headings (each a step of the undo), outputs and input hidden, line numbers,
 * the kernel, saving. The selection says which cells; the undo records what changed.
 */
export class NotebookActions {
  constructor(
    private readonly view: ViewState,
    private readonly session: NotebookSession,
    private readonly selection: NotebookSelection,
    private readonly history: CellUndo,
    private readonly editors: ReadonlyMap<string, EditorHandle>,
    private readonly options: NotebookActionsOptions,
  ) {}

  // --- running ------------------------------------------------------------------------------------

  /** Runs a cell (rendering a markdown one), then stays, moves to the next cell, or inserts one. */
  run = (cellId: string, then: 'stay' | 'advance' | 'insert'): void => {
    const view = this.session.cell(cellId);
    if (!view) return;
    if (view.cell.cell_type === 'markdown') {
      this.selection.render(cellId);
      void this.session.flushEdits();
    } else if (view.cell.cell_type === 'code') {
      void this.session.runCell(cellId);
    }
    const index = this.session.indexOf(cellId);
    if (then === 'advance') {
      const next = this.selection.cellAt(index + 1);
      if (next) this.selection.focus(next, 'command');
      else void this.insertAt(index + 1, 'code', 'edit');
    } else if (then === 'insert') {
      void this.insertAt(index + 1, 'code', 'edit');
    } else if (view.cell.cell_type === 'markdown' || this.view.state.mode !== 'edit') {
      this.selection.focus(cellId, 'command');
    }
  };

  runScope = (cellId: string, scope: 'above' | 'below'): void => void this.session.runCells(scope, cellId);

  runAll = (): void => void this.session.runCells('all');

  edit = (cellId: string, source: string): void => this.session.editSource(cellId, source);

  editorKey = (cellId: string, key: EditorKey): void => {
    const index = this.session.indexOf(cellId);
    const { selection } = this;
    if (key === 'escape') selection.focus(cellId, 'command');
    else if (key === 'run') this.run(cellId, 'stay');
    else if (key === 'run-advance') this.run(cellId, 'advance');
    else if (key === 'run-insert') this.run(cellId, 'insert');
    else if (key === 'up-out' && index > 0) selection.focus(selection.cellAt(index - 1), 'edit');
    else if (key === 'down-out' && selection.cellAt(index + 1)) selection.focus(selection.cellAt(index + 1), 'edit');
  };

  /** Runs the selected cells in order, stopping at the first error, then moves below the last (Shift+Enter). */
  runSelection = (then: 'stay' | 'advance' | 'insert'): void => {
    const ids = this.selection.selection();
    if (ids.length <= 1) {
      if (ids[0]) this.run(ids[0], then);
      return;
    }
    const last = ids[ids.length - 1];
    for (const id of ids) if (this.session.cell(id)?.cell.cell_type === 'markdown') this.selection.render(id);
    void (async () => {
      for (const id of ids) {
        if (this.session.cell(id)?.cell.cell_type !== 'code') continue;
        const result = await this.session.runCell(id);
        if (!result || result.status === 'error' || result.status === 'aborted') break;
      }
    })();
    const next = this.selection.cellAt(this.session.indexOf(last) + 1);
    if (then === 'insert' || (then === 'advance' && !next))
      void this.insertAt(this.session.indexOf(last) + 1, 'code', 'edit');
    else if (then === 'advance' && next) this.selection.focus(next, 'command');
  };

  // --- cell operations, each undoable ---------------------------------------------------------

  /**
   * New sources for several cells as one step on the undo stack (find's Replace and Replace All), so Z and
   * the notebook's Undo take it back whole, as JupyterLab does. The handle tells whether it is still the step
   * an undo would take back.
   */
  replaceSources = async (edits: { cellId: string; source: string }[]): Promise<ReplaceStep | null> => {
    let step: ReplaceStep | null = null;
    await this.history.inTurn(async () => {
      const before = edits
        .map((e) => ({ cellId: e.cellId, source: this.session.cell(e.cellId)?.cell.source }))
        .filter((e): e is { cellId: string; source: string } => e.source !== undefined);
      if (!before.length) return;
      const present = (list: { cellId: string; source: string }[]) => list.filter((e) => this.session.cell(e.cellId));
      const edit: CellEdit = {
        redo: () => this.session.replaceSources(present(edits)),
        undo: () => this.session.replaceSources(present(before)),
      };
      await edit.redo();
      this.history.done(edit);
      step = { isLatest: () => this.history.isLatest(edit) };
    });
    return step;
  };

  /**
   * Puts `cell` in place of the cell `replaceId`, or inserts it at `index` when null, as one undoable step (the
   * Timeline's "Restore this cell"). Resolves false when it failed (the failure is told).
   */
  putCell = async (
    cell: NotebookCell,
    at: { replaceId: string | null; index: number; move?: boolean },
  ): Promise<boolean> => {
    let done = false;
    await this.history.attempt(async () => {
      const before = at.replaceId ? this.history.placed([at.replaceId]) : [];
      if (at.replaceId && !before.length) throw new Error('That cell is no longer in the notebook');
      // A move (a proposal's, accepted) goes to its new place in the same step.
      const edit = this.history.swapEdit(before, [
        { cell, index: at.move ? at.index : (before[0]?.index ?? at.index) },
      ]);
      await edit.redo();
      this.history.done(edit);
      done = true;
    });
    return done;
  };

  /** Takes the cell out as one undoable step (an agent's added cell undone, a proposal's deletion accepted). Resolves false when it failed. */
  takeCell = async (cellId: string): Promise<boolean> => {
    let done = false;
    await this.history.attempt(async () => {
      const before = this.history.placed([cellId]);
      if (!before.length) throw new Error('That cell is no longer in the notebook');
      const edit = this.history.swapEdit(before, []);
      await edit.redo();
      this.history.done(edit);
      done = true;
    });
    return done;
  };

  /** Moves the cell (or the selection it is in) up or down by one, as one block (Ctrl+Shift+Up/Down). */
  move = (cellId: string, by: -1 | 1): void => {
    const ids = this.selection.targets(cellId);
    const moving = new Set(ids);
    const cells = this.session.getState().cells;
    const firstIndex = this.session.indexOf(ids[0]);
    const lastIndex = this.session.indexOf(ids[ids.length - 1]);
    if ((by < 0 && firstIndex <= 0) || (by > 0 && lastIndex >= cells.length - 1)) return;
    const others = (end: number) => cells.slice(0, end).filter((c) => !moving.has(c.cell.id)).length;
    const toIndex = others(firstIndex) + by;
    void this.moveTo(ids, toIndex, cellId);
  };

  /** Moves cells as one block to `toIndex` (of the list without them): drag and drop, and the move keys. */
  moveTo = (ids: string[], toIndex: number, activeId = ids[0]): Promise<void> =>
    this.history.attempt(async () => {
      const cells = this.session.getState().cells;
      if (movedBlock(cells, new Set(ids), toIndex).every((c, i) => c === cells[i])) return;
      const before = this.history.placed(ids);
      const contiguous = before.every((p, i) => p.index === before[0].index + i);
      const select = () => this.selection.selectCells(ids, activeId, ids[0]);
      const edit: CellEdit = {
        // The selection follows in the render that shows the move (one render of the list, not two).
        redo: () => this.session.moveCells(ids, toIndex, select),
        undo: async () => {
          // Cells put back at their indexes in ascending order land exactly where they were.
          if (contiguous) await this.session.moveCells(ids, before[0].index, select);
          else for (const { cell, index } of before) await this.session.moveCells([cell.id], index, select);
        },
      };
      await edit.redo();
      this.history.done(edit);
    });

  /** Deletes the cell, or the selection it is in (D D). */
  remove = (cellId: string): void => {
    const ids = this.selection.targets(cellId);
    void this.history.attempt(async () => {
      const removed = await this.session.deleteCells(ids);
      this.history.done(this.history.swapEdit(removed, []));
      this.selection.focusNear(removed[0]?.index ?? 0);
    });
  };

  /** C: the selection onto the cell clipboard (and the system clipboard). */
  copy = (cellId: string): Promise<void> => {
    const cells = this.selection
      .targets(cellId)
      .map((id) => this.session.cell(id)?.cell)
      .filter((c): c is NotebookCell => c !== undefined);
    return cellClipboard.copy(cells).catch(this.options.onError);
  };

  /** X: copy, then delete (undoable). */
  cut = (cellId: string): void => {
    void this.copy(cellId).then(() => this.remove(cellId));
  };

  /** V / Shift+V: the clipboard's cells below (or above) the selection, with new ids; they become the selection. */
  paste = (cellId: string, where: 'above' | 'below'): void => {
    void this.history.attempt(async () => {
      const cells = await cellClipboard.cells();
      if (!cells) return;
      const ids = this.selection.targets(cellId);
      const index = where === 'above' ? this.session.indexOf(ids[0]) : this.session.indexOf(ids[ids.length - 1]) + 1;
      await this.insertCopies(index, cells);
    });
  };

  /** Cells dropped from another notebook: copies at `index`, undoable. */
  pasteAt = (index: number, cells: NotebookCell[]): Promise<void> =>
    this.history.attempt(() => this.insertCopies(index, cells));

  /** Inserts copies of `cells` at `index` (new ids) and selects them. */
  private insertCopies = async (index: number, cells: NotebookCell[]): Promise<void> => {
    const inserted = await this.session.insertCells(Math.max(0, index), cells, false);
    const start = this.session.indexOf(inserted[0].id);
    this.history.done(
      this.history.swapEdit(
        [],
        inserted.map((cell, i) => ({ cell, index: start + i })),
      ),
    );
    const ids = inserted.map((c) => c.id);
    this.selection.selectCells(ids, ids[ids.length - 1], ids[0]);
  };

  /** Shift+M: merges the selection (or the cell with the one below) into one cell. */
  merge = (cellId: string): void => {
    const ids = this.selection.targets(cellId);
    const involved = ids.length > 1 ? ids : [ids[0], this.selection.cellAt(this.session.indexOf(ids[0]) + 1)];
    if (involved.some((id) => !id)) return;
    void this.history.attempt(async () => {
      const before = this.history.placed(involved as string[]);
      const active = this.view.state.activeId ?? undefined;
      const { cell } = await this.session.mergeCells(ids, active && ids.includes(active) ? active : undefined);
      this.history.done(this.history.swapEdit(before, [{ cell, index: this.session.indexOf(cell.id) }]));
      this.selection.focus(cell.id, 'command');
    });
  };

  /** Ctrl+Shift+-: splits the active cell at its cursor (and around a selected range), as JupyterLab does. */
  split = (cellId: string): void => {
    const editor = this.editors.get(cellId);
    const offsets = editor?.cursorOffsets() ?? [];
    if (!offsets.length) return;
    void this.history.attempt(async () => {
      const before = this.history.placed([cellId]);
      const parts = await this.session.splitCell(cellId, offsets);
      const start = this.session.indexOf(parts[0].id);
      this.history.done(
        this.history.swapEdit(
          before,
          parts.map((cell, i) => ({ cell, index: start + i })),
        ),
      );
      this.selection.focus(parts[parts.length - 1].id, 'edit');
    });
  };

  /** An operation that rewrites cells in place (type, heading): undo puts back what they were. */
  private async rewrite(ids: string[], work: (id: string) => Promise<void>): Promise<void> {
    const before = this.history.placed(ids);
    try {
      for (const id of ids) await work(id);
    } finally {
      const after = this.history.placed(ids);
      if (JSON.stringify(before) !== JSON.stringify(after)) this.history.done(this.history.swapEdit(before, after));
    }
  }

  insert = (cellId: string, where: 'above' | 'below'): void => {
    void this.insertAt(this.session.indexOf(cellId) + (where === 'below' ? 1 : 0), 'code', 'command');
  };

  /** A new cell below the selected one (at the end when none is). */
  insertBelowActive = (): void => {
    const index = this.session.indexOf(this.view.state.activeId ?? '');
    void this.insertAt(index >= 0 ? index + 1 : this.session.getState().cells.length, 'code', 'edit');
  };

  insertAt = async (index: number, type: CellType, mode: NotebookMode): Promise<void> => {
    try {
      const id = await this.session.insertCell(index, type);
      this.history.done(this.history.swapEdit([], this.history.placed([id])));
      await this.unfoldSectionsHiding(id);
      if (type === 'markdown') this.selection.unrender(id);
      this.selection.focus(id, mode);
    } catch (err) {
      this.options.onError(err);
    }
  };

  /**
   * A new cell under a folded heading would be invisible with the focus left behind: as JupyterLab does, the
   * sections holding it unfold (written to the headings' metadata, as a click on their collapser would).
   */
  private async unfoldSectionsHiding(cellId: string): Promise<void> {
    const { cells } = this.session.getState();
    const hiding = headingsHiding(
      cells.map((v) => v.cell),
      this.session.indexOf(cellId),
    );
    for (const headingId of hiding) {
      const heading = this.session.cell(headingId);
      if (heading) await this.session.setCellMetadata(headingId, withHeadingCollapsed(heading.cell.metadata, false));
    }
  }

  /** M / Y / R: the cell (or the selection it is in) becomes this type. */
  setType = (cellId: string, type: CellType): void => {
    const ids = this.selection.targets(cellId);
    void this.history.attempt(async () => {
      await this.rewrite(ids, (id) => this.session.setCellType(id, type));
      if (type === 'markdown') for (const id of ids) this.selection.unrender(id);
      if (ids.length > 1) this.selection.selectCells(ids, cellId, this.view.state.anchorId);
      else this.selection.focus(cellId, 'command');
    });
  };

  /** 1–6: the selection becomes markdown headings of that level, rendered. */
  setHeading = (cellId: string, level: number): void => {
    const ids = this.selection.targets(cellId);
    void this.history.attempt(async () => {
      await this.rewrite(ids, async (id) => {
        await this.session.setCellType(id, 'markdown');
        const view = this.session.cell(id);
        if (view) this.session.editSource(id, asHeading(view.cell.source, level));
        await this.session.flushEdits();
      });
      for (const id of ids) this.selection.render(id);
      if (ids.length > 1) this.selection.selectCells(ids, cellId, this.view.state.anchorId);
      else this.selection.focus(cellId, 'command');
    });
  };

  // --- outputs, input and line numbers ------------------------------------------------------------

  clear = (cellId: string): void => {
    for (const id of this.selection.targets(cellId)) void this.session.clearOutputs(id).catch(this.options.onError);
  };

  clearAll = (): void => void this.session.clearOutputs().catch(this.options.onError);

  /** Applies a metadata change to the selection's cells, on or off together as the active cell decides. */
  private toggleMetadata(
    cellId: string,
    isOn: (metadata: NotebookCell['metadata']) => boolean,
    setOn: (metadata: NotebookCell['metadata'], on: boolean) => NotebookCell['metadata'],
    codeOnly: boolean,
  ): void {
    const ids = this.selection
      .targets(cellId)
      .filter((id) => !codeOnly || this.session.cell(id)?.cell.cell_type === 'code');
    const first = this.session.cell(cellId) ?? this.session.cell(ids[0]);
    if (!first || !ids.length) return;
    const on = !isOn(first.cell.metadata);
    void this.history.attempt(async () => {
      for (const id of ids) {
        const view = this.session.cell(id);
        if (view) await this.session.setCellMetadata(id, setOn(view.cell.metadata, on));
      }
    });
  }

  /** O: hides or shows outputs (`jupyter.outputs_hidden`, `collapsed`). */
  toggleOutputs = (cellId: string): void => this.toggleMetadata(cellId, outputsHidden, withOutputsHidden, true);

  /** Shift+O: output scrolling (`scrolled`). */
  toggleOutputScrolling = (cellId: string): void =>
    this.toggleMetadata(cellId, outputsScrolled, withOutputsScrolled, true);

  /** Hides or shows the input (`jupyter.source_hidden`). */
  toggleInput = (cellId: string): void => this.toggleMetadata(cellId, sourceHidden, withSourceHidden, false);

  /** L: line numbers in the selection's editors. */
  toggleLineNumbers = (cellId: string): void => {
    const lineNumbers = new Set(this.view.state.lineNumbers);
    for (const id of this.selection.targets(cellId)) if (!lineNumbers.delete(id)) lineNumbers.add(id);
    this.view.set({ lineNumbers });
  };

  /** Shift+L: line numbers in every cell, or in none. */
  toggleAllLineNumbers = (): void =>
    this.view.set({ allLineNumbers: !this.view.state.allLineNumbers, lineNumbers: new Set() });

  showsLineNumbers = (cellId: string): boolean =>
    this.view.state.allLineNumbers !== this.view.state.lineNumbers.has(cellId);

  // --- the kernel and the file --------------------------------------------------------------------

  interrupt = (): void => void this.session.interrupt();

  restart = (): void => void this.session.restart();

  answer = (cellId: string, value: string): void => void this.session.answerInput(cellId, value);

  /** Saves; `force` writes over a file that changed on disk (the conflict bar's Overwrite). */
  save = async (force = false): Promise<void> => {
    this.view.set({ saving: true });
    try {
      await this.session.save(force);
    } catch (err) {
      this.options.onError(err);
    } finally {
      this.view.set({ saving: false });
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
}
