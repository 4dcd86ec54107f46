export { NotebookDiffView, type NotebookDiffDecisions, type NotebookDiffViewProps } from './NotebookDiffView';
export {
  NotebookCompare,
  NotebookCompareOrText,
  type NotebookCompareOrTextProps,
  type NotebookCompareProps,
} from './NotebookCompare';
export { restoreCellInto, type CellRestoreSource } from './restore-cell';
export {
  cellRestore,
  changeLabel,
  diffRows,
  type CellRestore,
  type Decision,
  type DecisionMode,
  type DiffRow,
} from './rows';
export { registerCellOutputView, type CellOutputViewProps } from './output-view';
