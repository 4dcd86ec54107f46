import type { KilnBridge, NotebookCell } from '../../../shared/contract';
import { perBridge } from '../base';

/*
 * Open notebooks as places a cell from elsewhere (an older version in the Timeline, an Edit assistant proposal
 * accepted into the open notebook) is put back or taken out: through the
 * notebook's own edit path, so it is one step of its undo and makes it dirty like any edit, and nothing the
 * operator typed is overwritten. Registered by each notebook view while it is open, in its window's set: a
 * restore in one window never reaches a notebook open in another.
 */

export interface NotebookRestoreTarget {
  /** The notebook's path now (it follows moves). */
  path(): string;
  /** Whether it shows a notebook (not one still opening, nor one it could not open, which the file stands for). */
  holdsNotebook(): boolean;
  /** Its cells' ids in order. */
  cellIds(): string[];
  /**
   * Puts `cell` in place of the cell `replaceId`, or inserts it at `index` when null (or, with `move`, takes
   * `replaceId` out and puts `cell` at `index`): one undoable step.
   * Resolves false when it failed (the notebook has told why).
   */
  putCell(cell: NotebookCell, at: { replaceId: string | null; index: number; move?: boolean }): Promise<boolean>;
  /** Takes the cell out (an agent's added cell undone, a proposal's deletion accepted): one undoable step. Resolves false when it failed. */
  takeCell(cellId: string): Promise<boolean>;
  /** Sends typed-but-unsent source edits to main, so what main holds is what the operator sees. */
  flushEdits(): Promise<void>;
}

const targetsOf = perBridge(() => new Set<NotebookRestoreTarget>());

/** Offers an open notebook of the window for restores. Returns what withdraws it. */
export function registerNotebookRestoreTarget(bridge: KilnBridge, target: NotebookRestoreTarget): () => void {
  const targets = targetsOf.of(bridge);
  targets.add(target);
  return () => void targets.delete(target);
}

/** The window's open notebook at `path` that holds its notebook, if any. */
export function notebookRestoreTarget(bridge: KilnBridge, path: string): NotebookRestoreTarget | null {
  for (const target of targetsOf.of(bridge)) if (target.path() === path && target.holdsNotebook()) return target;
  return null;
}
