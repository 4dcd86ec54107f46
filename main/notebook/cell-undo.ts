import { diffArrays } from 'diff';
import { sameJson } from '../../shared/notebook-diff/values';
import { exactNumberText, keepExactNumber, carryExactNumbers } from './exact-json';
import { joinLines, type CellJson } from './format';

/*
 * Undoing an agent's change to one cell the operator edited since the turn: a three-way operation on that cell,
 * base (before the turn), left (what the turn wrote) and current (now). The agent's change (left → base) is
 * applied to current, so the operator's later edits stay; where the two touch the same lines the undo is refused
 * for that cell, never guessed. Outputs: those before the turn come back only while the cell still has the
 * outputs the turn left (the operator has not run it since); once the operator ran it, their outputs stay.
 */

/** What undoing the agent's change to a cell gives: the cell to put in its place, or why it is refused. */
export type CellUndo = { cell: CellJson } | { refused: string };

/** A run of `from`'s lines [start, end) replaced by `lines`. */
interface LineEdit {
  start: number;
  end: number;
  lines: string[];
}

function editsOf(from: string[], to: string[]): LineEdit[] {
  const edits: LineEdit[] = [];
  let at = 0;
  let open: LineEdit | null = null;
  for (const part of diffArrays(from, to)) {
    if (!part.added && !part.removed) {
      open = null;
      at += part.value.length;
      continue;
    }
    if (!open) edits.push((open = { start: at, end: at, lines: [] }));
    if (part.removed) open.end = at += part.value.length;
    else open.lines.push(...part.value);
  }
  return edits;
}

/**
 * `current` with the lines the agent changed (base → left) put back as they were in `base`, every line the
 * operator changed since (left → current) kept. Null when an edit of each touches or meets the same lines of
 * `left` (as git's merge, adjacent edits count): which one to keep is the operator's call.
 */
export function revertAgentLines(base: string, left: string, current: string): string | null {
  if (current === left) return base;
  if (base === left) return current;
  // Lines split on \n alone: the last one (no newline after it) is a line too, so joining gives the text back.
  const leftLines = left.split('\n');
  const mine = editsOf(leftLines, current.split('\n'));
  // An edit the operator made the same way (the agent's lines already put back) is no overlap: it is there.
  const sameEdit = (u: LineEdit) =>
    mine.some((m) => m.start === u.start && m.end === u.end && m.lines.join('\n') === u.lines.join('\n'));
  const undo = editsOf(leftLines, base.split('\n')).filter((u) => !sameEdit(u));
  for (const u of undo) for (const m of mine) if (u.start <= m.end && m.start <= u.end) return null;
  const out: string[] = [];
  let at = 0;
  for (const edit of [...undo, ...mine].sort((x, y) => x.start - y.start || x.end - y.end)) {
    out.push(...leftLines.slice(at, edit.start), ...edit.lines);
    at = edit.end;
  }
  out.push(...leftLines.slice(at));
  return out.join('\n');
}

const same = (a: unknown, b: unknown, holderA: object, holderB: object, key: string) =>
  sameJson(a, b, exactNumberText, holderA, holderB, key);

/** A cell's field as a three-way undo takes it: before the turn's where now is what the turn left, else now's. */
function undoneField(base: CellJson, left: CellJson, current: CellJson, key: string, into: CellJson): void {
  const from = same(current[key], left[key], current, left, key) ? base : current;
  if (Object.hasOwn(from, key)) into[key] = from[key];
  else delete into[key];
}

/** Metadata key by key as undoneField: the agent's keys undone, the operator's since kept. */
function undoneMetadata(base: CellJson, left: CellJson, current: CellJson): Record<string, unknown> {
  const record = (cell: CellJson) =>
    cell.metadata && typeof cell.metadata === 'object' && !Array.isArray(cell.metadata)
      ? (cell.metadata as Record<string, unknown>)
      : {};
  const [b, l, c] = [record(base), record(left), record(current)];
  const out: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(l), ...Object.keys(c)])) {
    const from = same(c[key], l[key], c, l, key) ? b : c;
    if (!Object.hasOwn(from, key)) continue;
    out[key] = from[key];
    const text = typeof from[key] === 'number' ? exactNumberText(from, key) : undefined;
    if (text !== undefined) keepExactNumber(out, key, from[key] as number, text);
  }
  return out;
}

/**
 * Whether the operator edited the cell since the turn (a run alone, outputs and count, is no edit; nor is an id
 * the cell gained when a 4.4 notebook was saved as 4.5: the cells were matched already).
 */
export function editedSince(left: CellJson, current: CellJson): boolean {
  for (const key of new Set([...Object.keys(left), ...Object.keys(current)])) {
    if (key === 'outputs' || key === 'execution_count' || key === 'id') continue;
    if (
      key === 'source'
        ? joinLines(left.source) !== joinLines(current.source)
        : !same(current[key], left[key], current, left, key)
    )
      return true;
  }
  return false;
}

/**
 * The cell that undoing the agent's change to it gives, three-way (see the top of this file). `base` whole when
 * the cell is as the turn left it, as the plain undo always did.
 */
export function undoCellChange(base: CellJson, left: CellJson, current: CellJson): CellUndo {
  if (!editedSince(left, current) && same(current.outputs, left.outputs, current, left, 'outputs')) {
    if (same(current.execution_count, left.execution_count, current, left, 'execution_count')) return { cell: base };
  }
  if (base.cell_type !== left.cell_type && editedSince(left, current))
    return { refused: 'the agent changed its type and you edited it since' };
  const source = revertAgentLines(joinLines(base.source), joinLines(left.source), joinLines(current.source));
  if (source === null) return { refused: 'you edited lines the agent changed' };
  const cell = carryExactNumbers(current, { ...current }) as CellJson;
  for (const key of new Set([...Object.keys(base), ...Object.keys(left), ...Object.keys(current)])) {
    if (key === 'id' || key === 'source' || key === 'metadata' || key === 'outputs' || key === 'execution_count')
      continue;
    undoneField(base, left, current, key, cell);
  }
  // Kept as now when unchanged (a list of lines stays one), so an undone cell compares equal to itself.
  cell.source = source === joinLines(current.source) ? current.source : source;
  cell.metadata = undoneMetadata(base, left, current);
  // Outputs and count go together: before the turn's only while the cell has not run since the turn.
  const ranSince =
    !same(current.outputs, left.outputs, current, left, 'outputs') ||
    !same(current.execution_count, left.execution_count, current, left, 'execution_count');
  const runOf = ranSince ? current : base;
  for (const key of ['outputs', 'execution_count']) {
    if (cell.cell_type !== 'code') delete cell[key];
    else if (Object.hasOwn(runOf, key)) cell[key] = runOf[key];
    else cell[key] = key === 'outputs' ? [] : null;
  }
  return { cell };
}
