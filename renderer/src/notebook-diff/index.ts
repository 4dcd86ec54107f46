export { NotebookDiffView, type NotebookDiffDecisions, type NotebookDiffViewProps } from './NotebookDiffView';
export { cellRestore, changeLabel, diffRows, type CellRestore, type DiffRow } from './rows';
export { NotebookCompare, type NotebookCompareProps } from './NotebookCompare';
export { restoreCellInto } from './restore-cell';
