import { describe, expect, it } from 'vitest';
import type { OpenNotebookCellEdit } from '../../shared/contract';
import { cellEditsBetween } from './open-notebook-cells';

/*
 * The cell edits a proposal accepted into the open notebook becomes: applied in order as the notebook applies them
 * (a move takes the cell out and puts it at its index in one step), they give the proposal's order, and a moved
 * cell is one edit, so one step of the notebook's undo.
 */

const notebook = (ids: string[], sources: Record<string, string> = {}) =>
  JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: ids.map((id) => ({
      id,
      cell_type: 'code',
      source: sources[id] ?? `${id} = 1`,
      metadata: {},
      outputs: [],
      execution_count: null,
    })),
  });

/** The open notebook's ids after the edits, as NotebookController.putCell / takeCell make them. */
function applied(ids: string[], edits: OpenNotebookCellEdit[]): string[] {
  const now = [...ids];
  for (const edit of edits) {
    if (edit.kind === 'delete') {
      now.splice(now.indexOf(edit.cellId), 1);
      continue;
    }
    const cellId = edit.cell.id;
    if (edit.replaceId && !edit.move) {
      now[now.indexOf(edit.replaceId)] = cellId;
      continue;
    }
    if (edit.replaceId) now.splice(now.indexOf(edit.replaceId), 1);
    now.splice(edit.index, 0, cellId);
  }
  return now;
}

describe('cell edits into the open notebook', () => {
  it('moves a cell in one edit', () => {
    const edits = cellEditsBetween(notebook(['a', 'b', 'c']), notebook(['b', 'c', 'a']));
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ kind: 'put', replaceId: 'a', move: true });
    expect(applied(['a', 'b', 'c'], edits)).toEqual(['b', 'c', 'a']);
  });

  it('gives the proposal’s order for any mix of moves, additions, deletions and edits', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round++) {
      const from = Array.from({ length: 1 + Math.floor(random() * 7) }, (_, i) => `c${i}`);
      const to = from.filter(() => random() > 0.2);
      for (let i = 0; i < 2; i++)
        if (random() > 0.5) to.splice(Math.floor(random() * (to.length + 1)), 0, `n${round}${i}`);
      for (let i = to.length - 1; i > 0; i--) {
        if (random() > 0.6) continue;
        const k = Math.floor(random() * (i + 1));
        [to[i], to[k]] = [to[k], to[i]];
      }
      const edited = Object.fromEntries(to.filter(() => random() > 0.7).map((id) => [id, `${id} = 2`]));
      const edits = cellEditsBetween(notebook(from), notebook(to, edited));
      expect(applied(from, edits), `${from} -> ${to}`).toEqual(to);
      // Every changed cell once: a move is never a deletion plus an addition.
      const touched = edits.map((e) => (e.kind === 'delete' ? e.cellId : e.cell.id));
      expect(new Set(touched).size).toBe(touched.length);
    }
  });
});

describe('cell edits into the open notebook, fewest moves', () => {
  it('moves only the cell that moved, however far', () => {
    const edits = cellEditsBetween(notebook(['a', 'b', 'c', 'd']), notebook(['d', 'a', 'b', 'c']));
    expect(edits.map((e) => (e.kind === 'put' ? [e.cell.id, e.move] : e))).toEqual([['d', true]]);
  });
});
