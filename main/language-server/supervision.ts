import { existsSync } from 'node:fs';
import path from 'node:path';
import * as lsp from 'vscode-languageserver-protocol/node';
import type { DocumentDiagnostics, FsChange, LanguageStatus, LspRange } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import { changedPaths, createdPaths } from '../../shared/fs-change';
import { KilnError } from '../../shared/errors';
import { DisposableStore, type IDisposable } from '../../shared/base/lifecycle';
import { OpenDocuments } from './documents';
import { UriMapper, diagnostic } from './convert';
import { launchServer, type Running } from './launch';
import { SERVER_NAME, serverVersion, type NodeScriptLauncher } from './server-process';
import { isPython, staysInside } from './python-paths';
import { createLogger } from '../log';

const log = createLogger('language-server');

export interface LanguageServerOptions {
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
  /** The prefs changed (the keys that did): the server follows `python.languageServer` and `python.diagnostics`. */
  onDidChangePrefs?: Event<{ changed: readonly string[] }>;
  /** Trust was granted or revoked: the server's interpreter settings depend on it, so it restarts with the new ones. */
  onDidChangeTrust?: Event<unknown>;
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

/**
 * The supervision of one pyright language server for the workspace: started when the first Python document opens,
 * restarted with back-off when it crashes, stopped when idle and on dispose; the open documents, the diagnostics
 * and the status. Requests never wait on the keystroke path (`ask`): the renderer sends them and goes on; a
 * superseded one is cancelled at the server; a slow, starting or dead server answers the empty result.
 */
export class LanguageServer implements IDisposable {
  readonly uris: UriMapper;
  readonly docs = new OpenDocuments();
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
  private readonly disposables = new DisposableStore();
  private readonly statusEmitter = this.disposables.add(new Emitter<LanguageStatus>());
  private readonly diagnosticsEmitter = this.disposables.add(new Emitter<DocumentDiagnostics>());
  /** The server's state changed (starting, ready, crashed, off...). */
  readonly onDidChangeStatus: Event<LanguageStatus> = this.statusEmitter.event;
  /** A document's diagnostics, as the server published them (empty: it has none left). */
  readonly onDidPublishDiagnostics: Event<DocumentDiagnostics> = this.diagnosticsEmitter.event;

  constructor(private readonly options: LanguageServerOptions) {
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
    const settingsKeys = ['python.languageServer', 'python.diagnostics'];
    if (options.onDidChangePrefs)
      this.disposables.add(
        options.onDidChangePrefs(({ changed }) => {
          if (changed.some((key) => settingsKeys.includes(key))) void this.settingsChanged();
        }),
      );
    if (options.onDidChangeTrust) this.disposables.add(options.onDidChangeTrust(() => void this.settingsChanged()));
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

  /** What the running server can do; null when none runs. */
  get capabilities(): lsp.ServerCapabilities | null {
    return this.running?.capabilities ?? null;
  }

  /** A document's current diagnostics (none when it has none). */
  diagnosticsOf(rel: string): DocumentDiagnostics['diagnostics'] {
    return this.diagnostics.get(rel)?.diagnostics ?? [];
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
    if (changedPaths(change).some((rel) => /(^|\/)(pyrightconfig\.json|pyproject\.toml)$/.test(rel))) {
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
    } else if (change.type === 'createdFiles') {
      for (const rel of createdPaths(change)) add(rel, lsp.FileChangeType.Created, false);
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
    const interpreter = await this.options
      .interpreter()
      .catch(
        log.caught(
          "finding the notebooks' interpreter failed; the server knows only the standard library (its status says so)",
          null,
        ),
      );
    const launched = await launchServer({
      root: this.options.root,
      dataDir: this.options.dataDir,
      launcher: this.options.launcher,
      uris: this.uris,
      interpreter,
      trusted: () => this.options.trusted(),
      diagnosticsScope: () => this.options.diagnosticsScope(),
      onDiagnostics: (rel, version, raw) => this.publish(rel, version, raw),
      onExit: (running, exit) => this.onExit(running, exit),
    });
    if ('failed' in launched) {
      this.setStatus({ state: 'failed', message: launched.failed });
      return null;
    }
    const { running } = launched;
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
    const running =
      this.running ??
      (await this.starting?.catch(log.caught('a start being stopped failed; its status said why', null))) ??
      this.running;
    this.running = null;
    if (!running) return;
    running.stopping = true;
    const { connection, exited } = running.process;
    const polite = (async () => {
      await connection.sendRequest(lsp.ShutdownRequest.type);
      connection.sendNotification(lsp.ExitNotification.type);
    })().catch(
      log.caught(
        'the server did not shut down politely (gone, or its pipe closed); it is killed after the grace',
        undefined,
      ),
    );
    const timer = setTimeout(() => running.process.kill(), SHUTDOWN_GRACE_MS);
    await Promise.race([polite.then(() => exited), exited]);
    clearTimeout(timer);
    // A stopped server's diagnostics are stale: the renderer's markers and Problems go with them.
    for (const rel of [...this.diagnostics.keys()]) this.publish(rel, null, []);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    await this.disposables.dispose();
  }

  private setStatus(change: Partial<LanguageStatus>): void {
    this.status = { ...this.status, restricted: !this.options.trusted(), ...change };
    this.statusEmitter.fire(this.status);
  }

  private publish(rel: string, version: number | null, raw: lsp.Diagnostic[]): void {
    const entry: DocumentDiagnostics = { path: rel, version, diagnostics: raw.map(diagnostic) };
    if (entry.diagnostics.length === 0) this.diagnostics.delete(rel);
    else this.diagnostics.set(rel, entry);
    this.diagnosticsEmitter.fire(entry);
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
  async ask<P, R>(
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
    } catch (err) {
      // Cancelled (superseded, or the renderer moved on), or the server died: the editor shows nothing.
      if (!(err instanceof lsp.ResponseError && err.code === lsp.LSPErrorCodes.RequestCancelled))
        log.caught(`a ${type.method} request failed; answered empty`, null)(err);
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
  textDocument(rel: string): lsp.TextDocumentIdentifier {
    if (!isPython(rel) && !(staysInside(rel) && /\.ipynb$/i.test(rel))) {
      throw new KilnError('E_OUTSIDE_WORKSPACE', `Not a Python file of the workspace: ${rel}`);
    }
    return { uri: this.uris.toUri(rel) };
  }
}
