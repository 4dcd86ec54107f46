/**
 * The typing benchmark's baseline: one Monaco editor alone, no app around it, with Kiln's own options for a large
 * file. `window.openBare(text)` shows `text` in it and focuses the end of the document.
 */
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import { EDITOR_OPTIONS, fileOptions } from '../../../renderer/src/editor/editor-options';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

declare global {
  interface Window {
    openBare(text: string): void;
  }
}

window.openBare = (text) => {
  const editor = monaco.editor.create(document.getElementById('host')!, {
    ...EDITOR_OPTIONS,
    ...fileOptions({ large: true, truncated: false, minimap: true }),
  });
  editor.setModel(monaco.editor.createModel(text, 'plaintext'));
};
