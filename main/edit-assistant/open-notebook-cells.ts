import type { OpenNotebookCellEdit } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { joinLines, parseNotebookPair, wireCell, type CellJson } from '../notebook';

/*
 * A notebook proposal made against the open notebook's unsaved edits is accepted into that open notebook, not
 * the file: main decides and checks, and hands the renderer the cell edits to make there (each one step of the
 * notebook's undo). The binding is the open notebook's cells (id, type, source) as the proposal last left them.
 */

function cellsOf(text: string): CellJson[] {
  return parseNotebookPair(text, text).base.cells;
}

/** What the binding compares: each cell's id, type and source, in order (outputs and metadata are the kernel's). */
export function cellShape(text: string): string {
  return JSON.stringify(cellsOf(text).map((c) => [c.id ?? null, c.cell_type, joinLines(c.source)]));
}

/**
 * The cell edits that turn the open notebook (equal in cells to `from`) into `to`, in order: deletions first,
 * then each new, changed or moved cell put at its index in `to`. Cells are matched by id; a notebook whose
 * cells have no ids cannot be addressed in the open notebook (E_BAD_REQUEST).
 */
export function cellEditsBetween(from: string, to: string): OpenNotebookCellEdit[] {
  const before = cellsOf(from);
  const after = cellsOf(to);
  if ([...before, ...after].some((c) => typeof c.id !== 'string' || c.id === ''))
    throw new KilnError(
      'E_BAD_REQUEST',
      'This notebook has cells without ids (nbformat 4.4): save it, then ask again, to accept into the open notebook',
    );
  const beforeIndex = new Map(before.map((c, i) => [c.id, i]));
  const afterIds = new Set(after.map((c) => c.id));
  // Cells kept in their relative order stay; the others of both lists are moved (taken out, then put back).
  const moved = new Set<string>();
  let last = -1;
  for (const cell of after) {
    const at = beforeIndex.get(cell.id);
    if (at === undefined) continue;
    if (at > last) last = at;
    else moved.add(cell.id);
  }
  const edits: OpenNotebookCellEdit[] = [];
  for (const cell of before)
    if (!afterIds.has(cell.id) || moved.has(cell.id)) edits.push({ kind: 'delete', cellId: cell.id });
  after.forEach((cell, index) => {
    const at = beforeIndex.get(cell.id);
    const kept = at !== undefined && !moved.has(cell.id);
    if (kept && JSON.stringify(before[at]) === JSON.stringify(cell)) return;
    edits.push({ kind: 'put', cell: wireCell(cell), replaceId: kept ? cell.id : null, index });
  });
  return edits;
}
