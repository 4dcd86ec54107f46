export { EditorArea } from './EditorArea';
export { OpenFilesStore, useOpenFile, useOpenFiles, useOpenFilesStore } from './open-files';
export { requestReveal, type RevealTarget } from './reveal';
export { SaveAs } from './SaveAs';
