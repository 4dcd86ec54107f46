export { EditorArea } from './EditorArea';
export { CodeDocument } from './CodeDocument';
export { DiffView } from './DiffView';
export { registerDocumentView, type DocumentViewProps, type DocumentViewSpec, type TabDrop } from './document-views';
export { monaco } from './monaco-setup';
export { attachTreePathDrop, openIfFile } from './path-drop';
export { OpenFilesStore, useOpenFile, useOpenFiles, useOpenFilesStore, type OpenFile } from './open-files';
export { onRevealRequest, requestReveal, takeReveal, type RevealTarget } from './reveal';
export { SaveAs } from './SaveAs';
