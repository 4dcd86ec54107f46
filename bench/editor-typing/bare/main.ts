/**
 * The typing benchmark's baseline: one Monaco editor alone, no app around it, with Kiln's options for a large
 * file. `window.openBare(text)` shows `text` in it and focuses the end of the document.
 */
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

declare global {
  interface Window {
    openBare(text: string): void;
  }
}

window.openBare = (text) => {
  const editor = monaco.editor.create(document.getElementById('host')!, {
    automaticLayout: true,
    fontSize: 13,
    scrollBeyondLastLine: false,
    renderLineHighlight: 'line',
    smoothScrolling: true,
    fixedOverflowWidgets: true,
    minimap: { enabled: false },
    largeFileOptimizations: true,
    folding: false,
    wordWrap: 'off',
    occurrencesHighlight: 'off',
    renderValidationDecorations: 'off',
    stopRenderingLineAfter: 2000,
  });
  editor.setModel(monaco.editor.createModel(text, 'plaintext'));
};
