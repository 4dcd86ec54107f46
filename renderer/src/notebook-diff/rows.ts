import type { NotebookCell, NotebookDiffResult } from '../../../shared/contract';
import type { CellChangeKind, CellDiff } from '../../../shared/notebook-diff';

/*
 * What the notebook diff view draws, worked out from `notebook.diff`'s answer: changed cells one by one, each
 * named as screen readers and tests read it, and runs of unchanged cells folded into one row.
 */

export type DiffRow =
  | { kind: 'unchanged'; key: string; cells: CellDiff[] }
  | { kind: 'change'; key: string; cell: CellDiff; number: number; label: string };

const KIND_WORDS: Record<CellChangeKind, string> = {
  added: 'added',
  deleted: 'deleted',
  moved: 'moved',
  source: 'source changed',
  outputs: 'outputs changed',
  executionCount: 'execution count changed',
  metadata: 'metadata changed',
  cellType: 'type changed',
  other: 'other fields changed',
};

/** The 1-based number a change is known by: its place in the new notebook, the old one for a deletion. */
export function cellNumber(cell: CellDiff): number {
  return (cell.newIndex ?? cell.oldIndex ?? 0) + 1;
}

/** "Cell 3: source changed, outputs changed", "Cell 4: moved from 2", "Cell 2: deleted". */
export function changeLabel(cell: CellDiff): string {
  const words = cell.kinds.map((kind) =>
    kind === 'moved' && cell.oldIndex !== null ? `moved from ${cell.oldIndex + 1}` : KIND_WORDS[kind],
  );
  return `Cell ${cellNumber(cell)}: ${words.join(', ') || 'unchanged'}`;
}

/** The cells in display order: each change its own row, each run of unchanged cells one row. */
export function diffRows(cells: readonly CellDiff[]): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const cell of cells) {
    if (cell.status === 'unchanged') {
      const last = rows[rows.length - 1];
      if (last?.kind === 'unchanged') last.cells.push(cell);
      else rows.push({ kind: 'unchanged', key: `same:${cell.newIndex}`, cells: [cell] });
      continue;
    }
    rows.push({ kind: 'change', key: cell.changeId, cell, number: cellNumber(cell), label: changeLabel(cell) });
  }
  return rows;
}

export type DecisionMode = 'proposal' | 'agent';
export type Decision = 'accepted' | 'rejected';

const DECISION_WORDS = {
  proposal: { accept: 'Accept', reject: 'Reject', accepted: 'Accepted', rejected: 'Rejected' },
  agent: { accept: 'Keep', reject: 'Undo', accepted: 'Kept', rejected: 'Undone' },
} as const;

/**
 * What a change's decision part shows: its two buttons (a proposal's Accept / Reject, an agent's change's
 * Keep / Undo), or, once decided, what was decided (decided stays decided).
 */
export function decisionControls(
  mode: DecisionMode,
  decided: Decision | undefined,
  refused?: ChangeRefusal,
): { buttons: { label: string; decision: Decision; disabledWhy?: string }[]; decided: string | null } {
  const words = DECISION_WORDS[mode];
  if (decided) return { buttons: [], decided: words[decided] };
  return {
    buttons: [
      { label: words.reject, decision: 'rejected', ...(refused ? { disabledWhy: refused.why } : {}) },
      { label: words.accept, decision: 'accepted' },
    ],
    decided: null,
  };
}

/**
 * A change whose Reject (an agent's change: Undo) main refuses as things stand (the operator edited the agent's
 * lines since): `words` is added to its group's name and shown by it, `why` is the disabled button's title.
 */
export interface ChangeRefusal {
  words: string;
  why: string;
}

/** A change's group name with its refusal, if any: "Cell 2: source changed; not undone, edited since". */
export function refusedLabel(label: string, refused: ChangeRefusal | undefined): string {
  return refused ? `${label}; ${refused.words}` : label;
}

/** The buttons above every change: "Reject all" / "Accept all", or "Undo all" / "Keep all". */
export function allControls(mode: DecisionMode): { label: string; decision: Decision }[] {
  const words = DECISION_WORDS[mode];
  return [
    { label: `${words.reject} all`, decision: 'rejected' },
    { label: `${words.accept} all`, decision: 'accepted' },
  ];
}

/** "1 unchanged cell", "12 unchanged cells". */
export function unchangedLabel(count: number): string {
  return `${count} unchanged cell${count === 1 ? '' : 's'}`;
}

/**
 * F7 / Shift+F7: the change to go to from `current` (the index of the change holding focus, -1 for none),
 * wrapping round as VS Code's diff does; null when there is no change.
 */
export function stepChange(current: number, count: number, back: boolean): number | null {
  if (count === 0) return null;
  if (current < 0) return back ? count - 1 : 0;
  return (current + (back ? count - 1 : 1)) % count;
}

/** Where "Restore this cell" puts a cell of the old notebook in the open one, and the cell it puts there. */
export interface CellRestore {
  cell: NotebookCell;
  /** The open notebook's cell it takes the place of; null: it is inserted at `index`. */
  replaceId: string | null;
  index: number;
}

/**
 * How to restore the old side of `change` into the open notebook whose cells (in order) are `openIds`, the
 * notebook the diff's new side was read from. Null when the change has no old cell (an added one). A cell
 * that stays keeps the id it has now (the diff matches it again); a deleted one comes back with its old id
 * unless that is taken, with a fresh one from `freshId` otherwise.
 */
export function cellRestore(
  result: NotebookDiffResult,
  change: CellDiff,
  openIds: readonly string[],
  freshId: () => string,
): CellRestore | null {
  if (change.oldIndex === null) return null;
  const old = result.base[change.oldIndex];
  if (!old) return null;
  let replaceId: string | null = null;
  let index: number;
  if (change.newIndex !== null) {
    replaceId =
      change.newCellId !== null && openIds.includes(change.newCellId) ? change.newCellId : openIds[change.newIndex];
    if (replaceId === undefined) return null;
    index = openIds.indexOf(replaceId);
  } else {
    // A deleted cell returns where the view shows it: after the new notebook's cells shown above it.
    const shownAt = result.diff.cells.indexOf(change);
    index = result.diff.cells.slice(0, shownAt).filter((c) => c.newIndex !== null).length;
  }
  const id = replaceId ?? (old.id !== null && !openIds.includes(old.id) ? old.id : freshId());
  const cell: NotebookCell = {
    id,
    cell_type: old.cell_type,
    source: old.source,
    metadata: old.metadata,
    outputs: old.cell_type === 'code' ? old.outputs : [],
    execution_count: old.cell_type === 'code' ? old.execution_count : null,
  };
  if (old.attachments) cell.attachments = old.attachments;
  if (old.exactNumbers) cell.exactNumbers = old.exactNumbers;
  return { cell, replaceId, index };
}
