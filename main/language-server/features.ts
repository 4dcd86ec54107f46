import * as lsp from 'vscode-languageserver-protocol/node';
import type {
  CodeAction,
  CompletionList,
  DocumentSymbol,
  Hover,
  LspLocation,
  LspPosition,
  LspRange,
  LspTextEdit,
  SignatureHelp,
  WorkspaceSymbol,
} from '../../shared/contract';
import { completionKind, diagnostic, documentSymbols, markup, symbolKind, toLspDiagnostic } from './convert';
import { LibraryFiles } from './library-files';
import type { EditPreviews } from './rename-previews';
import type { LanguageServer } from './supervision';

/**
 * The editor's language features over the supervised server: completion, hover, signatures, navigation, symbols,
 * formatting and quick fixes (whose edits become previews). Each answers empty when the server cannot.
 */
export class LanguageFeatures {
  private lastCompletion: { id: number; items: lsp.CompletionItem[] } = { id: 0, items: [] };
  private completions = 0;
  private readonly libraryFiles = new LibraryFiles();
  /** Document symbol requests in flight, by path and document version (see documentSymbols). */
  private readonly symbolRequests = new Map<string, Promise<DocumentSymbol[]>>();

  constructor(
    private readonly server: LanguageServer,
    private readonly previews: EditPreviews,
  ) {}

  async completion(
    rel: string,
    position: LspPosition,
    triggerCharacter: string | undefined,
    requestId?: number,
  ): Promise<CompletionList | null> {
    const result = await this.server.ask(
      lsp.CompletionRequest.type,
      {
        textDocument: this.server.textDocument(rel),
        position,
        context: triggerCharacter
          ? { triggerKind: lsp.CompletionTriggerKind.TriggerCharacter, triggerCharacter }
          : { triggerKind: lsp.CompletionTriggerKind.Invoked },
      },
      `completion:${rel}`,
      requestId,
    );
    if (!result) return null;
    const items = Array.isArray(result) ? result : result.items;
    const id = ++this.completions;
    this.lastCompletion = { id, items };
    return {
      resultId: id,
      isIncomplete: Array.isArray(result) ? false : result.isIncomplete,
      items: items.map((item, index) => {
        const edit = item.textEdit;
        const range = edit ? ('range' in edit ? edit.range : edit.replace) : undefined;
        return {
          label: item.label,
          kind: completionKind(item.kind),
          ...(item.detail ? { detail: item.detail } : {}),
          ...(item.documentation ? { documentation: markup(item.documentation) } : {}),
          insertText: edit?.newText ?? item.insertText ?? item.label,
          snippet: item.insertTextFormat === lsp.InsertTextFormat.Snippet,
          ...(item.sortText ? { sortText: item.sortText } : {}),
          ...(item.filterText ? { filterText: item.filterText } : {}),
          ...(range ? { range } : {}),
          ...(item.additionalTextEdits?.length ? { additionalEdits: item.additionalTextEdits } : {}),
          resolveIndex: index,
        };
      }),
    };
  }

  async resolveCompletion(
    resultId: number,
    index: number,
  ): Promise<{ detail?: string; documentation?: ReturnType<typeof markup> }> {
    if (resultId !== this.lastCompletion.id) return {};
    const item = this.lastCompletion.items[index];
    if (!item) return {};
    const resolved = await this.server.ask(lsp.CompletionResolveRequest.type, item, 'resolveCompletion', undefined);
    if (!resolved) return {};
    return {
      ...(resolved.detail ? { detail: resolved.detail } : {}),
      ...(resolved.documentation ? { documentation: markup(resolved.documentation) } : {}),
    };
  }

  async hover(rel: string, position: LspPosition, requestId?: number): Promise<Hover | null> {
    const result = await this.server.ask(
      lsp.HoverRequest.type,
      { textDocument: this.server.textDocument(rel), position },
      `hover:${rel}`,
      requestId,
    );
    const contents = markup(result?.contents);
    if (!result || !contents || !contents.value.trim()) return null;
    return { contents, ...(result.range ? { range: result.range } : {}) };
  }

  async signatureHelp(rel: string, position: LspPosition, requestId?: number): Promise<SignatureHelp | null> {
    const result = await this.server.ask(
      lsp.SignatureHelpRequest.type,
      { textDocument: this.server.textDocument(rel), position },
      `signature:${rel}`,
      requestId,
    );
    if (!result || result.signatures.length === 0) return null;
    const activeSignature = result.activeSignature ?? 0;
    return {
      activeSignature,
      // The signature's own active parameter wins over the answer's (LSP 3.16); pyright sends both, differing.
      activeParameter: result.signatures[activeSignature]?.activeParameter ?? result.activeParameter ?? 0,
      signatures: result.signatures.map((s) => ({
        label: s.label,
        ...(s.documentation ? { documentation: markup(s.documentation) } : {}),
        parameters: (s.parameters ?? []).map((p) => {
          let label: [number, number];
          if (typeof p.label === 'string') {
            const start = s.label.indexOf(p.label);
            label = start < 0 ? [0, 0] : [start, start + p.label.length];
          } else label = p.label;
          return { label, ...(p.documentation ? { documentation: markup(p.documentation) } : {}) };
        }),
      })),
    };
  }

  async definition(
    rel: string,
    position: LspPosition,
    kind: 'definition' | 'declaration' | 'typeDefinition',
    requestId?: number,
  ): Promise<LspLocation[]> {
    const params = { textDocument: this.server.textDocument(rel), position };
    const key = `${kind}:${rel}`;
    const result =
      kind === 'declaration'
        ? await this.server.ask(lsp.DeclarationRequest.type, params, key, requestId)
        : kind === 'typeDefinition'
          ? await this.server.ask(lsp.TypeDefinitionRequest.type, params, key, requestId)
          : await this.server.ask(lsp.DefinitionRequest.type, params, key, requestId);
    if (!result) return [];
    // Into the standard library or site-packages too, as VS Code does: those files open read-only.
    const list: (lsp.Location | lsp.LocationLink)[] = Array.isArray(result) ? result : [result];
    return list
      .map((l) => this.server.uris.location(l) ?? this.libraryFiles.place(l))
      .filter((l): l is LspLocation => l !== null);
  }

  /** A library file a definition pointed at, read-only; no other file outside the workspace. */
  readLibraryFile(file: string): Promise<{ text: string }> {
    return this.libraryFiles.read(file);
  }

  async references(
    rel: string,
    position: LspPosition,
    includeDeclaration: boolean,
    requestId?: number,
  ): Promise<LspLocation[]> {
    const result = await this.server.ask(
      lsp.ReferencesRequest.type,
      { textDocument: this.server.textDocument(rel), position, context: { includeDeclaration } },
      `references:${rel}`,
      requestId,
    );
    return this.server.uris.locations(result);
  }

  /**
   * A document's symbols. Several views ask at once (the breadcrumb, the outline, Monaco's own provider): a request
   * for the same version of the document joins the one in flight. Superseding it instead answered the first asker
   * with no symbols, which it kept (the breadcrumb stayed empty until the next edit). A shared request is not
   * cancelled for one asker (a cursor that moved on): it is cheap, and the others still want its answer.
   */
  documentSymbols(rel: string): Promise<DocumentSymbol[]> {
    const textDocument = this.server.textDocument(rel);
    const key = `${rel}\n${this.server.docs.get(rel)?.version ?? 'closed'}`;
    const inFlight = this.symbolRequests.get(key);
    if (inFlight) return inFlight;
    const asking = this.server
      .ask(lsp.DocumentSymbolRequest.type, { textDocument }, null, undefined)
      .then(documentSymbols)
      .finally(() => this.symbolRequests.delete(key));
    this.symbolRequests.set(key, asking);
    return asking;
  }

  async workspaceSymbols(query: string, requestId?: number): Promise<WorkspaceSymbol[]> {
    const result = await this.server.ask(lsp.WorkspaceSymbolRequest.type, { query }, 'workspaceSymbols', requestId);
    const symbols: WorkspaceSymbol[] = [];
    for (const s of result ?? []) {
      if (!('range' in s.location)) continue;
      const location = this.server.uris.location(s.location);
      if (!location) continue;
      symbols.push({
        name: s.name,
        kind: symbolKind(s.kind),
        ...(s.containerName ? { containerName: s.containerName } : {}),
        location,
      });
    }
    return symbols;
  }

  async format(
    rel: string,
    range: LspRange | undefined,
    options: { tabSize: number; insertSpaces: boolean },
    requestId?: number,
  ): Promise<LspTextEdit[]> {
    const caps = this.server.capabilities;
    if (range && caps?.documentRangeFormattingProvider) {
      const edits = await this.server.ask(
        lsp.DocumentRangeFormattingRequest.type,
        { textDocument: this.server.textDocument(rel), range, options },
        `format:${rel}`,
        requestId,
      );
      return edits ?? [];
    }
    if (!caps?.documentFormattingProvider) return [];
    const edits = await this.server.ask(
      lsp.DocumentFormattingRequest.type,
      { textDocument: this.server.textDocument(rel), options },
      `format:${rel}`,
      requestId,
    );
    return edits ?? [];
  }

  async codeActions(rel: string, range: LspRange, only: 'quickfix' | 'all', requestId?: number): Promise<CodeAction[]> {
    const asked = this.server.docs.snapshot();
    const inRange = this.server
      .diagnosticsOf(rel)
      .filter((d) => d.range.start.line <= range.end.line && d.range.end.line >= range.start.line);
    const result = await this.server.ask(
      lsp.CodeActionRequest.type,
      {
        textDocument: this.server.textDocument(rel),
        range,
        context: { diagnostics: inRange.map(toLspDiagnostic), ...(only === 'quickfix' ? { only: ['quickfix'] } : {}) },
      },
      `codeActions:${rel}`,
      requestId,
    );
    const actions: CodeAction[] = [];
    for (const action of result ?? []) {
      // Commands would run in the server with effects Kiln cannot preview; only edits are offered.
      if (!('edit' in action) || !action.edit) continue;
      actions.push({
        title: action.title,
        ...(action.kind ? { kind: action.kind } : {}),
        ...(action.isPreferred ? { isPreferred: true } : {}),
        edit: await this.previews.preview(action.edit, asked),
        ...(action.diagnostics ? { diagnostics: action.diagnostics.map(diagnostic) } : {}),
      });
    }
    return actions;
  }
}
