import type { CellType } from '../../shared/contract';
import type { CellRunResult } from '../../shared/contract';
import type { NotebookSaved } from '../../shared/contract/verbs';
// The summarizer lives with notebooks so the Edit assistant (a lower rank) shows a model cells the same way.
export { compactOutputs } from '../notebook/compact-outputs';

/**
 * What the notebook verbs need from a notebook service. Paths are canonical workspace-relative paths of
 * .ipynb files; an unknown notebook or cell id is a KilnError E_NOT_FOUND that names it.
 */
export interface NotebookVerbTarget {
  appendCell(
    notebook: string,
    source: string,
    cellType: CellType,
  ): Promise<{ cell_id: string; index: number } & NotebookSaved>;
  /** Appends a code cell and runs it against the notebook's live kernel. */
  runNewCell(notebook: string, source: string): Promise<CellRunResult & NotebookSaved>;
  /** Replaces the source (outputs kept); changes the type when given. */
  editCell(
    notebook: string,
    cellId: string,
    source: string,
    cellType?: CellType,
  ): Promise<{ cell_id: string; source_len: number } & NotebookSaved>;
  deleteCell(notebook: string, cellId: string): Promise<{ cell_id: string; remaining_cells: number } & NotebookSaved>;
  /** Clears the cell's outputs and runs it again with the kernel's earlier state in scope. */
  rerunCell(notebook: string, cellId: string): Promise<CellRunResult & NotebookSaved>;
}
