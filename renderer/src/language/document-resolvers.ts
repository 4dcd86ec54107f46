import type { monaco } from '../editor';

// Views other than the editor's tabs (notebook cells) tell the language providers which document each of their
// models is.

/** Where a Monaco model lives for the server: a workspace file, or (for notebooks) a cell of one. */
export interface LanguageDocument {
  path: string;
  cell?: string;
  /** Sends what was typed but not yet sent, so main has the text the editor shows (a cell's edits wait a moment). */
  flush?(): Promise<void>;
}

/**
 * Another view's models (notebook cells): which document each is, and back. Completion, hover and definition
 * in those models are the view's own; signature help, references, rename and code actions are served here.
 */
export interface DocumentResolver {
  documentOf(model: monaco.editor.ITextModel): LanguageDocument | null;
  /** The model showing a place of a document (a notebook's cell), for a peek; null when none is open. */
  modelOf(path: string, cell: string): monaco.Uri | null;
  /** The cell's number as its notebook shows it ("Cell 3"), to label it in a peek; null when unknown. */
  cellNumberOf?(path: string, cell: string): number | null;
}
const resolvers: DocumentResolver[] = [];

/** Lets another view (notebook cells) answer for its own models; the first resolver that answers wins. */
export function registerDocumentResolver(resolver: DocumentResolver): () => void {
  resolvers.unshift(resolver);
  return () => {
    const index = resolvers.indexOf(resolver);
    if (index >= 0) resolvers.splice(index, 1);
  };
}

/** The document a model is, as the first resolver that knows it says; null when none does. */
export function resolvedDocument(model: monaco.editor.ITextModel): LanguageDocument | null {
  for (const resolver of resolvers) {
    const doc = resolver.documentOf(model);
    if (doc) return doc;
  }
  return null;
}

/** The model showing a notebook's cell, as the resolvers know it; null when its editor is not mounted. */
export function resolvedCellModel(path: string, cell: string): monaco.Uri | null {
  return resolvers.map((r) => r.modelOf(path, cell)).find((u) => u) ?? null;
}

/** The cell's number as its notebook shows it; null when unknown. */
export function resolvedCellNumber(path: string, cell: string): number | null {
  return resolvers.map((r) => r.cellNumberOf?.(path, cell)).find((n) => n != null) ?? null;
}
