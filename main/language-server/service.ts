import type {
  CodeAction,
  CompletionList,
  DocumentDiagnostics,
  DocumentSymbol,
  EditPreview,
  FileEdits,
  FsChange,
  Hover,
  LanguageStatus,
  LspLocation,
  LspPosition,
  LspRange,
  LspTextEdit,
  SignatureHelp,
  WorkspaceSymbol,
} from '../../shared/contract';
import { toDisposable, type IDisposable } from '../../shared/base/lifecycle';
import type { Event } from '../../shared/base/event';
import type { markup } from './convert';
import { LanguageFeatures } from './features';
import { EditPreviews, type EditPreviewOptions } from './rename-previews';
import { LanguageServer, type LanguageServerOptions } from './supervision';

export { isPython } from './python-paths';

export type LanguageServiceOptions = LanguageServerOptions & EditPreviewOptions;

/**
 * The workspace's Python language service, as the `language.*` channels and the notebooks use it: one facade over
 * the server's supervision (`supervision.ts`), the editor features (`features.ts`) and the rename and quick-fix
 * previews (`rename-previews.ts`).
 */
export class LanguageService implements IDisposable {
  private readonly server: LanguageServer;
  private readonly previews: EditPreviews;
  private readonly features: LanguageFeatures;
  /** Who holds documents only in memory (the notebooks' mirror), once it has said so. */
  private inMemory: ((rel: string) => boolean) | null = null;

  constructor(options: LanguageServiceOptions) {
    this.server = new LanguageServer(options);
    this.previews = new EditPreviews(this.server, {
      ...options,
      inMemory: (rel) => this.inMemory?.(rel) ?? options.inMemory?.(rel) ?? false,
    });
    this.features = new LanguageFeatures(this.server, this.previews);
  }

  /** Documents held only in the server's memory (notebooks' virtual documents), from their owner; dispose to let go. */
  keepInMemory(isInMemory: (rel: string) => boolean): IDisposable {
    this.inMemory = isInMemory;
    return toDisposable(() => {
      if (this.inMemory === isInMemory) this.inMemory = null;
    });
  }

  // ---- supervision ----

  /** The server's state changed (starting, ready, crashed, off...). */
  get onDidChangeStatus(): Event<LanguageStatus> {
    return this.server.onDidChangeStatus;
  }

  /** A document's diagnostics as the server published them (a notebook's virtual document's among them). */
  get onDidPublishDiagnostics(): Event<DocumentDiagnostics> {
    return this.server.onDidPublishDiagnostics;
  }

  getStatus(): LanguageStatus {
    return this.server.getStatus();
  }

  allDiagnostics(): DocumentDiagnostics[] {
    return this.server.allDiagnostics();
  }

  /** Whether the server process is up (tests, benches). */
  get pid(): number | undefined {
    return this.server.pid;
  }

  didOpen(rel: string, version: number, text: string): boolean {
    return this.server.didOpen(rel, version, text);
  }

  didChange(rel: string, version: number, changes: { range?: LspRange; text: string }[]): boolean {
    return this.server.didChange(rel, version, changes);
  }

  didClose(rel: string): boolean {
    return this.server.didClose(rel);
  }

  applyChange(change: FsChange): void {
    this.server.applyChange(change);
  }

  settingsChanged(): Promise<void> {
    return this.server.settingsChanged();
  }

  cancel(requestId: number): boolean {
    return this.server.cancel(requestId);
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  dispose(): Promise<void> {
    return this.server.dispose();
  }

  // ---- features ----

  completion(
    rel: string,
    position: LspPosition,
    triggerCharacter: string | undefined,
    requestId?: number,
  ): Promise<CompletionList | null> {
    return this.features.completion(rel, position, triggerCharacter, requestId);
  }

  resolveCompletion(
    resultId: number,
    index: number,
  ): Promise<{ detail?: string; documentation?: ReturnType<typeof markup> }> {
    return this.features.resolveCompletion(resultId, index);
  }

  hover(rel: string, position: LspPosition, requestId?: number): Promise<Hover | null> {
    return this.features.hover(rel, position, requestId);
  }

  signatureHelp(rel: string, position: LspPosition, requestId?: number): Promise<SignatureHelp | null> {
    return this.features.signatureHelp(rel, position, requestId);
  }

  definition(
    rel: string,
    position: LspPosition,
    kind: 'definition' | 'declaration' | 'typeDefinition',
    requestId?: number,
  ): Promise<LspLocation[]> {
    return this.features.definition(rel, position, kind, requestId);
  }

  readLibraryFile(file: string): Promise<{ text: string }> {
    return this.features.readLibraryFile(file);
  }

  references(
    rel: string,
    position: LspPosition,
    includeDeclaration: boolean,
    requestId?: number,
  ): Promise<LspLocation[]> {
    return this.features.references(rel, position, includeDeclaration, requestId);
  }

  documentSymbols(rel: string): Promise<DocumentSymbol[]> {
    return this.features.documentSymbols(rel);
  }

  workspaceSymbols(query: string, requestId?: number): Promise<WorkspaceSymbol[]> {
    return this.features.workspaceSymbols(query, requestId);
  }

  format(
    rel: string,
    range: LspRange | undefined,
    options: { tabSize: number; insertSpaces: boolean },
    requestId?: number,
  ): Promise<LspTextEdit[]> {
    return this.features.format(rel, range, options, requestId);
  }

  codeActions(rel: string, range: LspRange, only: 'quickfix' | 'all', requestId?: number): Promise<CodeAction[]> {
    return this.features.codeActions(rel, range, only, requestId);
  }

  // ---- rename previews ----

  prepareRename(
    rel: string,
    position: LspPosition,
    requestId?: number,
  ): Promise<{ range: LspRange; placeholder: string } | null> {
    return this.previews.prepareRename(rel, position, requestId);
  }

  rename(rel: string, position: LspPosition, newName: string, requestId?: number): Promise<EditPreview> {
    return this.previews.rename(rel, position, newName, requestId);
  }

  applyEdits(previewId: number): Promise<{ written: string[]; toBuffers: FileEdits[] }> {
    return this.previews.applyEdits(previewId);
  }
}
