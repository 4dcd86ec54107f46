import { longestIncreasing } from '../../shared/base/longest-increasing';
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
 * The cell edits that turn the open notebook (equal in cells to `from`) into `to`, in order: deletions first, then
 * each new, changed or moved cell of `to` in order, a new or moved one put right after the cell before it in `to`
 * (a moved cell in one edit, so one step of the notebook's undo). Cells are matched by id; a notebook whose cells
 * have no ids cannot be addressed in the open notebook (E_BAD_REQUEST).
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
  // The most cells that keep their relative order stay; the others are moved (taken out and put back at once).
  const common = after.filter((c) => beforeIndex.has(c.id)).map((c) => c.id as string);
  const staying = new Set(longestIncreasing(common.map((id) => beforeIndex.get(id)!)));
  const moved = new Set(common.filter((_, k) => !staying.has(k)));
  const edits: OpenNotebookCellEdit[] = [];
  for (const cell of before) if (!afterIds.has(cell.id)) edits.push({ kind: 'delete', cellId: cell.id });
  // The open notebook's cell ids as the edits so far leave it: where each next one goes.
  const now = before.filter((c) => afterIds.has(c.id)).map((c) => c.id as string);
  after.forEach((cell, j) => {
    const id = cell.id as string;
    const at = beforeIndex.get(id);
    const kept = at !== undefined && !moved.has(id);
    if (kept) {
      if (JSON.stringify(before[at]) !== JSON.stringify(cell))
        edits.push({ kind: 'put', cell: wireCell(cell), replaceId: id, index: now.indexOf(id) });
      return;
    }
    // Right after the cell before it in `to` (already in place, or kept where it is): the order comes out whole.
    if (at !== undefined) now.splice(now.indexOf(id), 1);
    const index = j === 0 ? 0 : now.indexOf(after[j - 1].id as string) + 1;
    now.splice(index, 0, id);
    edits.push({
      kind: 'put',
      cell: wireCell(cell),
      replaceId: at === undefined ? null : id,
      index,
      ...(at === undefined ? {} : { move: true }),
    });
  });
  return edits;
}
