// Open notebooks as targets of cell edits made from elsewhere. A folder of its own (no Monaco, no React) so the
// stores that use it (the Edit assistant's, unit-tested in Node) need not load the notebook diff view.
export { notebookRestoreTarget, registerNotebookRestoreTarget, type NotebookRestoreTarget } from './restore-targets';
