export { NotebookView } from './NotebookView';
export { NotebookSession, type NotebookSessionState, type CellView } from './notebook-session';
