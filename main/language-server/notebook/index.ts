export { NotebookLanguageDocuments } from './notebook-documents';
export type {
  NotebookCellsSource,
  NotebookLanguageDocumentsOptions,
  NotebookPlace,
  ServerDiagnostic,
  VirtualDocumentSink,
} from './notebook-documents';
export { NotebookVirtualDocument } from './virtual-document';
export type { CellPosition, CellRange, Position, Range, SourceCell } from './virtual-document';
export { cellMagicOf, maskCellLines } from './magics';
export { NotebookLanguage } from './notebook-language';
export type { NotebookLanguageOptions, NotebookLanguageServer } from './notebook-language';
