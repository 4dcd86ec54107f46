export { EditorArea } from './EditorArea';
export { CodeDocument } from './CodeDocument';
export { DiffView } from './DiffView';
export { registerDocumentView, type DocumentViewProps, type DocumentViewSpec, type TabDrop } from './document-views';
export {
  registerCodeEditorContribution,
  type CodeEditorContribution,
  type CodeEditorTarget,
} from './code-editor-contributions';
export { registerEditorOverlay, type EditorOverlayProps, type EditorOverlaySpec } from './overlays';
export { monaco } from './monaco-setup';
export { attachTreePathDrop, openIfFile } from './path-drop';
export { OpenFilesStore, useOpenFile, useOpenFiles, useOpenFilesStore, type OpenFile } from './open-files';
export { showsOwningView } from './owning-views';
export { useReveals, type Reveals, type RevealTarget } from './reveal';
export { SaveAs } from './SaveAs';
export { useTextModels, type TextModels } from './text-models';
export { languageForPath } from './monaco-setup';
export { SideBySideToggle, useDiffSideBySide } from './side-by-side';
