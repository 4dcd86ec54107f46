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
export { variablesHandlers } from './variables-handlers';
export {
  applyNotebookChanges,
  diffNotebookTexts,
  parseNotebookPair,
  type NotebookCompareOptions,
  type ParsedPair,
} from './partial-apply';
