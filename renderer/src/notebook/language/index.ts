export { attachCellLanguage, completionName, staticCompletions, type CellLanguageSource } from './cell-language';
export { notebookDiagnostics, NotebookDiagnosticsStore } from './notebook-diagnostics';
