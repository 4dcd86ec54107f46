import type { KilnBridge } from '../../../shared/contract';
import { relativeToFile, type TreeDragInFlight } from '../drag-out';
import { monaco } from './monaco-setup';

/** Opens a dropped row if it is a file (a folder dropped without Shift has nothing to open in an editor). */
export function openIfFile(bridge: KilnBridge, open: (path: string) => void): (path: string) => void {
  return (path) =>
    void bridge.request('workspace.stat', { path }).then(
      (entry) => entry.kind === 'file' && open(path),
      () => undefined,
    );
}

export interface TreePathDropOptions {
  /** The workspace-relative path of the open file (a notebook's for its cells); null when it has none. */
  fileOf: () => string | null;
  open: (path: string) => void;
  /** The window's tree drag (its rows come as OS files in Electron). */
  treeDrag: TreeDragInFlight;
}

/**
 * Tree rows dropped on a Monaco editor, as in VS Code: with Shift held, each path relative to the open file is
 * inserted where it is dropped; without, the files open. Listened for in the capture phase on the editor's host,
 * so Monaco's own drop (which would paste the drag's text) never sees a tree drag.
 */
export function attachTreePathDrop(
  editor: monaco.editor.ICodeEditor,
  host: HTMLElement,
  options: TreePathDropOptions,
): () => void {
  const over = (event: DragEvent) => {
    if (!event.dataTransfer || !options.treeDrag.isTreeDrag(event.dataTransfer)) return;
    event.preventDefault();
    event.stopPropagation();
    // 'copy' either way: the tree allows copy and move only, and a drop whose effect it does not allow never comes.
    event.dataTransfer.dropEffect = 'copy';
  };
  const drop = (event: DragEvent) => {
    const paths = event.dataTransfer ? options.treeDrag.pathsOf(event.dataTransfer) : null;
    if (!paths) return;
    event.preventDefault();
    event.stopPropagation();
    const from = options.fileOf();
    if (!event.shiftKey || from === null || editor.getOption(monaco.editor.EditorOption.readOnly)) {
      for (const path of paths) options.open(path);
      return;
    }
    const at = editor.getTargetAtClientPoint(event.clientX, event.clientY)?.position ?? editor.getPosition();
    if (!at) return;
    // Several paths go in separated by spaces, as VS Code's drop of several files does.
    const text = paths.map((path) => relativeToFile(from, path)).join(' ');
    const range = new monaco.Range(at.lineNumber, at.column, at.lineNumber, at.column);
    editor.executeEdits('kiln.dropPath', [{ range, text, forceMoveMarkers: true }]);
    editor.setPosition({ lineNumber: at.lineNumber, column: at.column + text.length });
    editor.focus();
  };
  host.addEventListener('dragenter', over, true);
  host.addEventListener('dragover', over, true);
  host.addEventListener('drop', drop, true);
  return () => {
    host.removeEventListener('dragenter', over, true);
    host.removeEventListener('dragover', over, true);
    host.removeEventListener('drop', drop, true);
  };
}
