import { z } from 'zod';
import { request } from './define';
import { NotebookCell } from './notebook';
import { RelPath } from './workspace';

/*
 * Operations on several cells at once, as JupyterLab's notebook does them: paste (cells with their outputs),
 * delete and move a selection, merge, split. Each is one request, so main's model changes in one step and
 * the renderer's undo can put back exactly what one step changed.
 */

/** A cell as it was at an index (what a delete took out, or where an undo puts a cell back). */
export const PlacedCell = z.object({ cell: NotebookCell, index: z.number().int() });
export type PlacedCell = z.infer<typeof PlacedCell>;

const Placed = { rev: z.number().int(), dirty: z.boolean() };

export const notebookCellRequests = {
  /**
   * Inserts cells at `index` as one block, outputs and attachments included (a paste, or an undo). Pasted cells
   * get new ids (`keepIds` false); an undo keeps them (a cell whose id another cell took meanwhile gets a new one).
   * Non-code cells carry no outputs. Returns the cells as inserted.
   */
  'notebook.insertCells': request(
    z.object({
      path: RelPath,
      index: z.number().int().min(0),
      cells: z.array(NotebookCell).min(1),
      keepIds: z.boolean().default(false),
    }),
    z.object({ cells: z.array(NotebookCell), index: z.number().int(), ...Placed }),
  ),
  /** Deletes cells; returns each with the index it had, in document order (re-insert them in that order to undo). */
  'notebook.deleteCells': request(
    z.object({ path: RelPath, cellIds: z.array(z.string()).min(1) }),
    z.object({ removed: z.array(PlacedCell), ...Placed }),
  ),
  /**
   * Moves cells (kept in document order) as one block so that the first of them lands at `toIndex` in the
   * resulting list: drag-and-drop of a selection, and Ctrl+Shift+Up/Down.
   */
  'notebook.moveCells': request(
    z.object({ path: RelPath, cellIds: z.array(z.string()).min(1), toIndex: z.number().int().min(0) }),
    z.object({ ...Placed }),
  ),
  /**
   * Merges cells into one, as JupyterLab's Shift+M: their sources joined by a blank line, in document order,
   * into `primaryId` (default the first), which keeps its id, type and metadata and lands where the first cell
   * was; a code cell's outputs are cleared. One cell id merges that cell with the one below.
   */
  'notebook.mergeCells': request(
    z.object({ path: RelPath, cellIds: z.array(z.string()).min(1), primaryId: z.string().optional() }),
    z.object({ cell: NotebookCell, index: z.number().int(), removed: z.array(PlacedCell), ...Placed }),
  ),
  /**
   * Splits a cell at the given offsets into its source (UTF-16, as the editor counts), as JupyterLab's
   * Ctrl+Shift+-: each part loses its leading and trailing newlines, the first keeps the cell's id, and a code
   * cell's outputs and execution count go with the last part. Returns the parts in order.
   */
  'notebook.splitCell': request(
    z.object({ path: RelPath, cellId: z.string(), offsets: z.array(z.number().int().min(0)).min(1) }),
    z.object({ cells: z.array(NotebookCell), index: z.number().int(), ...Placed }),
  ),
} as const;
