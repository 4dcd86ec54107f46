export { NotebookMergeView } from './NotebookMergeView';
