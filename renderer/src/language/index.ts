export { LanguageFeatures } from './LanguageFeatures';
export { LanguageStatusItem } from './LanguageStatusItem';
export { useLanguageClient, toLspRange, toMonacoRange, type LanguageState } from './language-client';
export { registerDocumentResolver, type LanguageDocument } from './providers';
export { EditPreviewList } from './review-edits';
export { useSymbolPath, symbolPathAt, type SymbolStep } from './symbol-path';
