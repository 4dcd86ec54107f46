import type { NotebookCell, PlacedCell } from '../../../shared/contract';
import { SerialQueue } from '../../../shared/base/serial-queue';
import type { NotebookSelection } from './notebook-selection';
import type { NotebookSession } from './notebook-session';
import type { ViewState } from './notebook-view-state';

/** One cell operation, as undo and redo replay it. */
export interface CellEdit {
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
 * The notebook's cell operations one at a time, and their undo and redo (Z, Shift+Z): a Z pressed while a delete is
 * on its way undoes that delete. What an operation changed is recorded as a `CellEdit`.
 */
export class CellUndo {
  private readonly undoStack: CellEdit[] = [];
  private readonly redoStack: CellEdit[] = [];
  /** Cell operations one at a time: a Z pressed while a delete is on its way undoes that delete. */
  private readonly operations = new SerialQueue();

  constructor(
    private readonly view: ViewState,
    private readonly session: NotebookSession,
    private readonly selection: NotebookSelection,
    /** Where a failed operation is told (a toast). */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Records a done operation; a new one forgets what was undone. */
  done(edit: CellEdit): void {
    this.undoStack.push(edit);
    if (this.undoStack.length > UNDO_DEPTH) this.undoStack.shift();
    this.redoStack.length = 0;
    // Unchanged, the view is not told (each telling re-renders the whole list).
    if (!this.view.state.canUndo || this.view.state.canRedo) this.view.set({ canUndo: true, canRedo: false });
  }

  /** Whether `edit` is the step an undo now would take back. */
  isLatest(edit: CellEdit): boolean {
    return this.undoStack[this.undoStack.length - 1] === edit;
  }

  /** An operation that took `before` out and put `after` in: undo swaps them back, redo again. */
  swapEdit(before: PlacedCell[], after: PlacedCell[]): CellEdit {
    const swap = async (out: PlacedCell[], back: PlacedCell[]) => {
      if (out.length) await this.session.deleteCells(out.map((p) => p.cell.id));
      for (const run of consecutiveRuns(back)) await this.session.insertCells(run.index, run.cells, true);
      const ids = back.map((p) => p.cell.id);
      if (ids.length) this.selection.selectCells(ids, ids[ids.length - 1], ids[0]);
      else this.selection.focusNear(Math.min(...out.map((p) => p.index)));
    };
    return { undo: () => swap(after, before), redo: () => swap(before, after) };
  }

  /** The cells as they are now, with their indexes: what an undo puts back. */
  placed(ids: readonly string[]): PlacedCell[] {
    return ids
      .map((id) => ({ cell: this.session.cell(id)?.cell, index: this.session.indexOf(id) }))
      .filter((p): p is PlacedCell => p.cell !== undefined && p.index >= 0)
      .map((p) => ({ cell: structuredClone(p.cell), index: p.index }))
      .sort((a, b) => a.index - b.index);
  }

  /** Runs a cell operation after the ones before it; a failure is told. */
  attempt(work: () => Promise<void>): Promise<void> {
    return this.operations.run(work).catch(this.onError);
  }

  /** Runs a cell operation after the ones before it; a failure is the caller's. */
  inTurn(work: () => Promise<void>): Promise<void> {
    return this.operations.run(work);
  }

  undo = (): void => {
    void this.attempt(async () => {
      const edit = this.undoStack.pop();
      if (!edit) return;
      this.redoStack.push(edit);
      this.view.set({ canUndo: this.undoStack.length > 0, canRedo: true });
      await edit.undo();
    });
  };

  redo = (): void => {
    void this.attempt(async () => {
      const edit = this.redoStack.pop();
      if (!edit) return;
      this.undoStack.push(edit);
      this.view.set({ canUndo: true, canRedo: this.redoStack.length > 0 });
      await edit.redo();
    });
  };
}
