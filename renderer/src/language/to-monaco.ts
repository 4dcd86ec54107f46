import type { CompletionEntry, DocumentSymbol, Markup } from '../../../shared/contract';
import { monaco } from '../editor';
import { toMonacoRange } from './language-client';

// The language server's answers as Monaco's types: completion items, markup, document symbols.

export type KilnSuggestion = monaco.languages.CompletionItem & { kiln?: { resultId: number; resolveIndex?: number } };

const COMPLETION_KIND: Record<CompletionEntry['kind'], monaco.languages.CompletionItemKind> = {
  text: monaco.languages.CompletionItemKind.Text,
  method: monaco.languages.CompletionItemKind.Method,
  function: monaco.languages.CompletionItemKind.Function,
  constructor: monaco.languages.CompletionItemKind.Constructor,
  field: monaco.languages.CompletionItemKind.Field,
  variable: monaco.languages.CompletionItemKind.Variable,
  class: monaco.languages.CompletionItemKind.Class,
  interface: monaco.languages.CompletionItemKind.Interface,
  module: monaco.languages.CompletionItemKind.Module,
  property: monaco.languages.CompletionItemKind.Property,
  unit: monaco.languages.CompletionItemKind.Unit,
  value: monaco.languages.CompletionItemKind.Value,
  enum: monaco.languages.CompletionItemKind.Enum,
  keyword: monaco.languages.CompletionItemKind.Keyword,
  snippet: monaco.languages.CompletionItemKind.Snippet,
  color: monaco.languages.CompletionItemKind.Color,
  file: monaco.languages.CompletionItemKind.File,
  reference: monaco.languages.CompletionItemKind.Reference,
  folder: monaco.languages.CompletionItemKind.Folder,
  enumMember: monaco.languages.CompletionItemKind.EnumMember,
  constant: monaco.languages.CompletionItemKind.Constant,
  struct: monaco.languages.CompletionItemKind.Struct,
  event: monaco.languages.CompletionItemKind.Event,
  operator: monaco.languages.CompletionItemKind.Operator,
  typeParameter: monaco.languages.CompletionItemKind.TypeParameter,
};

export function toSuggestion(item: CompletionEntry, wordRange: monaco.Range, resultId: number): KilnSuggestion {
  return {
    label: item.label,
    kind: COMPLETION_KIND[item.kind],
    detail: item.detail,
    documentation: toMarkdown(item.documentation),
    insertText: item.insertText,
    insertTextRules: item.snippet ? monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet : undefined,
    sortText: item.sortText,
    filterText: item.filterText,
    range: item.range ? toMonacoRange(item.range) : wordRange,
    additionalTextEdits: item.additionalEdits?.map((e) => ({ range: toMonacoRange(e.range), text: e.newText })),
    kiln: { resultId, resolveIndex: item.resolveIndex },
  };
}

export function toMarkdown(markup: Markup | undefined): monaco.IMarkdownString | undefined {
  if (!markup) return undefined;
  // The server's text is shown, never trusted as HTML or command links.
  if (markup.kind === 'plaintext') return { value: '```\n' + markup.value + '\n```', isTrusted: false };
  return { value: markup.value, isTrusted: false, supportHtml: false };
}

const SYMBOL_KIND: Record<string, monaco.languages.SymbolKind> = Object.fromEntries(
  Object.entries(monaco.languages.SymbolKind)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v as monaco.languages.SymbolKind]),
);

export function toMonacoSymbol(symbol: DocumentSymbol): monaco.languages.DocumentSymbol {
  return {
    name: symbol.name,
    detail: symbol.detail ?? '',
    kind: SYMBOL_KIND[symbol.kind] ?? monaco.languages.SymbolKind.Variable,
    tags: [],
    range: toMonacoRange(symbol.range),
    selectionRange: toMonacoRange(symbol.selectionRange),
    children: symbol.children.map(toMonacoSymbol),
  };
}
