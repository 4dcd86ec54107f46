import { describe, expect, it } from 'vitest';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { turnCellReview, undoTurnCells } from './turn-cells';

/*
 * An Agent turn's cell changes on notebooks nbformat wrote: base (before the turn), left (what the turn left),
 * current (with the operator's edits since). Undoing some of the turn's changes must give nbformat's own bytes of
 * the expected notebook: the undone cells as before the turn, every other cell as it is now.
 */

const a: CellSpec = { id: 'a', source: 'a = 1', execution_count: 1 };
const b: CellSpec = {
  id: 'b',
  source: 'print(a)',
  execution_count: 2,
  outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
};
const c: CellSpec = { id: 'c', type: 'markdown', source: '# Notes' };
const d: CellSpec = { id: 'd', source: 'd = 4' };
// The agent: edits b and runs it, deletes d, adds n after a.
const bByAgent: CellSpec = {
  ...b,
  source: 'print(a * 2)',
  execution_count: 3,
  outputs: [{ output_type: 'stream', name: 'stdout', text: '2\n' }],
};
const n: CellSpec = { id: 'n', source: 'n = 0', execution_count: 4 };
// The operator, later: edits c.
const cByOperator: CellSpec = { ...c, source: '# Notes, mine' };

const [BASE, LEFT, CURRENT, NO_N, ALL_UNDONE, B_UNDONE, D_BACK] = nbformatWrites([
  { cells: [a, b, c, d] },
  { cells: [a, n, bByAgent, c] },
  { cells: [a, n, bByAgent, cByOperator] },
  { cells: [a, bByAgent, cByOperator] },
  { cells: [a, b, cByOperator, d] },
  { cells: [a, n, b, cByOperator] },
  { cells: [a, n, bByAgent, cByOperator, d] },
]);

describe('an Agent turn as cell changes', () => {
  it("lists the turn's cells as they stand now, the operator's edits not among them", () => {
    const { cells, review } = turnCellReview(BASE, LEFT, CURRENT);
    expect(cells.map((cell) => [cell.changeId, cell.number, cell.actions])).toEqual([
      ['added:n', 2, ['added', 'ran']],
      ['cell:b', 3, ['edited', 'ran']],
      ['deleted:d', 4, ['deleted']],
    ]);
    expect(review.diff.changeIds).toEqual(['added:n', 'cell:b', 'deleted:d']);
    // The operator's cell is drawn as it is now, with no decision.
    expect(review.diff.cells.find((cell) => cell.newCellId === 'c')?.status).toBe('unchanged');
  });

  it('undoes one change at a time byte-exact, every other cell exact', () => {
    expect(undoTurnCells(BASE, LEFT, CURRENT, ['added:n']).text).toBe(NO_N);
    expect(undoTurnCells(BASE, LEFT, CURRENT, ['cell:b']).text).toBe(B_UNDONE);
    expect(undoTurnCells(BASE, LEFT, CURRENT, ['deleted:d']).text).toBe(D_BACK);
    // An id that is not the turn's (the operator's cell) is not undone.
    expect(undoTurnCells(BASE, LEFT, CURRENT, ['cell:c']).text).toBe(CURRENT);
  });

  it("undoes the whole turn and keeps the operator's later edit; with none, gives the base bytes back", () => {
    expect(undoTurnCells(BASE, LEFT, CURRENT, 'all').text).toBe(ALL_UNDONE);
    expect(undoTurnCells(BASE, LEFT, LEFT, 'all').text).toBe(BASE);
    // Once undone, a change is no longer the turn's to list.
    const after = undoTurnCells(BASE, LEFT, CURRENT, ['cell:b']).text;
    expect(turnCellReview(BASE, LEFT, after).cells.map((cell) => cell.changeId)).toEqual(['added:n', 'deleted:d']);
  });
});

/*
 * Undo of a cell the operator edited after the turn: three-way on that cell. The agent's lines go back, the
 * operator's stay; where both touched the same lines the undo is refused for that cell and nothing is lost.
 */
const e: CellSpec = {
  id: 'e',
  source: 'x = 1\ny = 2\nz = 3\nw = 4',
  execution_count: 1,
  outputs: [{ output_type: 'stream', name: 'stdout', text: 'before\n' }],
};
// The agent changes the first line and runs the cell.
const eByAgent: CellSpec = {
  ...e,
  source: 'x = 10\ny = 2\nz = 3\nw = 4',
  execution_count: 2,
  outputs: [{ output_type: 'stream', name: 'stdout', text: 'agent\n' }],
};
// The operator, later, changes the last line (not run) / the agent's line / the last line and runs it.
const eLastLine: CellSpec = { ...eByAgent, source: 'x = 10\ny = 2\nz = 3\nw = 40' };
const eSameLine: CellSpec = { ...eByAgent, source: 'x = 11\ny = 2\nz = 3\nw = 4' };
const eRan: CellSpec = {
  ...eLastLine,
  execution_count: 3,
  outputs: [{ output_type: 'stream', name: 'stdout', text: 'mine\n' }],
};
const [E_BASE, E_LEFT, E_LAST, E_SAME, E_RAN, E_LAST_UNDONE, E_RAN_UNDONE] = nbformatWrites([
  { cells: [a, e] },
  { cells: [a, eByAgent] },
  { cells: [a, eLastLine] },
  { cells: [a, eSameLine] },
  { cells: [a, eRan] },
  // The agent's line back, the operator's kept; not run since, so the outputs before the turn come back.
  { cells: [a, { ...e, source: 'x = 1\ny = 2\nz = 3\nw = 40' }] },
  // Run by the operator since: their outputs and count stay.
  { cells: [a, { ...eRan, source: 'x = 1\ny = 2\nz = 3\nw = 40' }] },
]);

describe('undoing a cell the operator edited after the turn', () => {
  it("reverses the agent's lines and keeps the operator's, byte-exact", () => {
    const undone = undoTurnCells(E_BASE, E_LEFT, E_LAST, ['cell:e']);
    expect(undone.refused).toEqual([]);
    expect(undone.text).toBe(E_LAST_UNDONE);
    expect(undoTurnCells(E_BASE, E_LEFT, E_LAST, 'all').text).toBe(E_LAST_UNDONE);
    // Once undone, only the operator's edit differs from before the turn: no longer the turn's change.
    expect(turnCellReview(E_BASE, E_LEFT, E_LAST_UNDONE).cells).toEqual([]);
  });

  it('keeps the outputs of a run by the operator since', () => {
    expect(undoTurnCells(E_BASE, E_LEFT, E_RAN, ['cell:e']).text).toBe(E_RAN_UNDONE);
  });

  it('refuses for that cell, saying why, when the operator edited the lines the agent changed', () => {
    const { cells } = turnCellReview(E_BASE, E_LEFT, E_SAME);
    expect(cells[0]).toMatchObject({ changeId: 'cell:e', undoRefused: 'you edited lines the agent changed' });
    const undone = undoTurnCells(E_BASE, E_LEFT, E_SAME, ['cell:e']);
    expect(undone.text).toBe(E_SAME);
    expect(undone.refused.map((cell) => cell.changeId)).toEqual(['cell:e']);
  });
});

/*
 * nbformat 4.4 (no cell ids): the turn's changes are found by the cell before the turn (its position then) and,
 * for an added cell, by matching what the turn left with now, so the operator's cells added since do not hide them.
 */
const [OLD_BASE, OLD_LEFT, OLD_CURRENT, OLD_B_UNDONE] = nbformatWrites([
  { minor: 4, cells: [{ source: 'a = 1' }, { source: 'b = 2\nprint(b)' }, { source: 'c = 3' }] },
  // The agent: edits b, adds n at the end.
  { minor: 4, cells: [{ source: 'a = 1' }, { source: 'b = 20\nprint(b)' }, { source: 'c = 3' }, { source: 'n = 0' }] },
  // The operator, later: a cell of their own at the top.
  {
    minor: 4,
    cells: [
      { source: 'import os' },
      { source: 'a = 1' },
      { source: 'b = 20\nprint(b)' },
      { source: 'c = 3' },
      { source: 'n = 0' },
    ],
  },
  {
    minor: 4,
    cells: [
      { source: 'import os' },
      { source: 'a = 1' },
      { source: 'b = 2\nprint(b)' },
      { source: 'c = 3' },
      { source: 'n = 0' },
    ],
  },
]);

describe('an Agent turn on a notebook without cell ids (nbformat 4.4)', () => {
  it("lists the turn's cells by position after the operator added one above, and undoes one byte-exact", () => {
    const { cells } = turnCellReview(OLD_BASE, OLD_LEFT, OLD_CURRENT);
    expect(cells.map((cell) => [cell.number, cell.actions, cell.cellId])).toEqual([
      [3, ['edited'], null],
      [5, ['added'], null],
    ]);
    expect(undoTurnCells(OLD_BASE, OLD_LEFT, OLD_CURRENT, [cells[0].changeId]).text).toBe(OLD_B_UNDONE);
  });
});
