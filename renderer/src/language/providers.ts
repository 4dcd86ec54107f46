import type {
  EditPreview,
  KilnBridge,
  LspLocation,
  LspPosition,
  RequestArgs,
  RequestChannel,
  RequestResult,
} from '../../../shared/contract';
import { monaco } from '../editor';
import type { TextModels } from '../editor';
import { resolvedDocument, type LanguageDocument } from './document-resolvers';
import { toLspRange, toMonacoRange } from './language-client';
import { libraryModel } from './library-files';
import { PeekModels, keepPeekCopiesReadOnly } from './peek-models';
import { toMarkdown, toMonacoSymbol, toSuggestion, type KilnSuggestion } from './to-monaco';

/** Channels the resolved views serve with their own providers. */
type OwnChannel = 'language.completion' | 'language.hover' | 'language.definition';

export interface ProviderDeps {
  bridge: KilnBridge;
  textModels: TextModels;
  /** Shows a rename's (or a quick fix's) edits and applies them if the operator accepts; reports its own errors. */
  reviewEdits(preview: EditPreview | Promise<EditPreview>, title: string): Promise<void>;
  /** Sends the typed changes still waiting for their batch, so main answers about the text the editor shows. */
  flushChanges(): void;
}

// process-wide: ids only grow; unique across windows is all they need to be.
let requestSeq = 0;

/** Monaco's features for Python, each a request to main's language server, cancelled when Monaco drops it. */
export function registerPythonProviders(deps: ProviderDeps): monaco.IDisposable {
  const { bridge, textModels } = deps;
  const docOf = (model: monaco.editor.ITextModel): LanguageDocument | null => {
    // Every feature asks through here first: the server must have what was typed before the question.
    deps.flushChanges();
    const resolved = resolvedDocument(model);
    if (resolved) return resolved;
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
