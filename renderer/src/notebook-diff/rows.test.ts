import { describe, expect, it } from 'vitest';
import type { NotebookDiffCell, NotebookDiffResult } from '../../../shared/contract';
import type { CellDiff } from '../../../shared/notebook-diff';
import {
  allControls,
  cellRestore,
  changeLabel,
  decisionControls,
  diffRows,
  refusedLabel,
  stepChange,
  unchangedLabel,
} from './rows';

const same = (i: number): CellDiff => ({
  changeId: `cell:c${i}`,
  status: 'unchanged',
  kinds: [],
  oldIndex: i,
  newIndex: i,
  oldCellId: `c${i}`,
  newCellId: `c${i}`,
  cellType: 'code',
});

function change(patch: Partial<CellDiff>): CellDiff {
  return { ...same(0), status: 'modified', ...patch };
}

const viewCell = (id: string | null, source: string): NotebookDiffCell => ({
  id,
  cell_type: 'code',
  source,
  metadata: {},
  outputs: [{ output_type: 'stream', name: 'stdout', text: `${source}\n` }],
  outputsSent: true,
  execution_count: 1,
});

describe('the rows and names of the notebook diff view', () => {
  it('names each change by its cell number in the new notebook (the old one for a deletion) and what changed', () => {
    expect(changeLabel(change({ kinds: ['source'], oldIndex: 2, newIndex: 2 }))).toBe('Cell 3: source changed');
    expect(change({}).status).toBe('modified');
    expect(changeLabel(change({ status: 'added', kinds: ['added'], oldIndex: null, newIndex: 4 }))).toBe(
      'Cell 5: added',
    );
    expect(changeLabel(change({ status: 'deleted', kinds: ['deleted'], oldIndex: 1, newIndex: null }))).toBe(
      'Cell 2: deleted',
    );
    expect(changeLabel(change({ kinds: ['moved'], oldIndex: 1, newIndex: 3 }))).toBe('Cell 4: moved from 2');
    expect(changeLabel(change({ kinds: ['outputs', 'executionCount'], oldIndex: 5, newIndex: 5 }))).toBe(
      'Cell 6: outputs changed, execution count changed',
    );
  });

  it('folds each run of unchanged cells into one row', () => {
    const edited = change({ changeId: 'cell:c2', kinds: ['source'], oldIndex: 2, newIndex: 2 });
    const rows = diffRows([same(0), same(1), edited, same(3)]);
    expect(rows.map((r) => (r.kind === 'change' ? r.label : unchangedLabel(r.cells.length)))).toEqual([
      '2 unchanged cells',
      'Cell 3: source changed',
      '1 unchanged cell',
    ]);
  });

  it('steps F7 forward and Shift+F7 back through the changes, round the ends', () => {
    expect(stepChange(-1, 3, false)).toBe(0);
    expect(stepChange(-1, 3, true)).toBe(2);
    expect(stepChange(2, 3, false)).toBe(0);
    expect(stepChange(0, 3, true)).toBe(2);
    expect(stepChange(1, 3, false)).toBe(2);
    expect(stepChange(-1, 0, false)).toBeNull();
  });
});

describe('Restore this cell', () => {
  // Version: [a, b, gone]; now: [a, b' (edited), new].
  const edited = change({
    changeId: 'cell:b',
    kinds: ['source'],
    oldIndex: 1,
    newIndex: 1,
    oldCellId: 'b',
    newCellId: 'b',
  });
  const deleted = change({
    changeId: 'deleted:gone',
    status: 'deleted',
    kinds: ['deleted'],
    oldIndex: 2,
    newIndex: null,
    oldCellId: 'gone',
    newCellId: null,
  });
  const added = change({ changeId: 'added:new', status: 'added', kinds: ['added'], oldIndex: null, newIndex: 2 });
  const result: NotebookDiffResult = {
    diff: {
      cells: [same(0), edited, deleted, added],
      notebook: null,
      changeIds: ['cell:b', 'deleted:gone', 'added:new'],
    },
    base: [viewCell('a', 'a'), viewCell('b', 'b = 1'), viewCell('gone', 'gone()')],
    next: [viewCell('a', 'a'), viewCell('b', 'b = 2'), viewCell('new', 'new()')],
    unsaved: { base: false, next: false },
  };
  const fresh = () => 'fresh1';

  it('puts an edited cell’s old content in its place, keeping the id it has now', () => {
    const plan = cellRestore(result, edited, ['a', 'b', 'new'], fresh);
    expect(plan).toMatchObject({ replaceId: 'b', index: 1, cell: { id: 'b', source: 'b = 1', execution_count: 1 } });
    expect(plan?.cell.outputs).toEqual([{ output_type: 'stream', name: 'stdout', text: 'b = 1\n' }]);
  });

  it('finds the open cell by its place when the file’s cells have no ids (nbformat 4.4)', () => {
    const noIds = { ...edited, oldCellId: null, newCellId: null };
    expect(cellRestore(result, noIds, ['x1', 'x2', 'x3'], fresh)).toMatchObject({ replaceId: 'x2', index: 1 });
  });

  it('inserts a deleted cell where the view shows it, with its old id unless that is taken', () => {
    expect(cellRestore(result, deleted, ['a', 'b', 'new'], fresh)).toMatchObject({
      replaceId: null,
      index: 2,
      cell: { id: 'gone', source: 'gone()' },
    });
    expect(cellRestore(result, deleted, ['a', 'gone', 'new'], fresh)?.cell.id).toBe('fresh1');
  });

  it('has nothing to restore for a cell the version did not have', () => {
    expect(cellRestore(result, added, ['a', 'b', 'new'], fresh)).toBeNull();
  });
});

describe('decisions', () => {
  const labels = (controls: { label: string }[]) => controls.map((c) => c.label);

  it('offers Accept / Reject on a proposal and Keep / Undo on an agent’s change, each and all', () => {
    expect(labels(decisionControls('proposal', undefined).buttons)).toEqual(['Reject', 'Accept']);
    expect(labels(decisionControls('agent', undefined).buttons)).toEqual(['Undo', 'Keep']);
    expect(labels(allControls('proposal'))).toEqual(['Reject all', 'Accept all']);
    expect(labels(allControls('agent'))).toEqual(['Undo all', 'Keep all']);
    expect(decisionControls('agent', undefined).buttons.map((b) => b.decision)).toEqual(['rejected', 'accepted']);
  });

  it('shows a decided change’s decision instead of its buttons', () => {
    expect(decisionControls('proposal', 'accepted')).toEqual({ buttons: [], decided: 'Accepted' });
    expect(decisionControls('agent', 'rejected')).toEqual({ buttons: [], decided: 'Undone' });
  });

  it('disables a refused Undo with why, and names the refused change by it', () => {
    const refused = { words: 'not undone, edited since', why: 'you edited lines the agent changed' };
    expect(decisionControls('agent', undefined, refused).buttons).toEqual([
      { label: 'Undo', decision: 'rejected', disabledWhy: 'you edited lines the agent changed' },
      { label: 'Keep', decision: 'accepted' },
    ]);
    expect(refusedLabel('Cell 2: source changed', refused)).toBe('Cell 2: source changed; not undone, edited since');
    expect(refusedLabel('Cell 2: source changed', undefined)).toBe('Cell 2: source changed');
  });
});
