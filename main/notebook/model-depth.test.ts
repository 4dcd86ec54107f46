import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from './exact-json';
import { parseNotebook, serializeNotebook } from './format';
import { NotebookModel } from './model';

const NOTEBOOK = JSON.stringify({
  cells: [{ cell_type: 'code', id: 'a', metadata: {}, source: 'deep()', outputs: [], execution_count: null }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

/** [[[…]]] `levels` deep, built without recursion (as a kernel's raw JSON display would arrive, parsed). */
function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

function modelWithOneCell(): NotebookModel {
  const parsed = parseNotebook(NOTEBOOK, 'deep.ipynb');
  return new NotebookModel('deep.ipynb', parsed.json, 'hash', parsed.warnings);
}

describe('a kernel output nested too deep for a notebook', () => {
  it('is kept as a line that says so, and the notebook still saves and reopens', () => {
    const model = modelWithOneCell();
    const cell = model.cells[0];
    model.applyOutput(cell, 'display_data', { data: { 'application/json': nested(100_000) }, metadata: {} });
    expect(cell.outputs).toHaveLength(1);
    expect(JSON.stringify(cell.outputs![0])).toContain('Output not kept: its JSON nests deeper than');
    const saved = serializeNotebook(model.diskJson());
    expect(parseNotebook(saved, 'deep.ipynb').json.cells[0].outputs).toHaveLength(1);
  });

  it('keeps an output as deep as a notebook file can hold', () => {
    const model = modelWithOneCell();
    const cell = model.cells[0];
    // The output object and its data dict are two levels, its value the rest; the notebook adds five above it.
    const deepest = MAX_JSON_DEPTH - 5 - 2;
    model.applyOutput(cell, 'execute_result', {
      data: { 'application/json': nested(deepest) },
      metadata: {},
      execution_count: 1,
    });
    const saved = serializeNotebook(model.diskJson());
    expect(saved).not.toContain('Output not kept');
    expect(parseNotebook(saved, 'deep.ipynb').json.cells[0].outputs).toHaveLength(1);
  });

  it('replaces a display update nested too deep the same way', () => {
    const model = modelWithOneCell();
    const cell = model.cells[0];
    const transient = { display_id: 'd1' };
    model.applyOutput(cell, 'display_data', { data: { 'text/plain': 'first' }, metadata: {}, transient });
    model.applyOutput(cell, 'update_display_data', {
      data: { 'application/json': nested(50_000) },
      metadata: {},
      transient,
    });
    expect(JSON.stringify(cell.outputs![0])).toContain('Output not kept');
    expect(() => serializeNotebook(model.diskJson())).not.toThrow();
  });
});
