export { EditorArea, confirmClose } from './EditorArea';
export { DiffView, type DiffViewProps } from './DiffView';
export { documentViews, viewFor, type DocumentViewProps, type DocumentViewSpec } from './document-views';
export {
  OpenFilesStore, OpenFilesContext, useOpenFiles, useOpenFilesStore, LARGE_FILE_BYTES,
  type OpenFile, type OpenFilesState, type DiskConflict,
} from './open-files';
export { renameModel } from './CodeEditor';
export { languageForPath } from './monaco-setup';
