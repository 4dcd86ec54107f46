export { EditorArea } from './EditorArea';
export { OpenFilesStore, OpenFilesContext, useOpenFiles, useOpenFilesStore } from './open-files';
export { requestReveal, type RevealTarget } from './reveal';
