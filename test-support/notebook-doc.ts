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
