import { useEffect, useState } from 'react';
import type { DocumentSymbol, KilnBridge, LspPosition } from '../../../shared/contract';
import { perBridge, useBridge, useStore } from '../base';
import { monaco, useTextModels } from '../editor';
import { useLanguageClient } from './language-client';

const SYMBOLS_TYPING_PAUSE_MS = 400;

export interface SymbolStep {
  symbol: DocumentSymbol;
  /** The symbols at the same level (the parent's children, or the file's top level), for the dropdown. */
  siblings: DocumentSymbol[];
}

const contains = (symbol: DocumentSymbol, at: LspPosition) => {
  const { start, end } = symbol.range;
  const after = at.line > start.line || (at.line === start.line && at.character >= start.character);
  const before = at.line < end.line || (at.line === end.line && at.character <= end.character);
  return after && before;
};

/** The symbols enclosing `at`, outermost first, each with its siblings. */
export function symbolPathAt(symbols: DocumentSymbol[], at: LspPosition): SymbolStep[] {
  const steps: SymbolStep[] = [];
  let level = symbols;
  for (;;) {
    const hit = level.find((s) => contains(s, at));
    if (!hit) return steps;
    steps.push({ symbol: hit, siblings: level });
    level = hit.children;
  }
}

/** Symbols a window is asking for, by path: views asking at once share one request (a second would supersede the first). */
const askingOf = perBridge(() => new Map<string, Promise<DocumentSymbol[]>>());

function askSymbols(bridge: KilnBridge, path: string): Promise<DocumentSymbol[]> {
  const asking = askingOf.of(bridge);
  const pending = asking.get(path);
  if (pending) return pending;
  // What was typed goes first, so the symbols are those of the text shown.
  useLanguageClient.of(bridge).flushChanges();
  const asked = bridge.request('language.documentSymbols', { path }).finally(() => asking.delete(path));
  asking.set(path, asked);
  return asked;
}

/**
 * The language server's document symbols of a Python file: asked when the server is ready and again after a
 * pause in typing. Null while there is no answer to go by (the server is off, starting, failed, or the request
 * failed), so a view can fall back to its own reading. Never waits on the server.
 */
export function useDocumentSymbols(path: string | null): DocumentSymbol[] | null {
  const bridge = useBridge();
  const textModels = useTextModels();
  const ready = useStore(useLanguageClient(), (s) => s.status?.state === 'ready');
  const [symbols, setSymbols] = useState<{ path: string; symbols: DocumentSymbol[] } | null>(null);
  const python = path !== null && /\.pyi?$/i.test(path);

  useEffect(() => {
    setSymbols(null);
    if (!python || !path || !ready) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fetchSymbols = () =>
      askSymbols(bridge, path).then(
        (found) => live && setSymbols({ path, symbols: found }),
        () => live && setSymbols(null),
      );
    void fetchSymbols();
    const subscriptions: monaco.IDisposable[] = [];
    let watchedModel: monaco.editor.ITextModel | null = null;
    const watch = () => {
      const model = textModels.modelIfOpen(path) ?? null;
      if (!model || model === watchedModel) return;
      watchedModel = model;
      subscriptions.push(
        model.onDidChangeContent(() => {
          clearTimeout(timer);
          timer = setTimeout(() => void fetchSymbols(), SYMBOLS_TYPING_PAUSE_MS);
        }),
      );
    };
    watch();
    // The model may be made after the view asks (a tab opening).
    subscriptions.push(monaco.editor.onDidCreateModel(watch));
    return () => {
      live = false;
      clearTimeout(timer);
      subscriptions.forEach((s) => s.dispose());
    };
  }, [bridge, textModels, path, python, ready]);

  return symbols && symbols.path === path ? symbols.symbols : null;
}

/** The symbol path at the cursor of the editor showing `path` (a Python file), from the server's document symbols. */
export function useSymbolPath(path: string | null): SymbolStep[] {
  const textModels = useTextModels();
  const symbols = useDocumentSymbols(path);
  const [cursor, setCursor] = useState<LspPosition | null>(null);
  const python = path !== null && /\.pyi?$/i.test(path);

  useEffect(() => {
    setCursor(null);
    if (!python || !path) return;
    const watched = new Set<monaco.editor.ICodeEditor>();
    const subscriptions: monaco.IDisposable[] = [];
    const modelOf = () => textModels.modelIfOpen(path);
    const track = (editor: monaco.editor.ICodeEditor) => {
      if (watched.has(editor)) return;
      watched.add(editor);
      const take = () => {
        const model = editor.getModel();
        const position = editor.getPosition();
        if (model && model === modelOf() && position) {
          setCursor({ line: position.lineNumber - 1, character: position.column - 1 });
        }
      };
      take();
      subscriptions.push(editor.onDidChangeCursorPosition(take), editor.onDidChangeModel(take));
    };
    monaco.editor.getEditors().forEach(track);
    subscriptions.push(monaco.editor.onDidCreateEditor(track));
    return () => subscriptions.forEach((s) => s.dispose());
  }, [textModels, path, python]);

  return cursor && symbols ? symbolPathAt(symbols, cursor) : [];
}
