import type {
  DocumentDiagnostics,
  KilnBridge,
  LanguageStatus,
  LspDiagnostic,
  LspRange,
  RequestArgs,
} from '../../../shared/contract';
import { Store, perBridge } from '../base';
import { monaco } from '../editor';
import type { TextModels } from '../editor';

export interface LanguageState {
  /** Diagnostics per workspace path (files with none are absent). */
  diagnostics: Record<string, LspDiagnostic[]>;
  status: LanguageStatus | null;
}

const MARKER_OWNER = 'pyright';

/**
 * Typed changes go to the server at most this long after the first of them, as one `language.didChange` (as VS
 * Code's language client delays its didChange): a key costs no request of its own. Every feature request sends
 * what is waiting first (`flushChanges`), so the server answers about the text the editor shows.
 */
export const DID_CHANGE_BATCH_MS = 100;

interface PendingChanges {
  path: string;
  version: number;
  changes: RequestArgs<'language.didChange'>['changes'];
}

/**
 * Keeps main's language server in step with the Python buffers of the text models (open, every change with the
 * model's version, close, re-key after a move) and turns its diagnostics into markers and into the Problems
 * state. Sending never waits: the keystroke path only posts the change.
 */
export class LanguageClient extends Store<LanguageState> {
  /** Model → the path main has it open under. */
  private readonly sent = new Map<monaco.editor.ITextModel, string>();
  private textModels: TextModels | null = null;
  /** Changes typed since the last `language.didChange`, per model, in the order Monaco made them. */
  private readonly pending = new Map<monaco.editor.ITextModel, PendingChanges>();
  private batchTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly bridge: KilnBridge) {
    super({ diagnostics: {}, status: null });
    this.own(() => {
      if (this.batchTimer !== null) clearTimeout(this.batchTimer);
    });
    this.own(bridge.on('language.diagnostics', (d) => this.applyDiagnostics(d)));
    this.own(bridge.on('language.statusChanged', (status) => this.set({ status })));
    // After the text models re-keyed themselves for the move (their listener came first).
    this.own(bridge.on('fs.change', (change) => change.type === 'moved' && queueMicrotask(() => this.resyncAll())));
    void bridge.request('language.status', {}).then(
      (status) => this.set({ status }),
      () => undefined,
    );
    void bridge.request('language.allDiagnostics', {}).then(
      (all) => all.forEach((d) => this.applyDiagnostics(d)),
      () => undefined,
    );
  }

  /** Starts following the models (once: the models outlive every editor). */
  follow(textModels: TextModels): void {
    if (this.textModels) return;
    this.textModels = textModels;
    const track = (model: monaco.editor.ITextModel) => {
      // TextModels registers the model after creating it: look once it has.
      queueMicrotask(() => this.resync(model));
      const subs = [
        model.onDidChangeContent((event) => this.contentChanged(model, event)),
        model.onDidChangeLanguage(() => this.resync(model)),
        model.onWillDispose(() => {
          subs.forEach((s) => s.dispose());
          this.close(model);
        }),
      ];
    };
    monaco.editor.getModels().forEach(track);
    const created = monaco.editor.onDidCreateModel(track);
    this.own(() => created.dispose());
  }

  /** The model a workspace path is open in, if any. */
  modelOf(path: string): monaco.editor.ITextModel | undefined {
    for (const [model, sentPath] of this.sent) if (sentPath === path) return model;
    return undefined;
  }

  private pathOf(model: monaco.editor.ITextModel): string | undefined {
    if (model.isDisposed() || model.getLanguageId() !== 'python') return undefined;
    return this.textModels?.pathOf(model);
  }

  private resyncAll(): void {
    for (const model of monaco.editor.getModels()) this.resync(model);
  }

  /** Opens, re-keys or closes the model at main to match what it is now. */
  private resync(model: monaco.editor.ITextModel): void {
    const path = this.pathOf(model);
    const sent = this.sent.get(model);
    if (sent === path) return;
    if (sent !== undefined) this.close(model);
    if (path === undefined) return;
    this.sent.set(model, path);
    this.post('language.didOpen', { path, version: model.getVersionId(), text: model.getValue() });
    this.showMarkers(path);
  }

  private contentChanged(model: monaco.editor.ITextModel, event: monaco.editor.IModelContentChangedEvent): void {
    const sent = this.sent.get(model);
    if (sent === undefined || sent !== this.pathOf(model)) return this.resync(model);
    // Monaco orders a change's parts so each applies to the text the previous one left; events append in order.
    const changes = event.changes.map((c) => ({ range: toLspRange(c.range), text: c.text }));
    const waiting = this.pending.get(model);
    if (waiting) {
      waiting.changes.push(...changes);
      waiting.version = event.versionId;
    } else this.pending.set(model, { path: sent, version: event.versionId, changes });
    this.batchTimer ??= setTimeout(() => this.flushChanges(), DID_CHANGE_BATCH_MS);
  }

  /** Sends every model's waiting changes now: before any request whose answer depends on the text. */
  flushChanges(): void {
    if (this.batchTimer !== null) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    for (const [model, { path, version, changes }] of [...this.pending]) {
      this.pending.delete(model);
      this.post('language.didChange', { path, version, changes });
    }
  }

  private close(model: monaco.editor.ITextModel): void {
    const sent = this.sent.get(model);
    if (sent === undefined) return;
    this.sent.delete(model);
    // Opened again (a move, a language change) it goes whole; closed, the server reads the disk.
    this.pending.delete(model);
    if (!model.isDisposed()) monaco.editor.setModelMarkers(model, MARKER_OWNER, []);
    this.post('language.didClose', { path: sent });
  }

  private post<C extends 'language.didOpen' | 'language.didChange' | 'language.didClose'>(
    channel: C,
    args: RequestArgs<C>,
  ): void {
    // Fire and forget: a dead or slow server never holds up typing.
    void this.bridge.request(channel, args).catch(() => undefined);
  }

  private applyDiagnostics(d: DocumentDiagnostics): void {
    const diagnostics = { ...this.state.diagnostics };
    if (d.diagnostics.length) diagnostics[d.path] = d.diagnostics;
    else delete diagnostics[d.path];
    this.set({ diagnostics });
    this.showMarkers(d.path);
  }

  private showMarkers(path: string): void {
    const model = this.modelOf(path);
    if (!model || model.isDisposed()) return;
    const markers = (this.state.diagnostics[path] ?? []).filter((d) => !d.cell).map(toMarker);
    monaco.editor.setModelMarkers(model, MARKER_OWNER, markers);
  }
}

export const useLanguageClient = perBridge((bridge) => new LanguageClient(bridge));

export function toLspRange(range: monaco.IRange): LspRange {
  return {
    start: { line: range.startLineNumber - 1, character: range.startColumn - 1 },
    end: { line: range.endLineNumber - 1, character: range.endColumn - 1 },
  };
}

export function toMonacoRange(range: LspRange): monaco.Range {
  return new monaco.Range(range.start.line + 1, range.start.character + 1, range.end.line + 1, range.end.character + 1);
}

const SEVERITY: Record<LspDiagnostic['severity'], monaco.MarkerSeverity> = {
  error: monaco.MarkerSeverity.Error,
  warning: monaco.MarkerSeverity.Warning,
  information: monaco.MarkerSeverity.Info,
  hint: monaco.MarkerSeverity.Hint,
};

function toMarker(d: LspDiagnostic): monaco.editor.IMarkerData {
  const range = toMonacoRange(d.range);
  return {
    ...range,
    severity: SEVERITY[d.severity],
    message: d.message,
    source: d.source,
    code: d.code,
    tags: d.tags?.map((t) => (t === 'unnecessary' ? monaco.MarkerTag.Unnecessary : monaco.MarkerTag.Deprecated)),
  };
}
