import { createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { CompleteResult, CompletionType, InspectResult, KernelStatus, KilnBridge } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { perBridge } from '../base';
import { monaco } from '../editor';
import { stripAnsi } from './ansi';
import { InspectPanel, type InspectView } from './InspectPanel';
import './kernel-assist.css';
import { callAt, parameterRanges, signatureOf } from './inspect-text';
import { itemsBesidesKernel, staticCompletions, type CellLanguageSource } from './language';

/*
 * The live kernel in a cell's editor (JupyterLab's completer, tooltip and inspector): Tab and `.` ask
 * complete_request and show the matches in Monaco's suggest widget with the cell's own words; Shift+Tab
 * shows inspect_request's page in a panel at the cursor (again: detail level 1); hovering a name shows it
 * too; `(` and `,` show the call's signature. Main bounds every request (a busy kernel answers 'busy'),
 * and the cursor moving on cancels what is waiting. No kernel, no answers, and never an error toast.
 */

/** One notebook's way to its kernel, for the editors of its cells. */
export interface KernelAssistSource {
  readonly bridge: KilnBridge;
  path(): string;
  kernelStatus(): KernelStatus;
  /** The pause before hovering a name shows its docstring (ms); 0: hover shows nothing. */
  hoverDelayMs(): number;
  /** The language server's help in the same editors (static completion, hover, diagnostics, F12). */
  readonly language?: CellLanguageSource;
}

/**
 * A window's cell editors with the kernel's help. Monaco's registries are one per page, so each window registers
 * its own providers (per language), each answering only for its own cells' models: two windows in one page never
 * ask each other's kernels.
 */
interface WindowAssist {
  /** What each cell editor's model answers through. */
  sources: Map<string, KernelAssistSource>;
  /** The languages this window's providers are registered for. */
  languages: Set<string>;
  /** The cell editor with the kernel's help that had focus last: where the commands act. */
  lastEditor: { editor: monaco.editor.ICodeEditor; widget: InspectWidget } | null;
  /** Each cell editor's panel, by its model: where completion says the kernel is busy. */
  panels: Map<string, InspectWidget>;
}

const windowAssistOf = perBridge((): WindowAssist => ({
  sources: new Map(),
  languages: new Set(),
  lastEditor: null,
  panels: new Map(),
}));
// process-wide: request ids only grow; unique across windows is all they need to be.
let nextRequestId = 1;

/** Kernels that can answer: the ones that are running. 'busy' is asked too, and main answers within its bound. */
function canAsk(source: KernelAssistSource): boolean {
  const status = source.kernelStatus();
  return status === 'idle' || status === 'busy';
}

/** IPython's `_jupyter_types_experimental` kinds as Monaco's icons. */
function kindOf(type: string | null | undefined): monaco.languages.CompletionItemKind {
  const Kind = monaco.languages.CompletionItemKind;
  switch (type) {
    case 'function':
    case 'magic':
      return Kind.Function;
    case 'class':
      return Kind.Class;
    case 'module':
      return Kind.Module;
    case 'keyword':
      return Kind.Keyword;
    case 'property':
      return Kind.Property;
    case 'path':
      return Kind.File;
    case 'instance':
    case 'statement':
    case 'param':
      return Kind.Variable;
    default:
      return Kind.Value;
  }
}

/** A request through the bridge that answers 'unavailable' rather than failing (a closed notebook, a lost connection). */
async function ask<T>(request: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await request();
  } catch {
    return fallback;
  }
}

/** The cell's words that start with `prefix` (Monaco's own word suggestions stop once a provider answers). */
function cellWords(text: string, prefix: string, except: Set<string>): string[] {
  const words = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_]\w*/g)) {
    const word = match[0];
    if (word !== prefix && word.length > 1 && word.startsWith(prefix) && !except.has(word)) words.add(word);
  }
  return [...words];
}

function completionProvider({ sources, panels }: WindowAssist): monaco.languages.CompletionItemProvider {
  return {
    triggerCharacters: ['.'],
    async provideCompletionItems(model, position, context, token) {
      const source = sources.get(model.uri.toString());
      if (!source) return undefined;
      // The language server's static items, asked at once beside the kernel (neither waits for the other).
      const staticAnswer = staticCompletions(source.bridge, model, position, token, context.triggerCharacter);
      const text = model.getValue();
      const cursor = model.getOffsetAt(position);
      const word = model.getWordUntilPosition(position);
      const wordRange = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, position.column);
      const path = source.path();
      let result: CompleteResult = { status: 'unavailable' };
      if (canAsk(source)) {
        const requestId = nextRequestId++;
        const cancelling = token.onCancellationRequested(() => {
          void ask(() => source.bridge.request('notebook.cancelAssist', { path, requestId }), null);
        });
        result = await ask(
          () => source.bridge.request('notebook.complete', { path, code: text.slice(0, cursor), cursor, requestId }),
          { status: 'unavailable' } as CompleteResult,
        );
        cancelling.dispose();
      }
      if (token.isCancellationRequested) return { suggestions: [] };
      const suggestions: monaco.languages.CompletionItem[] = [];
      const taken = new Set<string>();
      if (result.status === 'ok') {
        const start = model.getPositionAt(result.cursorStart);
        const range = new monaco.Range(start.lineNumber, start.column, position.lineNumber, position.column);
        const types = new Map<string, CompletionType>(result.types.map((t) => [t.text, t]));
        result.matches.forEach((match, i) => {
          const type = types.get(match);
          taken.add(match);
          suggestions.push({
            label: { label: match, description: type?.type && type.type !== '<unknown>' ? type.type : undefined },
            kind: kindOf(type?.type),
            insertText: match,
            detail: type?.signature,
            range,
            sortText: `0${String(i).padStart(5, '0')}`,
          });
        });
      } else if (result.status === 'busy') {
        // Said where the operator looks, never a spinner that stays: a line at the cursor, the cell's words below.
        panels
          .get(model.uri.toString())
          ?.note('Kernel busy: it is running a cell. Completions come back when it is idle.');
      }
      // Kernel first where both name the same thing; the server's items add what the kernel did not list.
      const statics = await staticAnswer;
      if (token.isCancellationRequested) return { suggestions: [] };
      suggestions.push(
        ...itemsBesidesKernel(taken, statics ?? [], (item) =>
          typeof item.label === 'string' ? item.label : item.label.label,
        ),
      );
      const afterDot = text[cursor - word.word.length - 1] === '.';
      if (!statics && (!afterDot || result.status !== 'ok')) {
        // Keys typed since Monaco asked (a busy window) extend the word at the cursor: it is not offered to itself.
        const typing = model.getWordAtPosition(position)?.word;
        for (const w of cellWords(text, word.word, taken)) {
          if (w === typing) continue;
          suggestions.push({
            label: w,
            kind: monaco.languages.CompletionItemKind.Text,
            insertText: w,
            range: wordRange,
            sortText: `2${w}`,
          });
        }
      }
      // Nothing to list while busy: the empty suggest widget would cover the note.
      if (result.status === 'busy' && !suggestions.length) setTimeout(() => hideSuggestions(model), 0);
      return { suggestions };
    },
  };
}

function hideSuggestions(model: monaco.editor.ITextModel): void {
  for (const editor of monaco.editor.getEditors()) {
    if (editor.getModel() === model) editor.trigger('kiln', 'hideSuggestWidget', {});
  }
}

function inspectAt(source: KernelAssistSource, code: string, cursor: number, detailLevel: 0 | 1) {
  const path = source.path();
  const requestId = nextRequestId++;
  const answer = canAsk(source)
    ? ask(() => source.bridge.request('notebook.inspect', { path, code, cursor, detailLevel, requestId }), {
        status: 'unavailable',
      } as InspectResult)
    : Promise.resolve<InspectResult>({ status: 'unavailable' });
  const cancel = () => void ask(() => source.bridge.request('notebook.cancelAssist', { path, requestId }), null);
  return { answer, cancel };
}

function hoverProvider({ sources }: WindowAssist): monaco.languages.HoverProvider {
  return {
    async provideHover(model, position, token) {
      const source = sources.get(model.uri.toString());
      if (!source || source.hoverDelayMs() <= 0) return undefined;
      const word = model.getWordAtPosition(position);
      if (!word) return undefined;
      const end = model.getOffsetAt({ lineNumber: position.lineNumber, column: word.endColumn });
      const { answer, cancel } = inspectAt(source, model.getValue(), end, 0);
      const cancelling = token.onCancellationRequested(cancel);
      const result = await answer;
      cancelling.dispose();
      if (token.isCancellationRequested) return undefined;
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
      if (result.status !== 'ok')
        return result.status === 'busy' ? { range, contents: [{ value: '*Kernel busy*' }] } : undefined;
      if (!result.found) return undefined;
      const markdown = result.data['text/markdown'];
      const value =
        markdown !== undefined
          ? joinMultiline(markdown as string | string[])
          : fenced(stripAnsi(joinMultiline(result.data['text/plain'] as string | string[] | undefined)));
      return { range, contents: [{ value }] };
    },
  };
}

function fenced(text: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}text\n${text}\n${fence}`;
}

function signatureProvider({ sources }: WindowAssist): monaco.languages.SignatureHelpProvider {
  return {
    signatureHelpTriggerCharacters: ['(', ','],
    signatureHelpRetriggerCharacters: [','],
    async provideSignatureHelp(model, position, token) {
      const source = sources.get(model.uri.toString());
      if (!source) return undefined;
      const text = model.getValue();
      const call = callAt(text, model.getOffsetAt(position));
      if (!call) return undefined;
      const { answer, cancel } = inspectAt(source, text, call.nameEnd, 0);
      const cancelling = token.onCancellationRequested(cancel);
      const result = await answer;
      cancelling.dispose();
      if (token.isCancellationRequested || result.status !== 'ok' || !result.found) return undefined;
      const signature = signatureOf(joinMultiline(result.data['text/plain'] as string | string[] | undefined));
      if (!signature) return undefined;
      const parameters = parameterRanges(signature.label).map((label) => ({ label }));
      return {
        value: {
          signatures: [{ label: signature.label, documentation: signature.doc, parameters }],
          activeSignature: 0,
          activeParameter: Math.min(call.argument, Math.max(0, parameters.length - 1)),
        },
        dispose: () => undefined,
      };
    },
  };
}

/** The window's providers for `language`, registered with its first cell editor of it; they live as long as the window. */
function registerLanguage(windowAssist: WindowAssist, language: string): void {
  if (windowAssist.languages.has(language)) return;
  windowAssist.languages.add(language);
  monaco.languages.registerCompletionItemProvider(language, completionProvider(windowAssist));
  monaco.languages.registerHoverProvider(language, hoverProvider(windowAssist));
  monaco.languages.registerSignatureHelpProvider(language, signatureProvider(windowAssist));
}

/** True when the character before the cursor is part of code, not indentation: Tab completes there, elsewhere it indents. */
function afterCode(editor: monaco.editor.ICodeEditor): boolean {
  const model = editor.getModel();
  const selection = editor.getSelection();
  if (!model || !selection || !selection.isEmpty()) return false;
  const before = model.getLineContent(selection.positionLineNumber).slice(0, selection.positionColumn - 1);
  return /\S$/.test(before);
}

/** The Shift+Tab panel: a content widget at the cursor, gone when the cursor moves, on Escape or blur. */
class InspectWidget implements monaco.editor.IContentWidget {
  /** A cell's editor is only as tall as its text: the panel draws over the cells around it. */
  readonly allowEditorOverflow = true;
  private readonly node = document.createElement('div');
  private readonly root: Root;
  private position: monaco.IPosition | null = null;
  private shown = false;
  private above = false;
  private pending: (() => void) | null = null;
  /** Where the last inspection was asked and at which level: a second Shift+Tab there asks for more. */
  private last: { offset: number; detailLevel: 0 | 1 } | null = null;

  constructor(
    private readonly editor: monaco.editor.ICodeEditor,
    private readonly source: KernelAssistSource,
  ) {
    this.node.className = 'nb-inspect-host';
    this.root = createRoot(this.node);
  }

  getId(): string {
    return 'kiln.kernelInspect';
  }

  getDomNode(): HTMLElement {
    return this.node;
  }

  getPosition(): monaco.editor.IContentWidgetPosition | null {
    if (!this.position) return null;
    const { ContentWidgetPositionPreference } = monaco.editor;
    return {
      position: this.position,
      preference: this.above
        ? [ContentWidgetPositionPreference.ABOVE, ContentWidgetPositionPreference.BELOW]
        : [ContentWidgetPositionPreference.BELOW, ContentWidgetPositionPreference.ABOVE],
    };
  }

  get visible(): boolean {
    return this.shown;
  }

  async inspect(): Promise<void> {
    const model = this.editor.getModel();
    const position = this.editor.getPosition();
    if (!model || !position) return;
    const offset = model.getOffsetAt(position);
    const detailLevel = this.shown && this.last?.offset === offset && this.last.detailLevel === 0 ? 1 : 0;
    this.last = { offset, detailLevel };
    this.above = false;
    this.pending?.();
    const { answer, cancel } = inspectAt(this.source, model.getValue(), offset, detailLevel);
    this.pending = cancel;
    this.show(position, { kind: 'waiting' });
    const result = await answer;
    if (this.pending !== cancel) return;
    this.pending = null;
    if (result.status === 'cancelled') return;
    this.show(position, { kind: 'answer', result, detailLevel });
  }

  /** A line of text at the cursor, above it so the suggest widget below stays visible. */
  note(message: string): void {
    const position = this.editor.getPosition();
    if (!position) return;
    this.pending?.();
    this.pending = null;
    this.above = true;
    this.show(position, { kind: 'failed', message });
  }

  hide(): void {
    this.pending?.();
    this.pending = null;
    if (!this.shown) return;
    this.shown = false;
    this.position = null;
    this.editor.removeContentWidget(this);
  }

  dispose(): void {
    this.hide();
    // Unmounting inside a React render of the notebook warns; after it is fine.
    queueMicrotask(() => this.root.unmount());
  }

  private show(position: monaco.IPosition, view: InspectView): void {
    this.position = position;
    this.root.render(createElement(InspectPanel, { view }));
    if (this.shown) this.editor.layoutContentWidget(this);
    else {
      this.shown = true;
      this.editor.addContentWidget(this);
    }
  }
}

/**
 * Where Tab and Shift+Tab ask the kernel: in a cell editor with the kernel's help that has focus, after code
 * (JupyterLab's rule: at a line's start or in its indentation they indent and dedent as before), and not
 * while the suggest widget is open (Tab takes the suggestion there).
 */
export function kernelKeyApplies(bridge: KilnBridge): boolean {
  const editor = windowAssistOf.of(bridge).lastEditor?.editor;
  if (!editor?.hasTextFocus() || !afterCode(editor)) return false;
  return !editor.getDomNode()?.ownerDocument.querySelector('.suggest-widget.visible');
}

/** Tab: the kernel's completions at the cursor of the last focused cell editor. */
export function showKernelCompletions(bridge: KilnBridge): void {
  const editor = windowAssistOf.of(bridge).lastEditor?.editor;
  if (!editor) return;
  editor.focus();
  editor.trigger('kiln', 'editor.action.triggerSuggest', {});
}

/** Shift+Tab: the kernel's docstring for the name at the cursor; again at the same place, more of it. */
export function inspectAtCursor(bridge: KilnBridge): void {
  const { lastEditor } = windowAssistOf.of(bridge);
  if (!lastEditor) return;
  lastEditor.editor.focus();
  void lastEditor.widget.inspect();
}

/**
 * One hover option object per delay: Monaco copies each editor's options into its global configuration, and a
 * fresh object there is a change that re-reads every model's options (for every cell editor made).
 * process-wide: Monaco's configuration is one per page.
 */
const hoverOptions = new Map<number, monaco.editor.IEditorHoverOptions>();
function hoverOption(delay: number): monaco.editor.IEditorHoverOptions {
  let option = hoverOptions.get(delay);
  if (!option) hoverOptions.set(delay, (option = { enabled: delay > 0, delay: Math.max(delay, 1) }));
  return option;
}

/** Gives one cell's editor the kernel's help. Returns what undoes it (when the editor goes away). */
export function attachKernelAssist(
  editor: monaco.editor.IStandaloneCodeEditor,
  source: KernelAssistSource,
): () => void {
  const model = editor.getModel();
  if (!model) return () => undefined;
  const key = model.uri.toString();
  const windowAssist = windowAssistOf.of(source.bridge);
  const { sources, panels } = windowAssist;
  sources.set(key, source);
  registerLanguage(windowAssist, model.getLanguageId());
  const languageSub = model.onDidChangeLanguage((e) => registerLanguage(windowAssist, e.newLanguage));
  const applyHoverDelay = () => {
    const delay = source.hoverDelayMs();
    // As in JupyterLab, nothing pops up by itself while typing (each key would be a request to the kernel).
    editor.updateOptions({ hover: hoverOption(delay), quickSuggestions: false });
  };
  applyHoverDelay();
  const widget = new InspectWidget(editor, source);
  const entry = { editor, widget };
  panels.set(key, widget);
  const focusSub = editor.onDidFocusEditorText(() => (windowAssist.lastEditor = entry));
  const escapeSub = editor.onKeyDown((e) => {
    if (e.keyCode === monaco.KeyCode.Escape && widget.visible) {
      widget.hide();
      e.preventDefault();
      e.stopPropagation();
    }
  });
  const cursorSub = editor.onDidChangeCursorPosition(() => widget.hide());
  const blurSub = editor.onDidBlurEditorWidget(() => widget.hide());
  return () => {
    if (sources.get(key) === source) sources.delete(key);
    for (const sub of [languageSub, focusSub, escapeSub, cursorSub, blurSub]) sub.dispose();
    if (windowAssist.lastEditor === entry) windowAssist.lastEditor = null;
    if (panels.get(key) === widget) panels.delete(key);
    widget.dispose();
  };
}

/** The hover pause when the operator has not set one (ms). */
export const DEFAULT_HOVER_DELAY_MS = 600;
