import type { NotebookDiffResult, TurnCell, TurnCellAction } from '../../shared/contract';
import type { CellDiff, NotebookDiff } from '../../shared/notebook-diff';
import { sameJson } from '../../shared/notebook-diff/values';
import { editedSince, undoCellChange } from './cell-undo';
import { exactNumberText } from './exact-json';
import { notebookDiffViewOf } from './diff-view';
import type { CellJson } from './format';
import { applyNotebookChanges, diffNotebookTexts, type ParsedPair } from './partial-apply';

/*
 * An Agent turn's notebook edits reviewed cell by cell, on the one notebook diff. Three notebooks: `base` (before
 * the turn, from local history), `left` (what the turn left) and `current` (the notebook now, with whatever the
 * operator did since). The turn's changes are those of base → left; they are shown and undone as they stand in
 * base → current, so later edits of other cells are neither shown nor touched. Undoing a change is partial apply
 * of current → base with only that change accepted: the base cell comes back whole (its outputs too), byte-exact,
 * or, when the operator edited or ran that cell since, the three-way cell of cell-undo.ts.
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
  /**
   * For a change the operator edited or ran since the turn: the cell Undo puts in its place (three-way, see
   * cell-undo.ts) instead of the cell before the turn. Absent for a change whose undo is refused.
   */
  undoAs: Map<string, CellJson>;
  /**
   * Each listed change's id in base → left (the turn's own diff): unlike its id now, it stays when a save gives a
   * nbformat 4.4 notebook's cells ids (an added cell's `added:n3` becomes `added:<id>` in base → current).
   */
  turnChangeIds: Map<string, string>;
}

/** The turn's change a change of base → current is: same base cell and status, or the same added cell. */
function turnChangesNow(
  left: ParsedPair & { diff: NotebookDiff },
  now: ParsedPair & { diff: NotebookDiff },
  leftText: string,
  currentText: string,
): Map<CellDiff, CellDiff> {
  const byOld = new Map<number, CellDiff>();
  const addedById = new Map<string, CellDiff>();
  const addedByIndex = new Map<number, CellDiff>();
  for (const change of left.diff.cells) {
    if (change.status === 'unchanged') continue;
    if (change.oldIndex !== null) byOld.set(change.oldIndex, change);
    else if (change.newCellId !== null) addedById.set(change.newCellId, change);
    else if (change.newIndex !== null) addedByIndex.set(change.newIndex, change);
  }
  // Cells without ids (nbformat 4.4) the turn added: found now by matching what the turn left with now.
  let leftToNow: Map<number, number> | null = null;
  const nowIndexOf = (leftIndex: number) => {
    if (!leftToNow) {
      leftToNow = new Map();
      for (const change of diffNotebookTexts(leftText, currentText).diff.cells)
        if (change.oldIndex !== null && change.newIndex !== null) leftToNow.set(change.oldIndex, change.newIndex);
    }
    return leftToNow.get(leftIndex);
  };
  const found = new Map<CellDiff, CellDiff>();
  const addedNow = new Map<number, CellDiff>();
  for (const [leftIndex, change] of addedByIndex) {
    const at = nowIndexOf(leftIndex);
    if (at !== undefined) addedNow.set(at, change);
  }
  for (const change of now.diff.cells) {
    if (change.status === 'unchanged') continue;
    let turnChange: CellDiff | undefined;
    if (change.oldIndex !== null) {
      turnChange = byOld.get(change.oldIndex);
      if (turnChange && turnChange.status !== change.status) turnChange = undefined;
    } else if (change.newIndex !== null) {
      turnChange =
        (change.newCellId !== null ? addedById.get(change.newCellId) : undefined) ?? addedNow.get(change.newIndex);
    }
    if (turnChange) found.set(change, turnChange);
  }
  return found;
}

/** Undo of one of the turn's changes to a cell the operator may have edited or run since: see cell-undo.ts. */
function undoOf(
  change: CellDiff,
  turnChange: CellDiff,
  left: ParsedPair,
  now: ParsedPair,
): { cell: CellJson } | { refused: string } | null {
  if (change.newIndex === null || turnChange.newIndex === null) return null;
  const leftCell = left.next.cells[turnChange.newIndex];
  const current = now.next.cells[change.newIndex];
  if (change.status === 'added')
    return editedSince(leftCell, current) ? { refused: 'you edited it since the agent added it' } : null;
  const base = now.base.cells[change.oldIndex!];
  const undone = undoCellChange(base, leftCell, current);
  return 'cell' in undone && undone.cell === base ? null : undone;
}

/** The turn's changes in base → current: those that are, cell for cell, changes of base → left too. */
export function turnCellReview(baseText: string, leftText: string, currentText: string): TurnCellReview {
  const left = diffNotebookTexts(baseText, leftText);
  const now = diffNotebookTexts(baseText, currentText);
  const byTurn = turnChangesNow(left, now, leftText, currentText);
  const view = notebookDiffViewOf(now);
  const cells: TurnCell[] = [];
  const shown: CellDiff[] = [];
  const undoAs = new Map<string, CellJson>();
  const turnChangeIds = new Map<string, string>();
  for (const change of view.diff.cells) {
    const turnChange = byTurn.get(change);
    const undo = turnChange ? undoOf(change, turnChange, left, now) : null;
    // Undone three-way already (the operator's edits are all that differ now): no longer the turn's change.
    const gone =
      undo !== null &&
      'cell' in undo &&
      change.newIndex !== null &&
      sameJson(undo.cell, now.next.cells[change.newIndex], exactNumberText);
    if (turnChange && !gone) {
      shown.push(change);
      const index = change.newIndex ?? change.oldIndex ?? 0;
      if (undo && 'cell' in undo) undoAs.set(change.changeId, undo.cell);
      turnChangeIds.set(change.changeId, turnChange.changeId);
      cells.push({
        changeId: change.changeId,
        cellId: change.newCellId ?? change.oldCellId,
        number: index + 1,
        actions: actionsOf(turnChange, turnChange.newIndex === null ? undefined : left.next.cells[turnChange.newIndex]),
        ...(undo && 'refused' in undo ? { undoRefused: undo.refused } : {}),
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
    undoAs,
    turnChangeIds,
    review: {
      ...view,
      diff: { cells: shown, notebook: notebookChanged ? view.diff.notebook : null, changeIds },
    },
  };
}

/**
 * The notebook with the turn's changes `changeIds` (ids of base → current, as turnCellReview lists them; `all`:
 * every change of the turn still standing) undone, as Jupyter writes it. Everything else stays byte for byte:
 * with nothing else changed since the turn, undoing all gives the base file's bytes back. A cell the operator
 * edited since is undone three-way (their edits stay); one whose undo would lose their edit is left as it is and
 * listed in `refused`, with why.
 */
export function undoTurnCells(
  baseText: string,
  leftText: string,
  currentText: string,
  changeIds: readonly string[] | 'all',
): { text: string; refused: TurnCell[] } {
  const { cells, notebookChanged, undoAs } = turnCellReview(baseText, leftText, currentText);
  const standing = new Set([...cells.map((cell) => cell.changeId), ...(notebookChanged ? ['notebook'] : [])]);
  const wanted = changeIds === 'all' ? standing : new Set(changeIds.filter((id) => standing.has(id)));
  const refused = cells.filter((cell) => wanted.has(cell.changeId) && cell.undoRefused);
  for (const cell of refused) wanted.delete(cell.changeId);
  if (wanted.size === 0) return { text: currentText, refused };
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
  // Base cells (the backward diff's new side, by index) put back three-way rather than whole.
  const instead = new Map<number, CellJson>();
  for (const change of forward.cells) {
    if (!wanted.has(change.changeId)) continue;
    const id = change.newIndex !== null ? backwardByOld.get(change.newIndex) : backwardByNew.get(change.oldIndex!);
    if (id) accepted.push(id);
    const cell = undoAs.get(change.changeId);
    if (cell && change.oldIndex !== null) instead.set(change.oldIndex, cell);
  }
  if (wanted.has('notebook') && backward.notebook) accepted.push('notebook');
  return { text: applyNotebookChanges(currentText, baseText, accepted, {}, instead), refused };
}

/** One verb's change to a notebook: its bytes before and after (as a save writes them). */
export interface NotebookStep {
  before: string;
  after: string;
}

/**
 * The two sides of a turn's review from its changes verb by verb (oldest first), when the operator may have edited
 * the notebook between them: `left` is after the last verb, `base` is `left` with each verb's change undone
 * three-way, newest first. The operator's edits between verbs are then on both sides, never counted as the turn's.
 * A cell the operator edited on lines a verb changed keeps that verb's change in `base` (its undo is refused):
 * that change is not listed rather than the operator's edit counted as the agent's.
 */
export function sidesOfSteps(steps: readonly NotebookStep[]): { base: string; left: string } {
  const left = steps.at(-1)!.after;
  let base = left;
  for (let i = steps.length - 1; i >= 0; i--) {
    const { before, after } = steps[i];
    // As the verb left it (nothing of the operator's since), or a file the turn created: its before is the base.
    if (base === after || before === '') base = before;
    else base = undoTurnCells(before, after, base, 'all').text;
  }
  return { base, left };
}
