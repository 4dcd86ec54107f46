/**
 * The notebook-diff benchmark's baseline: Monaco's diff editor alone, no app around it. Exposes
 * `window.runBareNotebookDiff(baseUrl, nextUrl)`: from its call, fetches the two notebook files, parses them,
 * concatenates each one's cell sources and shows the two as one plain diff (Kiln's DiffView options); resolves
 * with the ms to the frame after the diff is computed (its decorations painted).
 */
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';

self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

// As in the app, a live model keeps Monaco's worker up between diffs.
monaco.editor.createModel('', 'python');

declare global {
  interface Window {
    runBareNotebookDiff(baseUrl: string, nextUrl: string): Promise<number>;
  }
}

function sources(text: string): string {
  const nb = JSON.parse(text) as { cells: { source: string | string[] }[] };
  return nb.cells.map((cell) => (Array.isArray(cell.source) ? cell.source.join('') : cell.source)).join('\n');
}

window.runBareNotebookDiff = async (baseUrl, nextUrl) => {
  const start = performance.now();
  const host = document.getElementById('host')!;
  const [base, next] = await Promise.all([baseUrl, nextUrl].map((url) => fetch(url).then((r) => r.text())));
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
  const originalModel = monaco.editor.createModel(sources(base), 'python');
  const modifiedModel = monaco.editor.createModel(sources(next), 'python');
  const computed = new Promise<void>((resolve) => {
    const sub = editor.onDidUpdateDiff(() => {
      sub.dispose();
      resolve();
    });
  });
  editor.setModel({ original: originalModel, modified: modifiedModel });
  await computed;
  const painted = await new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now())));
  editor.dispose();
  originalModel.dispose();
  modifiedModel.dispose();
  return painted - start;
};
