import type {
  CompletionEntry,
  EditPreview,
  KilnBridge,
  LspLocation,
  LspPosition,
  Markup,
  RequestArgs,
  RequestChannel,
  RequestResult,
} from '../../../shared/contract';
import { monaco } from '../editor';
import type { TextModels } from '../editor';
import { toLspRange, toMonacoRange } from './language-client';
import { libraryModel } from './library-files';

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

/** Channels the resolved views serve with their own providers. */
type OwnChannel = 'language.completion' | 'language.hover' | 'language.definition';

/** Lets another view (notebook cells) answer for its own models; the first resolver that answers wins. */
export function registerDocumentResolver(resolver: DocumentResolver): () => void {
  resolvers.unshift(resolver);
  return () => {
    const index = resolvers.indexOf(resolver);
    if (index >= 0) resolvers.splice(index, 1);
  };
}

export interface ProviderDeps {
  bridge: KilnBridge;
  textModels: TextModels;
  /** Shows a rename's (or a quick fix's) edits and applies them if the operator accepts; reports its own errors. */
  reviewEdits(preview: EditPreview | Promise<EditPreview>, title: string): Promise<void>;
}

// process-wide: ids only grow; unique across windows is all they need to be.
let requestSeq = 0;

/** Monaco's features for Python, each a request to main's language server, cancelled when Monaco drops it. */
export function registerPythonProviders(deps: ProviderDeps): monaco.IDisposable {
  const { bridge, textModels } = deps;
  const docOf = (model: monaco.editor.ITextModel): LanguageDocument | null => {
    for (const resolver of resolvers) {
      const doc = resolver.documentOf(model);
      if (doc) return doc;
    }
    const path = textModels.pathOf(model);
    return path === undefined ? null : { path };
  };
  /** Sends a request that Monaco's token can cancel; any failure is "no answer", never an error in the editor. */
  const ask = async <C extends RequestChannel>(
    channel: C,
    args: RequestArgs<C>,
    token: monaco.CancellationToken,
  ): Promise<RequestResult<C> | null> => {
    const requestId = ++requestSeq;
    const onCancel = token.onCancellationRequested(
      () => void bridge.request('language.cancel', { requestId }).catch(() => undefined),
    );
    try {
      return await bridge.request(channel, { ...args, requestId } as RequestArgs<C>);
    } catch {
      return null;
    } finally {
      onCancel.dispose();
    }
  };
  /** The document and position a request is asked at; null for a model that is no document, or a view's own channel. */
  const at = async (model: monaco.editor.ITextModel, position: monaco.IPosition, channel?: OwnChannel) => {
    const doc = docOf(model);
    if (!doc || (doc.cell !== undefined && channel)) return null;
    await doc.flush?.();
    const lsp: LspPosition = { line: position.lineNumber - 1, character: position.column - 1 };
    return { path: doc.path, position: lsp, ...(doc.cell ? { cell: doc.cell } : {}) };
  };
  /** A whole file's document (symbols, formatting are asked of files, not of cells). */
  const fileOf = (model: monaco.editor.ITextModel): LanguageDocument | null => {
    const doc = docOf(model);
    return doc && doc.cell === undefined ? doc : null;
  };
  const peek = new PeekModels(bridge, textModels);
  const toLocations = async (locations: LspLocation[]): Promise<monaco.languages.Location[]> => {
    const result: monaco.languages.Location[] = [];
    for (const location of locations) {
      const uri = location.library
        ? await libraryModel(bridge, location.path).then(
            (m) => m.uri,
            () => null,
          )
        : location.cell === undefined
          ? await peek.uriFor(location.path)
          : peek.cellUriFor(location.path, location.cell);
      if (uri) result.push({ uri, range: toMonacoRange(location.range) });
    }
    return result;
  };

  const disposables: monaco.IDisposable[] = [peek, keepPeekCopiesReadOnly()];
  const language = 'python';
  disposables.push(
    monaco.languages.registerCompletionItemProvider(language, {
      triggerCharacters: ['.', '[', '"', "'"],
      provideCompletionItems: async (model, position, context, token) => {
        const args = await at(model, position, 'language.completion');
        if (!args) return undefined;
        const list = await ask(
          'language.completion',
          { ...args, ...(context.triggerCharacter ? { triggerCharacter: context.triggerCharacter } : {}) },
          token,
        );
        if (!list) return undefined;
        const word = model.getWordUntilPosition(position);
        const wordRange = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
        return {
          incomplete: list.isIncomplete,
          suggestions: list.items.map((item) => toSuggestion(item, wordRange, list.resultId)),
        };
      },
      resolveCompletionItem: async (item, token) => {
        const meta = (item as KilnSuggestion).kiln;
        if (!meta || meta.resolveIndex === undefined || (item.documentation && item.detail)) return item;
        const resolved = await ask(
          'language.resolveCompletion',
          { resultId: meta.resultId, resolveIndex: meta.resolveIndex },
          token,
        );
        if (!resolved) return item;
        return {
          ...item,
          detail: item.detail ?? resolved.detail,
          documentation: item.documentation ?? toMarkdown(resolved.documentation),
        };
      },
    }),
    monaco.languages.registerHoverProvider(language, {
      provideHover: async (model, position, token) => {
        const args = await at(model, position, 'language.hover');
        const hover = args && (await ask('language.hover', args, token));
        if (!hover) return undefined;
        return {
          contents: [toMarkdown(hover.contents)!],
          ...(hover.range ? { range: toMonacoRange(hover.range) } : {}),
        };
      },
    }),
    monaco.languages.registerSignatureHelpProvider(language, {
      signatureHelpTriggerCharacters: ['(', ','],
      signatureHelpRetriggerCharacters: [')'],
      provideSignatureHelp: async (model, position, token) => {
        const args = await at(model, position);
        const help = args && (await ask('language.signatureHelp', args, token));
        if (!help) return undefined;
        return {
          value: {
            activeSignature: help.activeSignature,
            activeParameter: help.activeParameter,
            signatures: help.signatures.map((s) => ({
              label: s.label,
              documentation: toMarkdown(s.documentation),
              parameters: s.parameters.map((p) => ({ label: p.label, documentation: toMarkdown(p.documentation) })),
            })),
          },
          dispose: () => undefined,
        };
      },
    }),
  );
  const places =
    (kind: 'definition' | 'declaration' | 'typeDefinition') =>
    async (model: monaco.editor.ITextModel, position: monaco.Position, token: monaco.CancellationToken) => {
      const args = await at(model, position, 'language.definition');
      const found = args && (await ask('language.definition', { ...args, kind }, token));
      return found ? toLocations(found) : undefined;
    };
  disposables.push(
    monaco.languages.registerDefinitionProvider(language, { provideDefinition: places('definition') }),
    monaco.languages.registerDeclarationProvider(language, { provideDeclaration: places('declaration') }),
    monaco.languages.registerTypeDefinitionProvider(language, { provideTypeDefinition: places('typeDefinition') }),
  );
  disposables.push(
    monaco.languages.registerReferenceProvider(language, {
      provideReferences: async (model, position, context, token) => {
        const args = await at(model, position);
        const places =
          args &&
          (await ask('language.references', { ...args, includeDeclaration: context.includeDeclaration }, token));
        return places ? toLocations(places) : undefined;
      },
    }),
    monaco.languages.registerRenameProvider(language, {
      resolveRenameLocation: async (model, position, token) => {
        const args = await at(model, position);
        const place = args && (await ask('language.prepareRename', args, token));
        if (!place) return { range: new monaco.Range(1, 1, 1, 1), text: '', rejectReason: 'This cannot be renamed.' };
        return { range: toMonacoRange(place.range), text: place.placeholder };
      },
      provideRenameEdits: async (model, position, newName) => {
        const args = await at(model, position);
        if (!args) return { edits: [] };
        // Monaco would apply the edits to its models at once; Kiln shows every file first, then writes through main.
        // The flow goes on outside Monaco's rename (which cancels itself when focus moves to the preview).
        void deps.reviewEdits(bridge.request('language.rename', { ...args, newName }), `Rename to '${newName}'`);
        return { edits: [] };
      },
    }),
    monaco.languages.registerDocumentSymbolProvider(language, {
      provideDocumentSymbols: async (model) => {
        const doc = fileOf(model);
        const symbols = doc && (await bridge.request('language.documentSymbols', { path: doc.path }).catch(() => null));
        return symbols ? symbols.map(toMonacoSymbol) : undefined;
      },
    }),
    monaco.languages.registerDocumentFormattingEditProvider(language, {
      provideDocumentFormattingEdits: async (model, options, token) => {
        const doc = fileOf(model);
        const edits =
          doc &&
          (await ask(
            'language.format',
            { path: doc.path, tabSize: options.tabSize, insertSpaces: options.insertSpaces },
            token,
          ));
        return edits?.map((e) => ({ range: toMonacoRange(e.range), text: e.newText }));
      },
    }),
    monaco.languages.registerDocumentRangeFormattingEditProvider(language, {
      provideDocumentRangeFormattingEdits: async (model, range, options, token) => {
        const doc = fileOf(model);
        const edits =
          doc &&
          (await ask(
            'language.format',
            { path: doc.path, range: toLspRange(range), tabSize: options.tabSize, insertSpaces: options.insertSpaces },
            token,
          ));
        return edits?.map((e) => ({ range: toMonacoRange(e.range), text: e.newText }));
      },
    }),
    monaco.languages.registerCodeActionProvider(language, {
      provideCodeActions: async (model, range, context, token) => {
        const doc = docOf(model);
        if (!doc) return undefined;
        await doc.flush?.();
        const actions = await ask(
          'language.codeActions',
          {
            path: doc.path,
            range: toLspRange(range),
            only: context.only === 'quickfix' ? 'quickfix' : 'all',
            ...(doc.cell ? { cell: doc.cell } : {}),
          },
          token,
        );
        if (!actions) return undefined;
        const result: monaco.languages.CodeAction[] = [];
        for (const action of actions) {
          const files = action.edit?.files ?? [];
          const onlyHere =
            files.length === 1 && files[0].path === doc.path && files[0].edits.every((e) => e.cell === doc.cell);
          result.push({
            title: action.title,
            kind: action.kind,
            isPreferred: action.isPreferred,
            // Edits of this buffer apply in it (undoable, saved by the operator); others are previewed first.
            ...(onlyHere
              ? {
                  edit: {
                    edits: files[0].edits.map((e) => ({
                      resource: model.uri,
                      textEdit: { range: toMonacoRange(e.range), text: e.newText },
                      versionId: undefined,
                    })),
                  },
                }
              : action.edit
                ? { command: { id: REVIEW_EDITS_COMMAND, title: action.title, arguments: [action.edit, action.title] } }
                : {}),
          });
        }
        return { actions: result, dispose: () => undefined };
      },
    }),
    monaco.editor.registerCommand(REVIEW_EDITS_COMMAND, (_accessor, preview: EditPreview, title: string) =>
      deps.reviewEdits(preview, title),
    ),
  );
  return { dispose: () => disposables.forEach((d) => d.dispose()) };
}

const REVIEW_EDITS_COMMAND = 'kiln.language.reviewEdits';

type KilnSuggestion = monaco.languages.CompletionItem & { kiln?: { resultId: number; resolveIndex?: number } };

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

function toSuggestion(item: CompletionEntry, wordRange: monaco.Range, resultId: number): KilnSuggestion {
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

function toMarkdown(markup: Markup | undefined): monaco.IMarkdownString | undefined {
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

function toMonacoSymbol(symbol: import('../../../shared/contract').DocumentSymbol): monaco.languages.DocumentSymbol {
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

/**
 * Models for showing places in files that have no tab (a peek of references, a definition's preview): read-only
 * copies read from disk, replaced when read again. A file with a tab is shown in its own model.
 */
class PeekModels implements monaco.IDisposable {
  private readonly models = new Map<string, monaco.editor.ITextModel>();
  /** Copies of cells' models, by notebook and cell id. */
  private readonly cellModels = new Map<string, monaco.editor.ITextModel>();

  constructor(
    private readonly bridge: KilnBridge,
    private readonly textModels: TextModels,
  ) {}

  async uriFor(path: string): Promise<monaco.Uri | null> {
    const open = this.textModels.modelIfOpen(path);
    if (open) return open.uri;
    let content;
    try {
      content = await this.bridge.request('workspace.read', { path });
    } catch {
      return null;
    }
    if (content.text === null) return null;
    const existing = this.models.get(path);
    if (existing && !existing.isDisposed()) {
      if (existing.getValue() !== content.text) existing.setValue(content.text);
      return existing.uri;
    }
    const model = monaco.editor.createModel(content.text, 'python', peekUri(path));
    this.models.set(path, model);
    return model.uri;
  }

  /**
   * A notebook cell's place, for a peek of references: a copy of the cell's model under a URI whose name is
   * "Cell N" (the peek labels places by their URI; a cell editor's model is just a number), its notebook the
   * folder. Null when the cell's editor is not mounted.
   */
  cellUriFor(path: string, cell: string): monaco.Uri | null {
    const live = resolvers.map((r) => r.modelOf(path, cell)).find((u) => u);
    const model = live && monaco.editor.getModel(live);
    if (!model) return null;
    const number = resolvers.map((r) => r.cellNumberOf?.(path, cell)).find((n) => n != null);
    const uri = cellPeekUri(path, cell, number ?? null);
    const key = `${path}\n${cell}`;
    const existing = this.cellModels.get(key);
    if (existing && !existing.isDisposed() && existing.uri.toString() === uri.toString()) {
      if (existing.getValue() !== model.getValue()) existing.setValue(model.getValue());
      return existing.uri;
    }
    existing?.dispose();
    const copy = monaco.editor.createModel(model.getValue(), 'python', uri);
    mirrorEdits(copy, model);
    this.cellModels.set(key, copy);
    return copy.uri;
  }

  dispose(): void {
    for (const model of [...this.models.values(), ...this.cellModels.values()]) model.dispose();
    this.models.clear();
    this.cellModels.clear();
  }
}

/**
 * Keeps a cell's peek copy and the cell's own model the same text: typing in the peek edits the cell (one undo step
 * in it, as typed there), and the cell's edits show in the peek. Ends when either model goes.
 */
function mirrorEdits(copy: monaco.editor.ITextModel, cell: monaco.editor.ITextModel): void {
  let applying = false;
  const follow = (from: monaco.editor.ITextModel, to: monaco.editor.ITextModel) =>
    from.onDidChangeContent((event) => {
      if (applying || to.isDisposed()) return;
      applying = true;
      try {
        // The changes' ranges are all in the text before the edit, as one batch of edits takes them.
        const edits = event.changes.map((change) => ({ range: change.range, text: change.text }));
        if (to === cell) to.pushEditOperations(null, edits, () => null);
        else to.applyEdits(edits);
      } finally {
        applying = false;
      }
    });
  const links = [follow(copy, cell), follow(cell, copy)];
  const end = () => links.forEach((link) => link.dispose());
  copy.onWillDispose(end);
  cell.onWillDispose(end);
}

export const PEEK_SCHEME = 'kiln-peek';
/** A notebook cell shown in a peek: `/<notebook path>/Cell N`, the cell's id in the query. */
export const CELL_PEEK_SCHEME = 'kiln-cell';

function cellPeekUri(path: string, cell: string, number: number | null): monaco.Uri {
  const name = number === null ? 'Cell' : `Cell ${number}`;
  return monaco.Uri.from({
    scheme: CELL_PEEK_SCHEME,
    path: `/${path}/${name}`,
    query: `cell=${encodeURIComponent(cell)}`,
  });
}

/** The notebook and cell a cell peek's URI names. */
export function cellOfPeekUri(uri: monaco.Uri): { path: string; cell: string } | null {
  const cell = new URLSearchParams(uri.query).get('cell');
  if (uri.scheme !== CELL_PEEK_SCHEME || cell === null) return null;
  return { path: uri.path.slice(1, uri.path.lastIndexOf('/')), cell };
}

/** What typing in a peek of a file without a tab says: the copy there is not the file. */
export const PEEK_READ_ONLY_MESSAGE = 'This file has no tab here: open it (Enter or double-click) to edit it.';

/**
 * A peek's preview of a file without a tab shows a copy read from disk, which no save would write: every editor
 * showing such a copy is read-only and says how to edit the file, so typing there is never lost without a word.
 */
function keepPeekCopiesReadOnly(): monaco.IDisposable {
  const madeReadOnly = new WeakSet<monaco.editor.ICodeEditor>();
  const follow = (editor: monaco.editor.ICodeEditor) => {
    const copy = editor.getModel()?.uri.scheme === PEEK_SCHEME;
    if (copy) {
      madeReadOnly.add(editor);
      editor.updateOptions({ readOnly: true, readOnlyMessage: { value: PEEK_READ_ONLY_MESSAGE } });
    } else if (madeReadOnly.delete(editor)) {
      editor.updateOptions({ readOnly: false });
    }
  };
  return monaco.editor.onDidCreateEditor((editor) => {
    follow(editor);
    const sub = editor.onDidChangeModel(() => follow(editor));
    editor.onDidDispose(() => sub.dispose());
  });
}

function peekUri(path: string): monaco.Uri {
  return monaco.Uri.from({ scheme: PEEK_SCHEME, path: `/${path}` });
}
