import type { NotebookDiffResult, TurnCell, TurnCellAction } from '../../shared/contract';
import type { CellDiff } from '../../shared/notebook-diff';
import { notebookDiffView } from './diff-view';
import type { CellJson } from './format';
import { applyNotebookChanges, diffNotebookTexts } from './partial-apply';

/*
 * An Agent turn's notebook edits reviewed cell by cell, on the one notebook diff. Three notebooks: `base` (before
 * the turn, from local history), `left` (what the turn left) and `current` (the notebook now, with whatever the
 * operator did since). The turn's changes are those of base → left; they are shown and undone as they stand in
 * base → current, so later edits of other cells are neither shown nor touched. Undoing a change is partial apply
 * of current → base with only that change accepted: the base cell comes back whole (its outputs too), byte-exact.
 */

/** What the agent did to a cell: from base → left, and whether the cell it left has run (outputs or a count). */
function actionsOf(change: CellDiff, leftCell: CellJson | undefined): TurnCellAction[] {
  if (change.status === 'deleted') return ['deleted'];
  const actions = new Set<TurnCellAction>();
  if (change.status === 'added') {
    actions.add('added');
    const ran =
      typeof leftCell?.execution_count === 'number' ||
      (Array.isArray(leftCell?.outputs) && leftCell.outputs.length > 0);
    if (ran) actions.add('ran');
    return [...actions];
  }
  for (const kind of change.kinds) {
    if (kind === 'moved') actions.add('moved');
    else if (kind === 'outputs' || kind === 'executionCount') actions.add('ran');
    else actions.add('edited');
  }
  return [...actions].sort((a, b) => ACTION_ORDER.indexOf(a) - ACTION_ORDER.indexOf(b));
}

const ACTION_ORDER: TurnCellAction[] = ['added', 'edited', 'moved', 'deleted', 'ran'];

export interface TurnCellReview {
  /** The turn's cell changes as they stand now (already undone ones are gone), in the notebook's order. */
  cells: TurnCell[];
  /** Whether the turn changed the notebook's own metadata (and that change still stands). */
  notebookChanged: boolean;
  /** base → current, with every change that is not the turn's shown as unchanged (or left out, if deleted). */
  review: Omit<NotebookDiffResult, 'unsaved'>;
}

/** The turn's changes in base → current: those whose change id base → left has too. */
export function turnCellReview(baseText: string, leftText: string, currentText: string): TurnCellReview {
  const byTurn = new Map<string, CellDiff>();
  const left = diffNotebookTexts(baseText, leftText);
  const actions = new Map<string, TurnCellAction[]>();
  for (const change of left.diff.cells) {
    if (change.status === 'unchanged') continue;
    byTurn.set(change.changeId, change);
    actions.set(
      change.changeId,
      actionsOf(change, change.newIndex === null ? undefined : left.next.cells[change.newIndex]),
    );
  }
  const view = notebookDiffView(baseText, currentText);
  const cells: TurnCell[] = [];
  const shown: CellDiff[] = [];
  for (const change of view.diff.cells) {
    const turnChange = change.status !== 'unchanged' ? byTurn.get(change.changeId) : undefined;
    if (turnChange) {
      shown.push(change);
      const index = change.newIndex ?? change.oldIndex ?? 0;
      cells.push({
        changeId: change.changeId,
        cellId: change.newCellId ?? change.oldCellId,
        number: index + 1,
        actions: actions.get(change.changeId) ?? [],
      });
    } else if (change.newIndex !== null) {
      // Not the turn's (the operator's since, or nothing): drawn as it is now, offered no decision.
      const { source: _s, outputs: _o, executionCount: _e, metadata: _m, fields: _f, ...rest } = change;
      shown.push({ ...rest, status: 'unchanged', kinds: [], oldIndex: change.oldIndex ?? null });
    }
  }
  const notebookChanged = left.diff.notebook !== null && view.diff.notebook !== null;
  const changeIds = [...cells.map((cell) => cell.changeId), ...(notebookChanged ? ['notebook'] : [])];
  return {
    cells,
    notebookChanged,
    review: {
      ...view,
      diff: { cells: shown, notebook: notebookChanged ? view.diff.notebook : null, changeIds },
    },
  };
}

/**
 * The notebook with the turn's changes `changeIds` (ids of base → current, as turnCellReview lists them; `all`:
 * every change of the turn still standing) undone, as Jupyter writes it. Everything else stays byte for byte:
 * with nothing else changed since the turn, undoing all gives the base file's bytes back.
 */
export function undoTurnCells(
  baseText: string,
  leftText: string,
  currentText: string,
  changeIds: readonly string[] | 'all',
): string {
  const { cells, notebookChanged } = turnCellReview(baseText, leftText, currentText);
  const standing = new Set([...cells.map((cell) => cell.changeId), ...(notebookChanged ? ['notebook'] : [])]);
  const wanted = changeIds === 'all' ? standing : new Set(changeIds.filter((id) => standing.has(id)));
  if (wanted.size === 0) return currentText;
  // The same changes seen from the other side (current → base): an added cell there is a deleted one here.
  const forward = diffNotebookTexts(baseText, currentText).diff;
  const backward = diffNotebookTexts(currentText, baseText).diff;
  const backwardByOld = new Map<number, string>();
  const backwardByNew = new Map<number, string>();
  for (const change of backward.cells) {
    if (change.oldIndex !== null) backwardByOld.set(change.oldIndex, change.changeId);
    if (change.newIndex !== null) backwardByNew.set(change.newIndex, change.changeId);
  }
  const accepted: string[] = [];
  for (const change of forward.cells) {
    if (!wanted.has(change.changeId)) continue;
    const id = change.newIndex !== null ? backwardByOld.get(change.newIndex) : backwardByNew.get(change.oldIndex!);
    if (id) accepted.push(id);
  }
  if (wanted.has('notebook') && backward.notebook) accepted.push('notebook');
  return applyNotebookChanges(currentText, baseText, accepted);
}
