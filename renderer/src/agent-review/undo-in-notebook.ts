import type { KilnBridge, NotebookDiffCell, NotebookDiffResult, TurnNotebook } from '../../../shared/contract';
import { cellRestore } from '../notebook-diff';
import { notebookRestoreTarget, type NotebookRestoreTarget } from '../notebook-targets';

/** An id nbformat takes (letters, digits, - and _), for a restored cell whose own id is in use. */
function freshCellId(): string {
  return crypto.randomUUID().replace(/-/g, '').slice(0, 8);
}

/**
 * Undoes an agent's cell changes in the open notebook, each one step of its undo: an edited or deleted cell comes
 * back whole as it was before the turn (its outputs then too), or as main's three-way undo of it when the operator
 * edited or ran it since; an added one goes. Bottom-up, so the places the
 * review gives for the cells above stay true. Resolves null when done, else why not.
 */
export async function undoInOpenNotebook(
  target: NotebookRestoreTarget,
  answer: { review: NotebookDiffResult; undoAs: Record<string, NotebookDiffCell> },
  changeIds: readonly string[],
): Promise<string | null> {
  const wanted = new Set(changeIds);
  // A cell the operator edited or ran since the turn goes back three-way (main's cell), not as before the turn.
  const base = [...answer.review.base];
  for (const change of answer.review.diff.cells) {
    const instead = wanted.has(change.changeId) ? answer.undoAs[change.changeId] : undefined;
    if (instead && change.oldIndex !== null) base[change.oldIndex] = instead;
  }
  const review = { ...answer.review, base };
  const changes = review.diff.cells.filter((cell) => wanted.has(cell.changeId)).reverse();
  for (const change of changes) {
    if (change.status === 'added') {
      const id = change.newCellId ?? (change.newIndex !== null ? target.cellIds()[change.newIndex] : undefined);
      if (!id || !(await target.takeCell(id))) return 'The cell the agent added was not taken out.';
      continue;
    }
    const plan = cellRestore(review, change, target.cellIds(), freshCellId);
    if (!plan) return 'That cell is not in the notebook as it was before the turn.';
    if (!(await target.putCell(plan.cell, plan))) return 'The cell was not put back.';
  }
  return null;
}

/**
 * "Undo this turn" for the notebooks the turn changed in the open notebook, unsaved (main does not write over the
 * operator's unsaved edits): every cell of the turn still standing undone in the open notebook, as the review's Undo
 * all does, and recorded undone. A cell whose undo would lose the operator's later edit stays (main's undo then
 * says so). Answers main's notebooks after, for the turn's list.
 */
export async function undoTurnInOpenNotebooks(
  bridge: KilnBridge,
  turn: string,
  notebooks: readonly TurnNotebook[],
): Promise<TurnNotebook[]> {
  const done: TurnNotebook[] = [];
  for (const notebook of notebooks) {
    const target = notebook.unsaved === 'open' ? notebookRestoreTarget(bridge, notebook.path) : null;
    if (!target) continue;
    await target.flushEdits();
    const answer = await bridge.request('history.turnNotebookReview', { turn, path: notebook.path });
    const changeIds = answer.notebook.cells.filter((cell) => !cell.undoRefused).map((cell) => cell.changeId);
    if (changeIds.length === 0) continue;
    const why = await undoInOpenNotebook(target, answer, changeIds);
    if (why) throw new Error(`${notebook.path}: ${why}`);
    done.push(
      await bridge.request('history.decideTurnCells', { turn, path: notebook.path, changeIds, decision: 'undone' }),
    );
  }
  return done;
}
