import { useEffect, useState } from 'react';
import type { DocumentSymbol, LspPosition } from '../../../shared/contract';
import { useBridge, useStore } from '../base';
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

/**
 * The symbol path at the cursor of the editor showing `path` (a Python file), from the language server's document
 * symbols: asked again after a pause in typing, and when the server becomes ready. Never waits on the server.
 */
export function useSymbolPath(path: string | null): SymbolStep[] {
  const bridge = useBridge();
  const textModels = useTextModels();
  const ready = useStore(useLanguageClient(), (s) => s.status?.state === 'ready');
  const [symbols, setSymbols] = useState<DocumentSymbol[]>([]);
  const [cursor, setCursor] = useState<LspPosition | null>(null);
  const python = path !== null && /\.pyi?$/i.test(path);

  useEffect(() => {
    setSymbols([]);
    setCursor(null);
    if (!python || !path) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fetchSymbols = () =>
      bridge.request('language.documentSymbols', { path }).then(
        (found) => live && setSymbols(found),
        () => undefined,
      );
    if (ready) void fetchSymbols();
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
      subscriptions.push(
        editor.onDidChangeCursorPosition(take),
        editor.onDidChangeModel(take),
        editor.onDidChangeModelContent(() => {
          if (editor.getModel() !== modelOf()) return;
          clearTimeout(timer);
          timer = setTimeout(() => void fetchSymbols(), SYMBOLS_TYPING_PAUSE_MS);
        }),
      );
    };
    monaco.editor.getEditors().forEach(track);
    subscriptions.push(monaco.editor.onDidCreateEditor(track));
    return () => {
      live = false;
      clearTimeout(timer);
      subscriptions.forEach((s) => s.dispose());
    };
  }, [bridge, textModels, path, python, ready]);

  return cursor ? symbolPathAt(symbols, cursor) : [];
}
