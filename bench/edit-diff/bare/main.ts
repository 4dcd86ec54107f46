/**
 * The benchmark's baseline: Monaco's diff editor alone, no app around it. Exposes
 * `window.runBareDiff(original, modified, language)`: ms from having both texts to the diff painted.
 */
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import { waitForDiffPaint } from '../paint';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

// Like the app, where the open file's model lives on: without a live model Monaco stops its worker
// after each diff and the next diff would pay for starting a new one.
monaco.editor.createModel('', 'python');

declare global {
  interface Window {
    runBareDiff(original: string, modified: string, language: string): Promise<number>;
  }
}

window.runBareDiff = async (original, modified, language) => {
  const host = document.getElementById('host')!;
  const start = performance.now();
  // The options Kiln's DiffView uses.
  const editor = monaco.editor.createDiffEditor(host, {
    automaticLayout: true,
    readOnly: true,
    originalEditable: false,
    renderSideBySide: true,
    useInlineViewWhenSpaceIsLimited: false,
    fontSize: 13,
    scrollBeyondLastLine: false,
    minimap: { enabled: false },
  });
  const originalModel = monaco.editor.createModel(original, language);
  const modifiedModel = monaco.editor.createModel(modified, language);
  editor.setModel({ original: originalModel, modified: modifiedModel });
  const painted = await waitForDiffPaint(host);
  editor.dispose();
  originalModel.dispose();
  modifiedModel.dispose();
  return painted - start;
};
