import { describe, expect, it } from 'vitest';
import type { NotebookCell } from '../../../shared/contract';
import { CellClipboard, cellsAsText, cellsFromJson, cellsToJson } from './cell-clipboard';

const cells: NotebookCell[] = [
  {
    id: 'a1',
    cell_type: 'code',
    source: 'print(1)',
    metadata: { tags: ['x'] },
    outputs: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }],
    execution_count: 4,
  },
  { id: 'b2', cell_type: 'markdown', source: '# Title', metadata: {}, outputs: [], execution_count: null },
];

describe('the cell clipboard', () => {
  it('round-trips cells as nbformat JSON; markdown carries no outputs', () => {
    const json = JSON.parse(cellsToJson(cells)) as Record<string, unknown>[];
    expect(json[1]).toEqual({ cell_type: 'markdown', id: 'b2', metadata: {}, source: '# Title' });
    expect(cellsFromJson(JSON.stringify(json))).toEqual(cells);
  });

  it("reads JupyterLab's cells, whose sources are lists of lines", () => {
    const lab = [{ cell_type: 'code', source: ['a = 1\n', 'b = 2'], metadata: {}, outputs: [], execution_count: null }];
    expect(cellsFromJson(JSON.stringify(lab))).toEqual([
      { id: '', cell_type: 'code', source: 'a = 1\nb = 2', metadata: {}, outputs: [], execution_count: null },
    ]);
  });

  it('refuses text that is not a list of cells', () => {
    for (const text of ['', 'print(1)', '[]', '{"cells": []}', '[{"source": "x"}]', '[{"cell_type": "code"}]'])
      expect(cellsFromJson(text), text).toBeNull();
  });

  it('gives a text editor the sources, a blank line apart', () => {
    expect(cellsAsText(cells)).toBe('print(1)\n\n# Title');
  });

  it('without a system clipboard, pastes the window’s last copy', async () => {
    const clipboard = new CellClipboard();
    expect(await clipboard.cells()).toBeNull();
    await clipboard.copy(cells);
    expect(await clipboard.cells()).toEqual(cells);
  });
});
