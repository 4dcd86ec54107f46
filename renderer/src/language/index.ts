export { LanguageFeatures } from './LanguageFeatures';
export { LanguageStatusItem } from './LanguageStatusItem';
export { useLanguageClient, toLspRange, toMonacoRange, type LanguageState } from './language-client';
export { registerDocumentResolver, type DocumentResolver, type LanguageDocument } from './document-resolvers';
export { registerNotebookEditTarget, type NotebookEditTarget } from './notebook-edits';
export { EditPreviewList } from './review-edits';
export { useDocumentSymbols, useSymbolPath, symbolPathAt, type SymbolStep } from './symbol-path';
export { LibraryDocument } from './LibraryDocument';
export { isLibraryPath, libraryUri } from './library-files';
