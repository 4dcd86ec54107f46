import type { NotebookDiffResult } from '../../../shared/contract';
import type { CellDiff } from '../../../shared/notebook-diff';
import { notebookRestoreTarget } from './restore-targets';
import { cellRestore } from './rows';

/** An id nbformat takes (letters, digits, - and _), for a restored cell whose own id is in use. */
function freshCellId(): string {
  return crypto.randomUUID().replace(/-/g, '').slice(0, 8);
}

/**
 * Puts the old side of `change` back into the open notebook at `path` as one undoable edit (its unsaved edits
 * elsewhere stay). Resolves null when done, else why not.
 */
export async function restoreCellInto(
  path: string,
  result: NotebookDiffResult,
  change: CellDiff,
): Promise<string | null> {
  const target = notebookRestoreTarget(path);
  if (!target)
    return 'Open the notebook (as a notebook, not as text) to restore one cell; Restore takes the whole version.';
  const plan = cellRestore(result, change, target.cellIds(), freshCellId);
  if (!plan) return 'This cell is not in the older version, so there is nothing to restore.';
  return (await target.putCell(plan.cell, plan)) ? null : 'The cell was not restored.';
}
