import type { notebookCellRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { NotebookService } from './service';

/** The several-cells channels (paste, a selection, merge, split); requests from the UI are the operator's. */
export function notebookCellHandlers(svc: NotebookService): HandlersFor<keyof typeof notebookCellRequests> {
  return {
    'notebook.insertCells': ({ path, index, cells, keepIds }) => svc.insertCells(path, { index, cells, keepIds }),
    'notebook.deleteCells': ({ path, cellIds }) => svc.deleteCells(path, cellIds),
    'notebook.moveCells': ({ path, cellIds, toIndex }) => svc.moveCells(path, cellIds, toIndex),
    'notebook.mergeCells': ({ path, cellIds, primaryId }) => svc.mergeCells(path, cellIds, primaryId),
    'notebook.splitCell': ({ path, cellId, offsets }) => svc.splitCell(path, cellId, offsets),
  };
}
