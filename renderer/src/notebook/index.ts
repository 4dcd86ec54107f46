export { NOTEBOOK_AS_TEXT, NotebookAsText, NotebookView } from './NotebookView';
