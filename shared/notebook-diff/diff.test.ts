import { beforeAll, describe, expect, it } from 'vitest';
import { nbformatWrites, type CellSpec, type NotebookSpec, type OutputSpec } from '../../test-support/nbformat-build';
import {
  diffNotebooks,
  lineHunks,
  NotebookDiffSchema,
  sourceSimilarity,
  type CellDiff,
  type NotebookDiff,
  type NotebookLike,
} from '.';

/* The engine on notebooks written by Python's nbformat (built once, in one Python run, before the tests). */

const PNG_A = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG_B = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const plot = (png: string, label = '<Figure>'): OutputSpec => ({
  output_type: 'display_data',
  data: { 'image/png': png, 'text/plain': label },
  metadata: {},
});
const printed = (text: string): OutputSpec => ({ output_type: 'stream', name: 'stdout', text });

const cells: CellSpec[] = [
  { id: 'intro', type: 'markdown', source: '# Loss curves\nWe plot the loss.' },
  { id: 'load', source: 'import numpy as np\ndata = np.load("x.npy")', execution_count: 1 },
  {
    id: 'train',
    source: 'for step in range(3):\n    print(step)',
    execution_count: 2,
    outputs: [printed('0\n1\n2\n')],
  },
  { id: 'plot', source: 'plt.plot(data)', execution_count: 3, outputs: [plot(PNG_A)] },
  { id: 'notes', type: 'markdown', source: 'Notes go here.' },
];
const change = (edit: (cells: CellSpec[]) => void, spec: Partial<NotebookSpec> = {}): NotebookSpec => {
  const copy = structuredClone(cells);
  edit(copy);
  return { ...spec, cells: copy };
};
const withoutIds = (spec: NotebookSpec): NotebookSpec => ({ ...spec, minor: 4 });

const SPECS = {
  base: { cells },
  sourceEdit: change((c) => (c[2].source = 'for step in range(5):\n    print(step)\nprint("done")')),
  added: change((c) => c.splice(2, 0, { id: 'check', source: 'assert data.shape[0] > 0' })),
  deleted: change((c) => c.splice(1, 1)),
  moved: change((c) => c.splice(0, 0, ...c.splice(3, 1))),
  outputs: change((c) => {
    c[3].outputs = [plot(PNG_B), printed('saved\n')];
    c[2].outputs = [printed('0\n1\n2\n3\n')];
  }),
  imageWrapped: change((c) => (c[3].outputs = [plot(PNG_A.replace(/(.{40})/g, '$1\n'))])),
  countOnly: change((c) => {
    c[1].execution_count = 7;
    c[3].execution_count = 9;
  }),
  metadata: change((c) => (c[1].metadata = { tags: ['setup'] }), { metadata: { title: 'Loss' } }),
  sameSourceNewId: change((c) => (c[1].id = 'load-again')),
  noIdsBase: withoutIds({ cells }),
  noIdsMoved: withoutIds(change((c) => c.splice(4, 0, ...c.splice(1, 1)))),
  noIdsEdited: withoutIds(
    change((c) => {
      c[1].source = 'import numpy as np\ndata = np.load("y.npy")';
      c.splice(3, 1, { source: 'something else entirely = 42' });
    }),
  ),
} satisfies Record<string, NotebookSpec>;

let nb: Record<keyof typeof SPECS, NotebookLike>;
beforeAll(() => {
  const names = Object.keys(SPECS) as (keyof typeof SPECS)[];
  const texts = nbformatWrites(names.map((name) => SPECS[name]));
  nb = Object.fromEntries(names.map((name, k) => [name, JSON.parse(texts[k]) as NotebookLike])) as typeof nb;
});

const changed = (diff: NotebookDiff) => diff.cells.filter((cell) => cell.status !== 'unchanged');
const summary = (cell: CellDiff) => ({ kinds: cell.kinds, oldIndex: cell.oldIndex, newIndex: cell.newIndex });

describe('diffNotebooks', () => {
  it('finds nothing between a notebook and itself', () => {
    const diff = diffNotebooks(nb.base, nb.base);
    expect(diff.changeIds).toEqual([]);
    expect(diff.notebook).toBeNull();
    expect(diff.cells.map((c) => [c.status, c.oldIndex, c.newIndex])).toEqual(
      [0, 1, 2, 3, 4].map((k) => ['unchanged', k, k]),
    );
  });

  it('reports a source change with its line diff', () => {
    const diff = diffNotebooks(nb.base, nb.sourceEdit);
    expect(changed(diff).map(summary)).toEqual([{ kinds: ['source'], oldIndex: 2, newIndex: 2 }]);
    const [cell] = changed(diff);
    expect(cell.changeId).toBe('cell:train');
    expect(cell.source).toEqual({
      old: 'for step in range(3):\n    print(step)',
      new: 'for step in range(5):\n    print(step)\nprint("done")',
      hunks: [
        { oldStart: 0, oldLines: 1, newStart: 0, newLines: 1 },
        { oldStart: 2, oldLines: 0, newStart: 2, newLines: 1 },
      ],
    });
    expect(diff.changeIds).toEqual(['cell:train']);
  });

  it('reports an added cell at its new place and a deleted one where it stood', () => {
    const add = diffNotebooks(nb.base, nb.added);
    expect(changed(add).map((c) => [c.changeId, c.status, c.newIndex])).toEqual([['added:check', 'added', 2]]);
    expect(add.cells.map((c) => c.newIndex)).toEqual([0, 1, 2, 3, 4, 5]);

    const del = diffNotebooks(nb.base, nb.deleted);
    expect(changed(del).map((c) => [c.changeId, c.status, c.oldIndex])).toEqual([['deleted:load', 'deleted', 1]]);
    expect(del.cells.map((c) => c.oldIndex)).toEqual([0, 1, 2, 3, 4]);
    expect(changed(del)[0].source?.old).toBe('import numpy as np\ndata = np.load("x.npy")');
  });

  it('reports a moved cell as a move, not a deletion and an addition', () => {
    const diff = diffNotebooks(nb.base, nb.moved);
    expect(changed(diff).map((c) => [c.changeId, ...c.kinds, c.oldIndex, c.newIndex])).toEqual([
      ['cell:plot', 'moved', 3, 0],
    ]);
    expect(diff.cells.map((c) => c.newIndex)).toEqual([0, 1, 2, 3, 4]);
  });

  it('compares outputs one by one and per MIME type, an image by its bytes', () => {
    const diff = diffNotebooks(nb.base, nb.outputs);
    const byId = Object.fromEntries(changed(diff).map((c) => [c.newCellId, c]));
    expect(Object.keys(byId).sort()).toEqual(['plot', 'train']);
    expect(byId.plot.kinds).toEqual(['outputs']);
    expect(byId.plot.outputs).toEqual([
      {
        status: 'changed',
        oldIndex: 0,
        newIndex: 0,
        outputType: 'display_data',
        mimes: [{ mime: 'image/png', status: 'changed', binary: true, oldBytes: 70, newBytes: 70 }],
        fields: [],
      },
      { status: 'added', oldIndex: null, newIndex: 1, outputType: 'stream', mimes: [], fields: [] },
    ]);
    expect(byId.train.outputs).toEqual([
      { status: 'changed', oldIndex: 0, newIndex: 0, outputType: 'stream', mimes: [], fields: ['text'] },
    ]);
    // The same PNG with its base64 broken into lines is the same image.
    expect(diffNotebooks(nb.base, nb.imageWrapped).changeIds).toEqual([]);
  });

  it('tells an execution-count-only change from the others', () => {
    const diff = diffNotebooks(nb.base, nb.countOnly);
    expect(changed(diff).map((c) => [c.changeId, c.kinds, c.executionCount])).toEqual([
      ['cell:load', ['executionCount'], { old: 1, new: 7 }],
      ['cell:plot', ['executionCount'], { old: 3, new: 9 }],
    ]);
  });

  it('reports cell and notebook metadata by key', () => {
    const diff = diffNotebooks(nb.base, nb.metadata);
    expect(changed(diff).map((c) => [c.changeId, c.kinds, c.metadata])).toEqual([
      ['cell:load', ['metadata'], [{ key: 'tags', status: 'added', new: ['setup'] }]],
    ]);
    expect(diff.notebook).toEqual({
      changeId: 'notebook',
      metadata: [{ key: 'title', status: 'added', new: 'Loss' }],
      fields: [],
    });
    expect(diff.changeIds).toEqual(['cell:load', 'notebook']);
  });

  it("ignores what nbdime's options ignore", () => {
    expect(diffNotebooks(nb.base, nb.outputs, { ignoreOutputs: true }).changeIds).toEqual([]);
    expect(diffNotebooks(nb.base, nb.countOnly, { ignoreExecutionCounts: true }).changeIds).toEqual([]);
    expect(diffNotebooks(nb.base, nb.metadata, { ignoreMetadata: true }).changeIds).toEqual([]);
    // Ignoring one part leaves the others reported.
    expect(diffNotebooks(nb.base, nb.sourceEdit, { ignoreOutputs: true, ignoreMetadata: true }).changeIds).toEqual([
      'cell:train',
    ]);
  });

  it('never takes two cells with different ids for one, however alike', () => {
    const diff = diffNotebooks(nb.base, nb.sameSourceNewId);
    expect(changed(diff).map((c) => c.changeId)).toEqual(['deleted:load', 'added:load-again']);
    // Also when another cell lacks its id, so matching by source runs.
    const missingId = structuredClone(nb.sameSourceNewId);
    delete missingId.cells[4].id;
    expect(changed(diffNotebooks(nb.base, missingId)).map((c) => c.changeId)).toEqual([
      'deleted:load',
      'added:load-again',
    ]);
  });

  describe('cells without ids (nbformat 4.4)', () => {
    it('matches them by source: unchanged cells are unchanged', () => {
      const diff = diffNotebooks(nb.noIdsBase, nb.noIdsBase);
      expect(diff.changeIds).toEqual([]);
      expect(nb.noIdsBase.cells.some((cell) => 'id' in cell)).toBe(false);
    });

    it('finds a moved cell by its source', () => {
      const diff = diffNotebooks(nb.noIdsBase, nb.noIdsMoved);
      expect(changed(diff).map((c) => [c.changeId, c.kinds, c.oldIndex, c.newIndex])).toEqual([
        ['cell:o1-n4', ['moved'], 1, 4],
      ]);
    });

    it('takes an edited cell for the same cell, a rewritten one for a deletion and an addition', () => {
      const diff = diffNotebooks(nb.noIdsBase, nb.noIdsEdited);
      expect(changed(diff).map((c) => [c.changeId, c.kinds])).toEqual([
        ['cell:o1-n1', ['source']],
        ['deleted:o3', ['deleted']],
        ['added:n3', ['added']],
      ]);
    });

    it('matches a 4.4 notebook against its 4.5 upgrade cell for cell', () => {
      const diff = diffNotebooks(nb.noIdsBase, nb.base);
      expect(changed(diff)).toEqual([]);
      expect(diff.notebook?.fields).toEqual([{ key: 'nbformat_minor', status: 'changed', old: 4, new: 5 }]);
    });
  });
});

describe('the diff on the wire', () => {
  it('is plain JSON that the contract schema reads back unchanged', () => {
    for (const name of Object.keys(SPECS) as (keyof typeof SPECS)[]) {
      const diff = diffNotebooks(nb.base, nb[name]);
      expect(NotebookDiffSchema.parse(JSON.parse(JSON.stringify(diff)))).toEqual(diff);
    }
  });
});

describe('helpers', () => {
  it('lineHunks counts a last line without a newline', () => {
    expect(lineHunks('a\nb', 'a\nc')).toEqual([{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1 }]);
    expect(lineHunks('', 'x\ny')).toEqual([{ oldStart: 0, oldLines: 0, newStart: 0, newLines: 2 }]);
    expect(lineHunks('same', 'same')).toEqual([]);
  });

  it('sourceSimilarity is 1 for equal text, high for a small edit, low for another text', () => {
    expect(sourceSimilarity('x = 1', 'x = 1')).toBe(1);
    expect(sourceSimilarity('data = np.load("x.npy")', 'data = np.load("y.npy")')).toBeGreaterThan(0.8);
    expect(sourceSimilarity('import numpy as np', 'plt.show()')).toBeLessThan(0.3);
  });
});
