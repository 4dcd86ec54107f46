export { NotebookView } from './NotebookView';
