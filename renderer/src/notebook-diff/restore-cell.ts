import type { KilnBridge, NotebookDiffResult } from '../../../shared/contract';
import type { CellDiff } from '../../../shared/notebook-diff';
import { errorText } from '../base';
import { showsOwningView, type OpenFilesStore } from '../editor';
import { notebookRestoreTarget } from '../notebook-targets';
import { cellRestore } from './rows';

/** An id nbformat takes (letters, digits, - and _), for a restored cell whose own id is in use. */
function freshCellId(): string {
  return crypto.randomUUID().replace(/-/g, '').slice(0, 8);
}

/** Where a restored cell comes from: a version of the notebook in local history. */
export interface CellRestoreSource {
  bridge: KilnBridge;
  files: OpenFilesStore;
  /** The history version's id (the Timeline's selected version). */
  versionId: string;
}

/**
 * Puts the old side of `change` back into the notebook at `path`, wherever it is: open as a notebook, one undoable
 * edit of it (its unsaved edits elsewhere stay); open as text, one undoable edit of the text buffer, which main
 * works out as the bytes Jupyter writes; else (not open, or its view could not open it) written by main as a
 * restore, what it replaces kept in history first.
 * Resolves null when done, else why not.
 */
export async function restoreCellInto(
  path: string,
  result: NotebookDiffResult,
  change: CellDiff,
  source: CellRestoreSource,
): Promise<string | null> {
  const target = notebookRestoreTarget(source.bridge, path);
  if (target) {
    const plan = cellRestore(result, change, target.cellIds(), freshCellId);
    if (!plan) return 'This cell is not in the older version, so there is nothing to restore.';
    return (await target.putCell(plan.cell, plan)) ? null : 'The cell was not restored.';
  }
  if (change.oldIndex === null) return 'This cell is not in the older version, so there is nothing to restore.';
  const { bridge, files, versionId } = source;
  const args = { path, id: versionId, cellIndex: change.oldIndex };
  try {
    const tab = files.get(path);
    // Not open, or open in a notebook view that holds no notebook (one that could not be opened): the file.
    if (!tab || files.isOwned(path) || showsOwningView(path, tab.view)) {
      await bridge.request('history.restoreCell', args);
      return null;
    }
    if (tab.status !== 'ready' || tab.binary || tab.truncated)
      return 'The notebook’s text is not loaded whole, so one cell cannot be put in it.';
    files.flushEdits();
    const buffer = files.get(path)?.buffer ?? '';
    const { text } = await bridge.request('history.restoreCell', { ...args, buffer });
    files.flushEdits();
    // Typed meanwhile: the restore was worked out on text the operator has moved on from.
    if (files.get(path)?.buffer !== buffer) return 'The notebook changed while the cell was restored; try again.';
    files.replaceBuffer(path, text);
    return null;
  } catch (err) {
    return errorText(err, 'The cell was not restored');
  }
}
