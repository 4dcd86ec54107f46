import type { NotebookCell, NotebookDocument } from '../shared/contract';

/** A code cell as main sends it. */
export const codeCell = (id: string, source = '', outputs: NotebookCell['outputs'] = []): NotebookCell =>
  ({ cell_type: 'code', id, source, metadata: {}, outputs, execution_count: null }) as NotebookCell;

/** `a.ipynb` as `notebook.open` answers it, with these cells. */
export const notebookDoc = (cells: NotebookCell[], rev = 5, dirty = false): NotebookDocument => ({
  path: 'a.ipynb',
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells,
  dirty,
  rev,
  diskHash: 'h',
  kernel: { status: 'none', name: null, displayName: null, language: null },
  warnings: [],
});

/**
 * A one-cell notebook in Jupyter's own formatting (one-space indent, no final newline), its cell's metadata given as
 * raw JSON lines so number spellings like `2.0` stay: tests check these exact bytes come back.
 */
export function jupyterOneCellNotebook(source: string, metadata: string[] = []): string {
  const meta = metadata.length ? `{\n${metadata.map((line) => `    ${line}`).join(',\n')}\n   }` : '{}';
  return `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": null,
   "id": "c1",
   "metadata": ${meta},
   "outputs": [],
   "source": [
    ${JSON.stringify(source)}
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}`;
}
