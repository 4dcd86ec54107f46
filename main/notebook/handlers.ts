import type { notebookCellRequests, notebookRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import { notebookCellHandlers } from './cell-handlers';
import type { NotebookService } from './service';

/** The notebook channels; requests from the UI are the operator's. */
export function notebookHandlers(
  svc: NotebookService,
): HandlersFor<keyof typeof notebookRequests | keyof typeof notebookCellRequests> {
  return {
    ...notebookCellHandlers(svc),
    'notebook.open': ({ path, firstCells }) => svc.open(path, { firstCells }),
    'notebook.cells': ({ path, from, count, rev, diskHash }) => svc.cells(path, { from, count, rev, diskHash }),
    'notebook.create': ({ path }) => svc.create(path),
    'notebook.get': ({ path }) => svc.get(path),
    'notebook.save': ({ path, force }) => svc.save(path, { force }),
    'notebook.close': ({ path }) => svc.close(path),
    'notebook.revert': ({ path }) => svc.revert(path),
    'notebook.saveAs': ({ path, target }) => svc.saveAs(path, target),
    'notebook.insertCell': ({ path, index, cellType, source }) => svc.insertCell(path, { index, cellType, source }),
    'notebook.editCell': ({ path, cellId, source }) => svc.editCell(path, cellId, source),
    'notebook.setCellType': ({ path, cellId, cellType }) => svc.setCellType(path, cellId, cellType),
    'notebook.moveCell': ({ path, cellId, toIndex }) => svc.moveCell(path, cellId, toIndex),
    'notebook.deleteCell': ({ path, cellId }) => svc.deleteCell(path, cellId),
    'notebook.restoreCell': ({ path, cell, index }) => svc.restoreCell(path, cell, index),
    'notebook.editCells': ({ path, edits }) => svc.editCells(path, edits),
    'notebook.setCellMetadata': ({ path, cellId, metadata }) => svc.setCellMetadata(path, cellId, metadata),
    'notebook.runCell': ({ path, cellId }) => svc.runCell(path, cellId),
    'notebook.runCells': ({ path, scope, cellId }) => svc.runCells(path, scope, cellId),
    'notebook.clearOutputs': ({ path, cellId }) => svc.clearOutputs(path, cellId),
    'notebook.interrupt': ({ path }) => svc.interrupt(path),
    'notebook.restart': ({ path }) => svc.restart(path),
    'notebook.restartRunAll': ({ path }) => svc.restartRunAll(path),
    'notebook.reconnect': ({ path }) => svc.reconnect(path),
    'notebook.kernelSpecs': () => svc.kernelSpecs(),
    'notebook.setKernel': ({ path, name }) => svc.setKernel(path, name),
    'notebook.inputReply': ({ path, value }) => svc.inputReply(path, value),
  };
}
