import type { CellType, NotebookCell, PlacedCell } from '../../../shared/contract';
import { SerialQueue } from '../../../shared/base/serial-queue';
import { Store } from '../base';
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
import { movedBlock, type NotebookSession } from './notebook-session';
import { headingsHiding, withHeadingCollapsed } from './sections';
import type { CellActions, EditorHandle, EditorKey } from './types';

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
  /** The selected cells (JupyterLab's multi-select); empty means just the active one. */
  selected: ReadonlySet<string>;
  /** Where Shift+J/K and Shift+click extend from. */
  anchorId: string | null;
  /** Cells whose line numbers are flipped from the notebook's setting (L), and that setting (Shift+L). */
  lineNumbers: ReadonlySet<string>;
  allLineNumbers: boolean;
  /** Whether Z / Shift+Z have something to do. */
  canUndo: boolean;
  canRedo: boolean;
}

/** One cell operation, as undo and redo replay it. */
interface CellEdit {
  undo: () => Promise<void>;
  redo: () => Promise<void>;
}

/** A recorded source replacement: whether an undo now would take it back. */
export interface ReplaceStep {
  isLatest: () => boolean;
}

/** How many cell operations Z can take back. */
const UNDO_DEPTH = 100;

/** Placed cells in runs of consecutive indexes, each put back with one request. */
function consecutiveRuns(placed: readonly PlacedCell[]): { index: number; cells: NotebookCell[] }[] {
  const runs: { index: number; cells: NotebookCell[] }[] = [];
  for (const { cell, index } of [...placed].sort((a, b) => a.index - b.index)) {
    const last = runs[runs.length - 1];
    if (last && last.index + last.cells.length === index) last.cells.push(cell);
    else runs.push({ index, cells: [cell] });
  }
  return runs;
}

/**
 * What the notebook view does with the operator's intent: selection and mode, running and advancing,
 * inserting, deleting (with undo), saving. The session holds the document; this holds the view's part,
 * so the keys, the toolbar and each cell drive one object.
 */
export class NotebookController extends Store<NotebookViewState> implements CellActions {
  readonly editors = new Map<string, EditorHandle>();
  readonly cellElements = new Map<string, HTMLDivElement>();
  private readonly undoStack: CellEdit[] = [];
  private readonly redoStack: CellEdit[] = [];
  /** Cell operations one at a time: a Z pressed while a delete is on its way undoes that delete. */
  private readonly operations = new SerialQueue();

  constructor(
    readonly session: NotebookSession,
    private readonly options: {
      /** Where a failed operation is told (a toast). */
      onError: (err: unknown) => void;
      /** The notebook now lives in another file (Save As): its tab goes there too. */
      retarget: (from: string, to: string) => void;
    },
  ) {
    super({
      activeId: null,
      mode: 'command',
      unrendered: new Set(),
      focusTick: 0,
      saving: false,
      selected: new Set(),
      anchorId: null,
      lineNumbers: new Set(),
      allLineNumbers: false,
      canUndo: false,
      canRedo: false,
    });
  }

  /** The first cell is selected once the notebook is there, and selection never points at a deleted cell. */
  keepSelection(): void {
    const { status, cells } = this.session.getState();
    const { activeId, selected } = this.state;
    if (status !== 'ready') return;
    const present = new Set(cells.map((c) => c.cell.id));
    if ([...selected].some((id) => !present.has(id)))
      this.set({ selected: new Set([...selected].filter((id) => present.has(id))) });
    if (activeId && present.has(activeId)) return;
    this.set({ activeId: cells[0]?.cell.id ?? null, selected: new Set(), anchorId: null });
  }

  // --- selection ------------------------------------------------------------------------------

  /** The cells an action applies to, in document order: the selection, or the active cell. */
  selection(): string[] {
    const { selected, activeId } = this.state;
    const ids = this.session
      .getState()
      .cells.filter((c) => selected.has(c.cell.id))
      .map((c) => c.cell.id);
    if (ids.length) return ids;
    return activeId && this.session.cell(activeId) ? [activeId] : [];
  }

  isSelected(cellId: string): boolean {
    return this.state.selected.has(cellId) || (this.state.selected.size === 0 && this.state.activeId === cellId);
  }

  /** The cells between two cells, both included, in document order. */
  private range(fromId: string, toId: string): string[] {
    const a = this.session.indexOf(fromId);
    const b = this.session.indexOf(toId);
    if (a < 0 || b < 0) return [toId];
    const cells = this.session.getState().cells;
    return cells.slice(Math.min(a, b), Math.max(a, b) + 1).map((c) => c.cell.id);
  }

  /** Shift+J/K, Shift+Up/Down: the selection grows (or shrinks back) from its anchor, command mode. */
  extendBy = (by: -1 | 1): void => {
    const { activeId } = this.state;
    if (!activeId) return;
    const anchor = this.state.anchorId ?? activeId;
    const next = this.cellAt(this.session.indexOf(activeId) + by);
    if (!next) return;
    this.selectCells(this.range(anchor, next), next, anchor);
  };

  /** Ctrl/Cmd+A in command mode. */
  selectAll = (): void => {
    const ids = this.session.getState().cells.map((c) => c.cell.id);
    if (ids.length) this.selectCells(ids, this.state.activeId ?? ids[0], ids[0]);
  };

  /** A click on a cell's chrome: Shift extends from the anchor, Ctrl/Cmd toggles, a plain click selects it alone. */
  pointerSelect = (cellId: string, how: { extend: boolean; toggle: boolean }): void => {
    const { activeId } = this.state;
    if (how.extend && activeId) {
      const anchor = this.state.anchorId ?? activeId;
      this.selectCells(this.range(anchor, cellId), cellId, anchor);
    } else if (how.toggle && activeId) {
      const selected = new Set(this.selection());
      if (selected.has(cellId) && selected.size > 1) {
        selected.delete(cellId);
        const ids = this.selection().filter((id) => selected.has(id));
        this.selectCells(ids, cellId === activeId ? ids[ids.length - 1] : activeId, this.state.anchorId);
      } else {
        selected.add(cellId);
        this.selectCells([...selected], cellId, cellId);
      }
    } else if (activeId !== cellId || this.state.selected.size > 1) {
      this.focus(cellId, 'command');
    }
  };

  /** Selects `ids` with `activeId` the active one, in command mode, focus on it. */
  selectCells(ids: readonly string[], activeId: string, anchorId: string | null = activeId): void {
    this.set({
      selected: ids.length > 1 ? new Set(ids) : new Set(),
      activeId,
      anchorId,
      mode: 'command',
      focusTick: this.state.focusTick + 1,
    });
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
    this.set({ activeId: cellId, mode, focusTick: this.state.focusTick + 1, selected: new Set(), anchorId: null });
  };

  /** A click or focus inside a cell: it becomes the active one without stealing focus back. */
  select = (cellId: string, mode: NotebookMode): void => {
    if (this.state.activeId === cellId && this.state.mode === mode) return;
    if (mode !== 'edit') return this.focus(cellId, 'command');
    this.set({ activeId: cellId, mode: 'edit', selected: new Set(), anchorId: null });
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

  /** The selection when `cellId` is part of it, else that cell alone (a cell's own button or menu). */
  private targets(cellId: string): string[] {
    const selection = this.selection();
    return selection.includes(cellId) ? selection : [cellId];
  }

  /** Runs the selected cells in order, stopping at the first error, then moves below the last (Shift+Enter). */
  runSelection = (then: 'stay' | 'advance' | 'insert'): void => {
    const ids = this.selection();
    if (ids.length <= 1) {
      if (ids[0]) this.run(ids[0], then);
      return;
    }
    const last = ids[ids.length - 1];
    for (const id of ids) if (this.session.cell(id)?.cell.cell_type === 'markdown') this.render(id);
    void (async () => {
      for (const id of ids) {
        if (this.session.cell(id)?.cell.cell_type !== 'code') continue;
        const result = await this.session.runCell(id);
        if (!result || result.status === 'error' || result.status === 'aborted') break;
      }
    })();
    const next = this.cellAt(this.session.indexOf(last) + 1);
    if (then === 'insert' || (then === 'advance' && !next))
      void this.insertAt(this.session.indexOf(last) + 1, 'code', 'edit');
    else if (then === 'advance' && next) this.focus(next, 'command');
  };

  // --- cell operations, each undoable ---------------------------------------------------------

  /** Records a done operation; a new one forgets what was undone. */
  private done(edit: CellEdit): void {
    this.undoStack.push(edit);
    if (this.undoStack.length > UNDO_DEPTH) this.undoStack.shift();
    this.redoStack.length = 0;
    // Unchanged, the view is not told (each telling re-renders the whole list).
    if (!this.state.canUndo || this.state.canRedo) this.set({ canUndo: true, canRedo: false });
  }

  /** An operation that took `before` out and put `after` in: undo swaps them back, redo again. */
  private swapEdit(before: PlacedCell[], after: PlacedCell[]): CellEdit {
    const swap = async (out: PlacedCell[], back: PlacedCell[]) => {
      if (out.length) await this.session.deleteCells(out.map((p) => p.cell.id));
      for (const run of consecutiveRuns(back)) await this.session.insertCells(run.index, run.cells, true);
      const ids = back.map((p) => p.cell.id);
      if (ids.length) this.selectCells(ids, ids[ids.length - 1], ids[0]);
      else this.focusNear(Math.min(...out.map((p) => p.index)));
    };
    return { undo: () => swap(after, before), redo: () => swap(before, after) };
  }

  /** Selects the cell now at `index` (or the last), after the cells there went away. */
  private focusNear(index: number): void {
    const { cells } = this.session.getState();
    this.focus(cells[Math.min(index, cells.length - 1)]?.cell.id ?? null, 'command');
  }

  /** The cells as they are now, with their indexes: what an undo puts back. */
  private placed(ids: readonly string[]): PlacedCell[] {
    return ids
      .map((id) => ({ cell: this.session.cell(id)?.cell, index: this.session.indexOf(id) }))
      .filter((p): p is PlacedCell => p.cell !== undefined && p.index >= 0)
      .map((p) => ({ cell: structuredClone(p.cell), index: p.index }))
      .sort((a, b) => a.index - b.index);
  }

  /** Runs a cell operation after the ones before it; a failure is told. */
  private attempt(work: () => Promise<void>): Promise<void> {
    return this.operations.run(work).catch(this.options.onError);
  }

  undo = (): void => {
    void this.attempt(async () => {
      const edit = this.undoStack.pop();
      if (!edit) return;
      this.redoStack.push(edit);
      this.set({ canUndo: this.undoStack.length > 0, canRedo: true });
      await edit.undo();
    });
  };

  redo = (): void => {
    void this.attempt(async () => {
      const edit = this.redoStack.pop();
      if (!edit) return;
      this.undoStack.push(edit);
      this.set({ canUndo: true, canRedo: this.redoStack.length > 0 });
      await edit.redo();
    });
  };

  /**
   * New sources for several cells as one step on the undo stack (find's Replace and Replace All), so Z and
   * the notebook's Undo take it back whole, as JupyterLab does. The handle tells whether it is still the step
   * an undo would take back.
   */
  replaceSources = async (edits: { cellId: string; source: string }[]): Promise<ReplaceStep | null> => {
    let step: ReplaceStep | null = null;
    await this.operations.run(async () => {
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
      this.done(edit);
      step = { isLatest: () => this.undoStack[this.undoStack.length - 1] === edit };
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
    await this.attempt(async () => {
      const before = at.replaceId ? this.placed([at.replaceId]) : [];
      if (at.replaceId && !before.length) throw new Error('That cell is no longer in the notebook');
      // A move (a proposal's, accepted) goes to its new place in the same step.
      const edit = this.swapEdit(before, [{ cell, index: at.move ? at.index : (before[0]?.index ?? at.index) }]);
      await edit.redo();
      this.done(edit);
      done = true;
    });
    return done;
  };

  /** Takes the cell out as one undoable step (an agent's added cell undone, a proposal's deletion accepted). Resolves false when it failed. */
  takeCell = async (cellId: string): Promise<boolean> => {
    let done = false;
    await this.attempt(async () => {
      const before = this.placed([cellId]);
      if (!before.length) throw new Error('That cell is no longer in the notebook');
      const edit = this.swapEdit(before, []);
      await edit.redo();
      this.done(edit);
      done = true;
    });
    return done;
  };

  /** Moves the cell (or the selection it is in) up or down by one, as one block (Ctrl+Shift+Up/Down). */
  move = (cellId: string, by: -1 | 1): void => {
    const ids = this.targets(cellId);
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
    this.attempt(async () => {
      const cells = this.session.getState().cells;
      if (movedBlock(cells, new Set(ids), toIndex).every((c, i) => c === cells[i])) return;
      const before = this.placed(ids);
      const contiguous = before.every((p, i) => p.index === before[0].index + i);
      const select = () => this.selectCells(ids, activeId, ids[0]);
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
      this.done(edit);
    });

  /** Deletes the cell, or the selection it is in (D D). */
  remove = (cellId: string): void => {
    const ids = this.targets(cellId);
    void this.attempt(async () => {
      const removed = await this.session.deleteCells(ids);
      this.done(this.swapEdit(removed, []));
      this.focusNear(removed[0]?.index ?? 0);
    });
  };

  /** C: the selection onto the cell clipboard (and the system clipboard). */
  copy = (cellId: string): Promise<void> => {
    const cells = this.targets(cellId)
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
    void this.attempt(async () => {
      const cells = await cellClipboard.cells();
      if (!cells) return;
      const ids = this.targets(cellId);
      const index = where === 'above' ? this.session.indexOf(ids[0]) : this.session.indexOf(ids[ids.length - 1]) + 1;
      await this.insertCopies(index, cells);
    });
  };

  /** Cells dropped from another notebook: copies at `index`, undoable. */
  pasteAt = (index: number, cells: NotebookCell[]): Promise<void> =>
    this.attempt(() => this.insertCopies(index, cells));

  /** Inserts copies of `cells` at `index` (new ids) and selects them. */
  private insertCopies = async (index: number, cells: NotebookCell[]): Promise<void> => {
    const inserted = await this.session.insertCells(Math.max(0, index), cells, false);
    const start = this.session.indexOf(inserted[0].id);
    this.done(
      this.swapEdit(
        [],
        inserted.map((cell, i) => ({ cell, index: start + i })),
      ),
    );
    const ids = inserted.map((c) => c.id);
    this.selectCells(ids, ids[ids.length - 1], ids[0]);
  };

  /** Shift+M: merges the selection (or the cell with the one below) into one cell. */
  merge = (cellId: string): void => {
    const ids = this.targets(cellId);
    const involved = ids.length > 1 ? ids : [ids[0], this.cellAt(this.session.indexOf(ids[0]) + 1)];
    if (involved.some((id) => !id)) return;
    void this.attempt(async () => {
      const before = this.placed(involved as string[]);
      const active = this.state.activeId ?? undefined;
      const { cell } = await this.session.mergeCells(ids, active && ids.includes(active) ? active : undefined);
      this.done(this.swapEdit(before, [{ cell, index: this.session.indexOf(cell.id) }]));
      this.focus(cell.id, 'command');
    });
  };

  /** Ctrl+Shift+-: splits the active cell at its cursor (and around a selected range), as JupyterLab does. */
  split = (cellId: string): void => {
    const editor = this.editors.get(cellId);
    const offsets = editor?.cursorOffsets() ?? [];
    if (!offsets.length) return;
    void this.attempt(async () => {
      const before = this.placed([cellId]);
      const parts = await this.session.splitCell(cellId, offsets);
      const start = this.session.indexOf(parts[0].id);
      this.done(
        this.swapEdit(
          before,
          parts.map((cell, i) => ({ cell, index: start + i })),
        ),
      );
      this.focus(parts[parts.length - 1].id, 'edit');
    });
  };

  /** An operation that rewrites cells in place (type, heading): undo puts back what they were. */
  private async rewrite(ids: string[], work: (id: string) => Promise<void>): Promise<void> {
    const before = this.placed(ids);
    try {
      for (const id of ids) await work(id);
    } finally {
      const after = this.placed(ids);
      if (JSON.stringify(before) !== JSON.stringify(after)) this.done(this.swapEdit(before, after));
    }
  }

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
      this.done(this.swapEdit([], this.placed([id])));
      await this.unfoldSectionsHiding(id);
      if (type === 'markdown') this.unrender(id);
      this.focus(id, mode);
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
    const ids = this.targets(cellId);
    void this.attempt(async () => {
      await this.rewrite(ids, (id) => this.session.setCellType(id, type));
      if (type === 'markdown') for (const id of ids) this.unrender(id);
      if (ids.length > 1) this.selectCells(ids, cellId, this.state.anchorId);
      else this.focus(cellId, 'command');
    });
  };

  /** 1–6: the selection becomes markdown headings of that level, rendered. */
  setHeading = (cellId: string, level: number): void => {
    const ids = this.targets(cellId);
    void this.attempt(async () => {
      await this.rewrite(ids, async (id) => {
        await this.session.setCellType(id, 'markdown');
        const view = this.session.cell(id);
        if (view) this.session.editSource(id, asHeading(view.cell.source, level));
        await this.session.flushEdits();
      });
      for (const id of ids) this.render(id);
      if (ids.length > 1) this.selectCells(ids, cellId, this.state.anchorId);
      else this.focus(cellId, 'command');
    });
  };

  clear = (cellId: string): void => {
    for (const id of this.targets(cellId)) void this.session.clearOutputs(id).catch(this.options.onError);
  };

  clearAll = (): void => void this.session.clearOutputs().catch(this.options.onError);

  /** Applies a metadata change to the selection's cells, on or off together as the active cell decides. */
  private toggleMetadata(
    cellId: string,
    isOn: (metadata: NotebookCell['metadata']) => boolean,
    setOn: (metadata: NotebookCell['metadata'], on: boolean) => NotebookCell['metadata'],
    codeOnly: boolean,
  ): void {
    const ids = this.targets(cellId).filter((id) => !codeOnly || this.session.cell(id)?.cell.cell_type === 'code');
    const first = this.session.cell(cellId) ?? this.session.cell(ids[0]);
    if (!first || !ids.length) return;
    const on = !isOn(first.cell.metadata);
    void this.attempt(async () => {
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
    const lineNumbers = new Set(this.state.lineNumbers);
    for (const id of this.targets(cellId)) if (!lineNumbers.delete(id)) lineNumbers.add(id);
    this.set({ lineNumbers });
  };

  /** Shift+L: line numbers in every cell, or in none. */
  toggleAllLineNumbers = (): void => this.set({ allLineNumbers: !this.state.allLineNumbers, lineNumbers: new Set() });

  showsLineNumbers(cellId: string): boolean {
    return this.state.allLineNumbers !== this.state.lineNumbers.has(cellId);
  }

  interrupt = (): void => void this.session.interrupt();

  restart = (): void => void this.session.restart();

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
