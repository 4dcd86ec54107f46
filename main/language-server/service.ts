import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as lsp from 'vscode-languageserver-protocol/node';
import type {
  CodeAction,
  CompletionList,
  DocumentDiagnostics,
  DocumentSymbol,
  EditPreview,
  EventChannel,
  EventPayload,
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
import { KilnError } from '../../shared/errors';
import type { IDisposable } from '../../shared/base/lifecycle';
import { OpenDocuments } from './documents';
import { UriMapper, completionKind, diagnostic, documentSymbols, markup, symbolKind, toLspDiagnostic } from './convert';
import {
  SERVER_NAME,
  serverVersion,
  startServerProcess,
  type NodeScriptLauncher,
  type ServerProcess,
} from './server-process';
import { applyTextEdits } from './text';
import { LibraryFiles } from './library-files';
import { writeUntrustedProject } from './untrusted-project';

export interface LanguageServiceOptions {
  /** The workspace folder (realpath'd). */
  root: string;
  /** The app's data folder: an empty folder there stands in for the project's venvPath when untrusted. */
  dataDir: string;
  /** `python.languageServer` is on. */
  enabled(): boolean;
  /** `python.diagnostics`: open files only, or the whole workspace. */
  diagnosticsScope(): 'openFiles' | 'workspace';
  trusted(): boolean;
  /** The interpreter notebooks run with (its site-packages); null when none. */
  interpreter(): Promise<string | null>;
  /** The file on disk (through the workspace's guard). */
  readFile(rel: string): Promise<{ text: string; hash: string }>;
  /**
   * Documents that exist only in the server's memory (notebooks' virtual documents): a preview takes their
   * open text and hands their edits back as buffers, never reading or writing them on disk.
   */
  inMemory?(rel: string): boolean;
  /** Writes through the workspace, so the change feed and local history see it; refuses when `expectedHash` is stale. */
  writeFile(rel: string, text: string, expectedHash: string): Promise<void>;
  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void;
  /** Stop the server after this long with no Python document open (default 10 minutes). */
  idleStopMs?: number;
  /** Back-off before the n-th restart after a crash (default 1 s, doubling, at most 30 s). */
  restartDelayMs?(attempt: number): number;
  /** How long a request waits for a starting server before answering empty (default 10 s). */
  readyWaitMs?: number;
  /** How the Electron host runs a Node script (utilityProcess); absent: main's own runtime over stdio. */
  launcher?: NodeScriptLauncher;
}

/** Crashes within this window count towards giving up. */
const CRASH_WINDOW_MS = 3 * 60_000;
const MAX_CRASHES = 5;
const SHUTDOWN_GRACE_MS = 2000;

const CONFIG_FILES = ['pyrightconfig.json', 'pyproject.toml'];

interface Running {
  process: ServerProcess;
  capabilities: lsp.ServerCapabilities;
  /** Set when Kiln itself stops it (idle, pref off, exit): the exit is no crash. */
  stopping: boolean;
}

/**
 * One pyright language server for the workspace, started when the first Python document opens, restarted with
 * back-off when it crashes, stopped when idle and on dispose. Requests never wait on the keystroke path: the
 * renderer sends them and goes on; a superseded one is cancelled at the server; a slow, starting or dead server
 * answers the empty result.
 */
export class LanguageService implements IDisposable {
  private readonly uris: UriMapper;
  private readonly docs = new OpenDocuments();
  private readonly diagnostics = new Map<string, DocumentDiagnostics>();
  private running: Running | null = null;
  private starting: Promise<Running | null> | null = null;
  private crashes: number[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  private status: LanguageStatus;
  /** In-flight requests by supersession key (kind + document) and by the renderer's id. */
  private readonly inFlight = new Map<string, lsp.CancellationTokenSource>();
  private readonly byRequestId = new Map<number, lsp.CancellationTokenSource>();
  private lastCompletion: { id: number; items: lsp.CompletionItem[] } = { id: 0, items: [] };
  private readonly previews = new Map<number, EditPreview>();
  private readonly libraryFiles = new LibraryFiles();
  /** Document symbol requests in flight, by path and document version (see documentSymbols). */
  private readonly symbolRequests = new Map<string, Promise<DocumentSymbol[]>>();
  private nextId = 1;

  constructor(private readonly options: LanguageServiceOptions) {
    this.uris = new UriMapper(options.root);
    this.status = {
      state: options.enabled() ? 'idle' : 'off',
      server: `${SERVER_NAME} ${serverVersion()}`,
      message: options.enabled()
        ? 'Python language server: starts when a Python file opens'
        : 'Python language server is off (python.languageServer)',
      interpreter: null,
      restricted: !options.trusted(),
      projectConfig: this.projectConfig(),
      capabilities: { formatting: false, rangeFormatting: false, codeActions: false },
    };
  }

  getStatus(): LanguageStatus {
    return this.status;
  }

  allDiagnostics(): DocumentDiagnostics[] {
    return [...this.diagnostics.values()];
  }

  /** Whether the server process is up (tests, benches). */
  get pid(): number | undefined {
    return this.running?.process.pid;
  }

  // ---- documents ----

  didOpen(rel: string, version: number, text: string): boolean {
    if (!isPython(rel)) return false;
    this.docs.open(rel, version, text);
    this.clearIdle();
    if (this.running) this.sendOpen(this.running, rel);
    else void this.ensureStarted();
    return true;
  }

  didChange(rel: string, version: number, changes: { range?: LspRange; text: string }[]): boolean {
    if (!this.docs.change(rel, version, changes)) return false;
    this.running?.process.connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
      textDocument: { uri: this.uris.toUri(rel), version },
      contentChanges: changes.map((c) => (c.range ? { range: c.range, text: c.text } : { text: c.text })),
    });
    return true;
  }

  didClose(rel: string): boolean {
    if (!this.docs.close(rel)) return false;
    this.running?.process.connection.sendNotification(lsp.DidCloseTextDocumentNotification.type, {
      textDocument: { uri: this.uris.toUri(rel) },
    });
    if (this.docs.size === 0) this.scheduleIdleStop();
    return true;
  }

  /** Files changed on disk, by Kiln, the agent or others: the server re-reads those it does not have open. */
  applyChange(change: FsChange): void {
    if (/(^|\/)(pyrightconfig\.json|pyproject\.toml)$/.test(change.type === 'moved' ? change.to : change.path)) {
      this.status = { ...this.status, projectConfig: this.projectConfig() };
    }
    const running = this.running;
    if (!running) return;
    const events: lsp.FileEvent[] = [];
    const add = (rel: string, type: lsp.FileChangeType, isDir: boolean) => {
      if (isDir || isPython(rel) || CONFIG_FILES.includes(path.posix.basename(rel))) {
        events.push({ uri: this.uris.toUri(rel), type });
      }
    };
    if (change.type === 'moved') {
      add(change.from, lsp.FileChangeType.Deleted, change.isDir);
      add(change.to, lsp.FileChangeType.Created, change.isDir);
    } else {
      const type =
        change.type === 'created'
          ? lsp.FileChangeType.Created
          : change.type === 'deleted'
            ? lsp.FileChangeType.Deleted
            : lsp.FileChangeType.Changed;
      add(change.path, type, change.isDir);
    }
    if (events.length) {
      running.process.connection.sendNotification(lsp.DidChangeWatchedFilesNotification.type, { changes: events });
    }
    // A deleted file's diagnostics go with it.
    if (change.type === 'deleted' || change.type === 'moved') {
      const gone = change.type === 'moved' ? change.from : change.path;
      for (const rel of [...this.diagnostics.keys()]) {
        if ((rel === gone || rel.startsWith(gone + '/')) && !this.docs.get(rel)) this.publish(rel, null, []);
      }
    }
  }

  /** The pref or trust changed: restart with the new settings (or stop). */
  async settingsChanged(): Promise<void> {
    if (!this.options.enabled()) {
      await this.stop();
      this.setStatus({ state: 'off', message: 'Python language server is off (python.languageServer)' });
      return;
    }
    if (this.status.state === 'off') this.setStatus({ state: 'idle', message: 'Python language server: idle' });
    if (this.running || this.starting) {
      await this.stop();
      await this.ensureStarted();
    } else if (this.docs.size > 0) await this.ensureStarted();
  }

  // ---- lifecycle ----

  private async ensureStarted(): Promise<Running | null> {
    if (this.running) return this.running;
    if (this.starting) return this.starting;
    if (this.disposed || !this.options.enabled() || this.restartTimer) return null;
    if (this.status.state === 'failed') return null;
    this.starting = this.start().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async start(): Promise<Running | null> {
    const restarting = this.status.state === 'restarting';
    this.setStatus({ state: restarting ? 'restarting' : 'starting', message: 'Python language server: starting…' });
    const interpreter = await this.options.interpreter().catch(() => null);
    let proc: ServerProcess;
    try {
      proc = await startServerProcess(this.options.root, {
        launcher: this.options.launcher,
        socketDir: path.join(this.options.dataDir, 'language-server'),
      });
    } catch (err) {
      this.setStatus({ state: 'failed', message: `Python language server could not start: ${errorText(err)}` });
      return null;
    }
    const running: Running = { process: proc, capabilities: {}, stopping: false };
    const { connection } = proc;
    const untrustedVenvs = path.join(this.options.dataDir, 'language-server', 'no-venvs');
    // Untrusted: pyright's workspace folder is Kiln's own project config, so the project's pyrightconfig.json or
    // [tool.pyright] (venvPath, venv, extraPaths...) is never read (see untrusted-project.ts).
    let projectRoot = this.options.root;
    if (!this.options.trusted()) {
      await mkdir(untrustedVenvs, { recursive: true }).catch(() => undefined);
      try {
        projectRoot = await writeUntrustedProject({
          root: this.options.root,
          dir: path.join(this.options.dataDir, 'language-server'),
          extraPaths: this.srcPaths(),
          venvPath: untrustedVenvs,
        });
      } catch (err) {
        proc.kill();
        this.setStatus({ state: 'failed', message: `Python language server could not start: ${errorText(err)}` });
        return null;
      }
    }
    const projectUri = projectRoot === this.options.root ? this.uris.toUri('') : pathToFileURL(projectRoot).href;
    connection.onRequest(lsp.ConfigurationRequest.type, (params) =>
      params.items.map((item) => this.settingsFor(item.section, interpreter, untrustedVenvs)),
    );
    connection.onRequest(lsp.RegistrationRequest.type, () => undefined);
    connection.onRequest(lsp.UnregistrationRequest.type, () => undefined);
    connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => undefined);
    connection.onRequest(lsp.ShowMessageRequest.type, () => null);
    connection.onRequest(lsp.ApplyWorkspaceEditRequest.type, () => ({ applied: false }));
    connection.onNotification(lsp.PublishDiagnosticsNotification.type, (params) => {
      const rel = this.uris.toPath(params.uri);
      if (rel === null) return;
      this.publish(rel, params.version ?? null, params.diagnostics);
    });
    connection.onNotification(lsp.LogMessageNotification.type, () => undefined);
    connection.onNotification(lsp.ShowMessageNotification.type, () => undefined);
    connection.onNotification('$/progress', () => undefined);
    connection.onError(() => undefined);
    connection.listen();
    void proc.exited.then((exit) => this.onExit(running, exit));
    try {
      const init = await connection.sendRequest(lsp.InitializeRequest.type, {
        processId: process.pid,
        rootUri: projectUri,
        workspaceFolders: [{ uri: projectUri, name: path.basename(this.options.root) }],
        capabilities: CLIENT_CAPABILITIES,
        initializationOptions: {},
      });
      running.capabilities = init.capabilities;
      connection.sendNotification(lsp.InitializedNotification.type, {});
      connection.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: {} });
    } catch (err) {
      if (!running.stopping) proc.kill();
      this.setStatus({ state: 'failed', message: `Python language server did not start: ${errorText(err)}` });
      return null;
    }
    if (this.disposed || running.stopping) return null;
    this.running = running;
    for (const rel of [...this.docs.entries()].map(([rel]) => rel)) this.sendOpen(running, rel);
    const caps = running.capabilities;
    const restricted = !this.options.trusted();
    this.setStatus({
      state: 'ready',
      interpreter,
      restricted,
      projectConfig: this.projectConfig(),
      capabilities: {
        formatting: Boolean(caps.documentFormattingProvider),
        rangeFormatting: Boolean(caps.documentRangeFormattingProvider),
        codeActions: Boolean(caps.codeActionProvider),
      },
      message:
        `Python: ${SERVER_NAME}` +
        (interpreter ? ` · ${interpreter}` : ' · no interpreter found (only the standard library is known)') +
        (restricted ? " · restricted: the project's pyright config (interpreter, venv, extra paths) is ignored" : ''),
    });
    if (this.docs.size === 0) this.scheduleIdleStop();
    return running;
  }

  /** The workspace's src/ when it exists: read by pyright for analysis (it runs nothing of it). */
  private srcPaths(): string[] {
    return existsSync(path.join(this.options.root, 'src')) ? [path.join(this.options.root, 'src')] : [];
  }

  private settingsFor(section: string | undefined, interpreter: string | null, untrustedVenvs: string): unknown {
    const restricted = !this.options.trusted();
    const analysis = {
      // src/ is on the kernel's and run-file's sys.path; pyright's autoSearchPaths adds it too, this makes it explicit.
      extraPaths: this.srcPaths(),
      autoSearchPaths: true,
      diagnosticMode: this.options.diagnosticsScope() === 'workspace' ? 'workspace' : 'openFilesOnly',
      useLibraryCodeForTypes: true,
    };
    // Untrusted: pyright runs the pythonPath it is given to learn its search paths, and a client venvPath wins over
    // the project's, so the project can name no program and no environment: Kiln's own interpreter, an empty venvPath.
    const python = {
      ...(interpreter ? { pythonPath: interpreter } : {}),
      ...(restricted ? { venvPath: untrustedVenvs } : {}),
      analysis,
    };
    if (section === 'python') return python;
    if (section === 'python.analysis') return analysis;
    if (section === 'pyright') return { disableOrganizeImports: false };
    return {};
  }

  private sendOpen(running: Running, rel: string): void {
    const doc = this.docs.get(rel);
    if (!doc) return;
    running.process.connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: this.uris.toUri(rel), languageId: 'python', version: doc.version, text: doc.text },
    });
  }

  private onExit(running: Running, exit: { code: number | null; signal: NodeJS.Signals | null }): void {
    running.process.connection.dispose();
    if (this.running === running) this.running = null;
    for (const source of this.inFlight.values()) source.cancel();
    if (running.stopping || this.disposed) return;
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    const why = exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const tail = running.process.stderrTail();
    if (this.crashes.length >= MAX_CRASHES) {
      this.setStatus({
        state: 'failed',
        message: `Python language server crashed ${this.crashes.length} times in 3 minutes (${why}); not restarted. Toggle python.languageServer to try again.${tail ? ' ' + tail : ''}`,
      });
      return;
    }
    const delay =
      this.options.restartDelayMs?.(this.crashes.length) ?? Math.min(30_000, 1000 * 2 ** (this.crashes.length - 1));
    this.setStatus({
      state: 'restarting',
      message: `Python language server crashed (${why}); restarting in ${Math.round(delay / 100) / 10} s`,
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.docs.size > 0) void this.ensureStarted();
      else this.setStatus({ state: 'idle', message: 'Python language server: idle' });
    }, delay);
  }

  private scheduleIdleStop(): void {
    this.clearIdle();
    this.idleTimer = setTimeout(
      () => {
        this.idleTimer = null;
        if (this.docs.size > 0) return;
        void this.stop().then(() => {
          if (this.options.enabled())
            this.setStatus({ state: 'idle', message: 'Python language server: stopped while idle' });
        });
      },
      this.options.idleStopMs ?? 10 * 60_000,
    );
    this.idleTimer.unref?.();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Stops the server (shutdown, then exit, then a kill if it lingers). */
  async stop(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.clearIdle();
    const running = this.running ?? (await this.starting?.catch(() => null)) ?? this.running;
    this.running = null;
    if (!running) return;
    running.stopping = true;
    const { connection, exited } = running.process;
    const polite = (async () => {
      await connection.sendRequest(lsp.ShutdownRequest.type);
      connection.sendNotification(lsp.ExitNotification.type);
    })().catch(() => undefined);
    const timer = setTimeout(() => running.process.kill(), SHUTDOWN_GRACE_MS);
    await Promise.race([polite.then(() => exited), exited]);
    clearTimeout(timer);
    // A stopped server's diagnostics are stale: the renderer's markers and Problems go with them.
    for (const rel of [...this.diagnostics.keys()]) this.publish(rel, null, []);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
  }

  private setStatus(change: Partial<LanguageStatus>): void {
    this.status = { ...this.status, restricted: !this.options.trusted(), ...change };
    this.options.emit('language.statusChanged', this.status);
  }

  private publish(rel: string, version: number | null, raw: lsp.Diagnostic[]): void {
    const entry: DocumentDiagnostics = { path: rel, version, diagnostics: raw.map(diagnostic) };
    if (entry.diagnostics.length === 0) this.diagnostics.delete(rel);
    else this.diagnostics.set(rel, entry);
    this.options.emit('language.diagnostics', entry);
  }

  private projectConfig(): string | null {
    for (const name of CONFIG_FILES) {
      if (existsSync(path.join(this.options.root, name))) return name;
    }
    return null;
  }

  // ---- requests ----

  /** The renderer no longer wants the answer to `requestId`. */
  cancel(requestId: number): boolean {
    const source = this.byRequestId.get(requestId);
    if (!source) return false;
    source.cancel();
    return true;
  }

  /**
   * Sends one request; a newer one with the same key cancels it. Answers `empty` when the server is off, does not
   * become ready in time, is cancelled or fails: the editor shows nothing rather than an error.
   */
  private async ask<P, R>(
    type: lsp.ProtocolRequestType<P, R, unknown, unknown, unknown>,
    params: P,
    key: string | null,
    requestId: number | undefined,
  ): Promise<R | null> {
    const running = await this.ready();
    if (!running) return null;
    const source = new lsp.CancellationTokenSource();
    if (key) {
      this.inFlight.get(key)?.cancel();
      this.inFlight.set(key, source);
    }
    if (requestId !== undefined) this.byRequestId.set(requestId, source);
    try {
      return await running.process.connection.sendRequest(type, params as never, source.token);
    } catch {
      return null;
    } finally {
      if (key && this.inFlight.get(key) === source) this.inFlight.delete(key);
      if (requestId !== undefined) this.byRequestId.delete(requestId);
      source.dispose();
    }
  }

  /** The running server, waiting (bounded) for one that is starting. */
  private async ready(): Promise<Running | null> {
    if (this.running) return this.running;
    const starting = this.ensureStarted();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.options.readyWaitMs ?? 10_000);
    });
    const result = await Promise.race([starting, timeout]);
    clearTimeout(timer);
    return result;
  }

  /** The server reads what it is asked about: a path that leaves the workspace is refused before it is sent. */
  private textDocument(rel: string): lsp.TextDocumentIdentifier {
    if (!isPython(rel) && !(staysInside(rel) && /\.ipynb$/i.test(rel))) {
      throw new KilnError('E_OUTSIDE_WORKSPACE', `Not a Python file of the workspace: ${rel}`);
    }
    return { uri: this.uris.toUri(rel) };
  }

  async completion(
    rel: string,
    position: LspPosition,
    triggerCharacter: string | undefined,
    requestId?: number,
  ): Promise<CompletionList | null> {
    const result = await this.ask(
      lsp.CompletionRequest.type,
      {
        textDocument: this.textDocument(rel),
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
    const id = this.nextId++;
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
    const resolved = await this.ask(lsp.CompletionResolveRequest.type, item, 'resolveCompletion', undefined);
    if (!resolved) return {};
    return {
      ...(resolved.detail ? { detail: resolved.detail } : {}),
      ...(resolved.documentation ? { documentation: markup(resolved.documentation) } : {}),
    };
  }

  async hover(rel: string, position: LspPosition, requestId?: number): Promise<Hover | null> {
    const result = await this.ask(
      lsp.HoverRequest.type,
      { textDocument: this.textDocument(rel), position },
      `hover:${rel}`,
      requestId,
    );
    const contents = markup(result?.contents);
    if (!result || !contents || !contents.value.trim()) return null;
    return { contents, ...(result.range ? { range: result.range } : {}) };
  }

  async signatureHelp(rel: string, position: LspPosition, requestId?: number): Promise<SignatureHelp | null> {
    const result = await this.ask(
      lsp.SignatureHelpRequest.type,
      { textDocument: this.textDocument(rel), position },
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
    const params = { textDocument: this.textDocument(rel), position };
    const key = `${kind}:${rel}`;
    const result =
      kind === 'declaration'
        ? await this.ask(lsp.DeclarationRequest.type, params, key, requestId)
        : kind === 'typeDefinition'
          ? await this.ask(lsp.TypeDefinitionRequest.type, params, key, requestId)
          : await this.ask(lsp.DefinitionRequest.type, params, key, requestId);
    if (!result) return [];
    // Into the standard library or site-packages too, as VS Code does: those files open read-only.
    const list: (lsp.Location | lsp.LocationLink)[] = Array.isArray(result) ? result : [result];
    return list
      .map((l) => this.uris.location(l) ?? this.libraryFiles.place(l))
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
    const result = await this.ask(
      lsp.ReferencesRequest.type,
      { textDocument: this.textDocument(rel), position, context: { includeDeclaration } },
      `references:${rel}`,
      requestId,
    );
    return this.uris.locations(result);
  }

  async prepareRename(
    rel: string,
    position: LspPosition,
    requestId?: number,
  ): Promise<{ range: LspRange; placeholder: string } | null> {
    const result = await this.ask(
      lsp.PrepareRenameRequest.type,
      { textDocument: this.textDocument(rel), position },
      `prepareRename:${rel}`,
      requestId,
    );
    if (!result) return null;
    const text = this.docs.get(rel)?.text;
    if ('start' in result) return { range: result, placeholder: textIn(text, result) };
    if ('placeholder' in result) return { range: result.range, placeholder: result.placeholder };
    return null;
  }

  /** The rename's edits across files as a preview; nothing is written here. */
  async rename(rel: string, position: LspPosition, newName: string, requestId?: number): Promise<EditPreview> {
    const asked = this.docs.snapshot();
    const [result, references] = await Promise.all([
      this.ask(
        lsp.RenameRequest.type,
        { textDocument: this.textDocument(rel), position, newName },
        `rename:${rel}`,
        requestId,
      ),
      this.options.inMemory
        ? this.ask(
            lsp.ReferencesRequest.type,
            { textDocument: this.textDocument(rel), position, context: { includeDeclaration: true } },
            `renameReferences:${rel}`,
            undefined,
          )
        : null,
    ]);
    if (result) this.addInMemoryReferences(result, references ?? [], newName);
    if (!result) {
      if (!this.running)
        throw new KilnError(
          'E_BUSY',
          'The Python language server is not running; try the rename again when it is ready.',
        );
      throw new KilnError('E_BAD_REQUEST', 'Nothing to rename here.');
    }
    return this.preview(result, asked);
  }

  /**
   * Pyright renames across files only in the files it found on disk, so documents held in memory (notebooks)
   * are left out although their references are found: each such reference becomes the rename's edit there,
   * as pyright makes its own (a reference's range replaced by the new name). Documents the edit already
   * covers are left as the server made them.
   */
  private addInMemoryReferences(edit: lsp.WorkspaceEdit, references: lsp.Location[], newName: string): void {
    const covered = new Set([
      ...Object.keys(edit.changes ?? {}),
      ...(edit.documentChanges ?? []).flatMap((c) => ('textDocument' in c ? [c.textDocument.uri] : [])),
    ]);
    for (const reference of references) {
      const rel = this.uris.toPath(reference.uri);
      if (rel === null || covered.has(reference.uri) || !this.options.inMemory?.(rel)) continue;
      const text = lsp.TextEdit.replace(reference.range, newName);
      if (edit.documentChanges) {
        const open = this.docs.get(rel);
        const entry = edit.documentChanges.find(
          (c): c is lsp.TextDocumentEdit => 'textDocument' in c && c.textDocument.uri === reference.uri,
        );
        if (entry) entry.edits.push(text);
        else
          edit.documentChanges.push({
            textDocument: { uri: reference.uri, version: open?.version ?? null },
            edits: [text],
          });
      } else (edit.changes ??= {})[reference.uri] = [...(edit.changes?.[reference.uri] ?? []), text];
    }
  }

  /**
   * Turns a WorkspaceEdit into a preview: each file's text before and after, and whether it is a dirty buffer.
   * `asked` is the open documents when the server was asked: one changed since has edits for text it no longer holds.
   */
  private async preview(edit: lsp.WorkspaceEdit, asked: ReadonlyMap<string, unknown>): Promise<EditPreview> {
    const byFile = new Map<string, LspTextEdit[]>();
    const addEdits = (uri: string, edits: (lsp.TextEdit | lsp.AnnotatedTextEdit | lsp.SnippetTextEdit)[]) => {
      const rel = this.uris.toPath(uri);
      if (rel === null)
        throw new KilnError('E_OUTSIDE_WORKSPACE', `The edit reaches a file outside the workspace: ${uri}`);
      byFile.set(rel, [
        ...(byFile.get(rel) ?? []),
        ...edits.map((e) => ({ range: e.range, newText: 'newText' in e ? e.newText : e.snippet.value })),
      ]);
    };
    for (const [uri, edits] of Object.entries(edit.changes ?? {})) addEdits(uri, edits);
    for (const change of edit.documentChanges ?? []) {
      if ('textDocument' in change) addEdits(change.textDocument.uri, change.edits);
      else
        throw new KilnError(
          'E_BAD_REQUEST',
          'The edit creates, renames or deletes files, which Kiln does not apply from here.',
        );
    }
    const files: FileEdits[] = [];
    for (const [rel, edits] of byFile) {
      const open = this.docs.get(rel);
      if (open !== asked.get(rel))
        throw new KilnError('E_CHANGED_ON_DISK', `${rel} changed while the edits were computed; try again.`);
      if (this.options.inMemory?.(rel)) {
        if (!open) throw new KilnError('E_NOT_FOUND', `${rel} is no longer open; run the action again.`);
        files.push({ path: rel, edits, oldText: open.text, newText: applyTextEdits(open.text, edits), baseHash: null });
        continue;
      }
      const disk = await this.options.readFile(rel);
      // The server computed the edits against the open buffer where there is one.
      const oldText = open?.text ?? disk.text;
      files.push({
        path: rel,
        edits,
        oldText,
        newText: applyTextEdits(oldText, edits),
        baseHash: open && open.text !== disk.text ? null : disk.hash,
      });
    }
    files.sort((a, b) => a.path.localeCompare(b.path));
    const preview = { previewId: this.nextId++, files };
    this.previews.set(preview.previewId, preview);
    // Only recent previews can be applied; older ones are let go.
    for (const id of this.previews.keys()) if (id < preview.previewId - 20) this.previews.delete(id);
    return preview;
  }

  /**
   * Applies a preview: files whose disk text is the base are written through the workspace (all checked before
   * any is written); dirty buffers go back to the renderer to apply in the buffer.
   */
  async applyEdits(previewId: number): Promise<{ written: string[]; toBuffers: FileEdits[] }> {
    const preview = this.previews.get(previewId);
    if (!preview) throw new KilnError('E_NOT_FOUND', 'This preview is no longer current; run the rename again.');
    this.previews.delete(previewId);
    const toDisk = preview.files.filter((f) => f.baseHash !== null);
    for (const file of toDisk) {
      const disk = await this.options.readFile(file.path);
      if (disk.hash !== file.baseHash || disk.text !== file.oldText) {
        throw new KilnError('E_CHANGED_ON_DISK', `${file.path} changed since the preview; nothing was written.`, {
          path: file.path,
          diskHash: disk.hash,
          baselineHash: file.baseHash!,
        });
      }
    }
    const written: string[] = [];
    for (const file of toDisk) {
      await this.options.writeFile(file.path, file.newText, file.baseHash!);
      written.push(file.path);
    }
    return { written, toBuffers: preview.files.filter((f) => f.baseHash === null) };
  }

  /**
   * A document's symbols. Several views ask at once (the breadcrumb, the outline, Monaco's own provider): a request
   * for the same version of the document joins the one in flight. Superseding it instead answered the first asker
   * with no symbols, which it kept (the breadcrumb stayed empty until the next edit). A shared request is not
   * cancelled for one asker (a cursor that moved on): it is cheap, and the others still want its answer.
   */
  documentSymbols(rel: string): Promise<DocumentSymbol[]> {
    const textDocument = this.textDocument(rel);
    const key = `${rel}\n${this.docs.get(rel)?.version ?? 'closed'}`;
    const inFlight = this.symbolRequests.get(key);
    if (inFlight) return inFlight;
    const asking = this.ask(lsp.DocumentSymbolRequest.type, { textDocument }, null, undefined)
      .then(documentSymbols)
      .finally(() => this.symbolRequests.delete(key));
    this.symbolRequests.set(key, asking);
    return asking;
  }

  async workspaceSymbols(query: string, requestId?: number): Promise<WorkspaceSymbol[]> {
    const result = await this.ask(lsp.WorkspaceSymbolRequest.type, { query }, 'workspaceSymbols', requestId);
    const symbols: WorkspaceSymbol[] = [];
    for (const s of result ?? []) {
      if (!('range' in s.location)) continue;
      const location = this.uris.location(s.location);
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
    const caps = this.running?.capabilities;
    if (range && caps?.documentRangeFormattingProvider) {
      const edits = await this.ask(
        lsp.DocumentRangeFormattingRequest.type,
        { textDocument: this.textDocument(rel), range, options },
        `format:${rel}`,
        requestId,
      );
      return edits ?? [];
    }
    if (!caps?.documentFormattingProvider) return [];
    const edits = await this.ask(
      lsp.DocumentFormattingRequest.type,
      { textDocument: this.textDocument(rel), options },
      `format:${rel}`,
      requestId,
    );
    return edits ?? [];
  }

  async codeActions(rel: string, range: LspRange, only: 'quickfix' | 'all', requestId?: number): Promise<CodeAction[]> {
    const asked = this.docs.snapshot();
    const inRange = (this.diagnostics.get(rel)?.diagnostics ?? []).filter(
      (d) => d.range.start.line <= range.end.line && d.range.end.line >= range.start.line,
    );
    const result = await this.ask(
      lsp.CodeActionRequest.type,
      {
        textDocument: this.textDocument(rel),
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
        edit: await this.preview(action.edit, asked),
        ...(action.diagnostics ? { diagnostics: action.diagnostics.map(diagnostic) } : {}),
      });
    }
    return actions;
  }
}

/** A workspace path that stays inside it (no `..` out, not absolute, no NUL). */
function staysInside(rel: string): boolean {
  const normal = path.posix.normalize(rel);
  return !path.posix.isAbsolute(rel) && normal !== '..' && !normal.startsWith('../') && !rel.includes('\0');
}

/** A Python file's workspace path; one that would leave the workspace is none. */
export function isPython(rel: string): boolean {
  return staysInside(rel) && /\.pyi?$/i.test(rel);
}

function textIn(text: string | undefined, range: LspRange): string {
  if (text === undefined) return '';
  const lines = text.split('\n');
  if (range.start.line !== range.end.line) return '';
  return (lines[range.start.line] ?? '').slice(range.start.character, range.end.character);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

const CLIENT_CAPABILITIES: lsp.ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    symbol: { dynamicRegistration: false },
    workspaceEdit: { documentChanges: true },
  },
  textDocument: {
    synchronization: { didSave: false, dynamicRegistration: false },
    publishDiagnostics: { versionSupport: true, tagSupport: { valueSet: [1, 2] }, relatedInformation: false },
    completion: {
      completionItem: {
        snippetSupport: true,
        documentationFormat: ['markdown', 'plaintext'],
        insertReplaceSupport: false,
        resolveSupport: { properties: ['documentation', 'detail'] },
        tagSupport: { valueSet: [1] },
      },
      contextSupport: true,
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    signatureHelp: {
      signatureInformation: {
        documentationFormat: ['markdown', 'plaintext'],
        parameterInformation: { labelOffsetSupport: true },
        activeParameterSupport: true,
      },
    },
    definition: { linkSupport: false },
    declaration: { linkSupport: false },
    typeDefinition: { linkSupport: false },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    rename: { prepareSupport: true },
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: { valueSet: ['quickfix', 'refactor', 'source', 'source.organizeImports'] },
      },
    },
    formatting: {},
    rangeFormatting: {},
  },
};
