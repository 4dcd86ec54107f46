export { NOTEBOOK_AS_TEXT, NotebookAsText, NotebookView } from './NotebookView';
export { useNotebookOutline, type NotebookOutline } from './outline-feed';
export { markdownHeadings, type Heading, type NotebookHeading } from './sections';
export { notebookTabDrop } from './cell-drag';
export { useCellNumbers, type CellNumbers } from './language';
export { OutputList } from './Outputs';
export {
  registerCellAction,
  registerCellEditorContribution,
  type CellActionContribution,
  type CellEditorContribution,
  type CellEditorTarget,
} from './cell-contributions';
