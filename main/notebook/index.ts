export { NotebookService, UNTRUSTED_KERNEL_MESSAGE } from './service';
export type {
  ChangeOptions,
  NotebookBackup,
  NotebookBackupSink,
  NotebookEvents,
  NotebookFiles,
  NotebookServiceOptions,
  NotebookCellsChange,
  NotebookCodeCells,
} from './service';
export { notebookHandlers } from './handlers';
export { kernelAssistHandlers } from './assist-handlers';
export { notebookDiffHandlers, notebookDiffSources } from './diff-view';
export { variablesHandlers } from './variables-handlers';
export { dataViewerHandlers } from './data-viewer-handlers';
export {
  applyNotebookChanges,
  restoreCellText,
  diffNotebookTexts,
  parseNotebookPair,
  type NotebookCompareOptions,
  type ParsedPair,
} from './partial-apply';
export { mergeNotebookTexts, resolveNotebookMerge, type NotebookMergeTexts } from './merge';
export {
  NotebookMergeService,
  notebookMergeHandlers,
  type GitFiles,
  type NotebookMergeServiceOptions,
} from './git-merge';
export { compactOutputs } from './compact-outputs';
export { newCellId, serializeNotebook, joinLines, type CellJson, type NotebookJson } from './format';
export { carryExactNumbers } from './exact-json';
export { wireCell } from './model';
