import { monaco } from '../editor';
import type { CellEditorContribution } from '../notebook';
import { linesAfterEdit, paintDebugMarks } from './debug-marks';
import { useDebuggerStore } from './debugger-store';

/**
 * A code cell's debugger marks: its breakpoints (a red dot in the gutter; a click there or F9 toggles one) and,
 * while paused in it, the current line. The host element carries `data-debug-line` (the marked line) for tests.
 */
export const cellDebugMarks: CellEditorContribution = (editor, { bridge, cellId, notebookPath, host }) => {
  if (!notebookPath) return () => undefined;
  const path = notebookPath;
  const store = useDebuggerStore.of(bridge);
  const breakpoints = editor.createDecorationsCollection();
  const current = editor.createDecorationsCollection();
  let painted = { lines: [] as number[], pausedOnBreakpoint: false };

  const paint = () => {
    const lines = store.breakpointsOf(path)[cellId] ?? [];
    const session = store.session(path);
    const frame = session?.status === 'paused' ? session.frames[store.getState().selectedFrame] : undefined;
    const line = frame?.cellId === cellId ? frame.line : null;
    paintDebugMarks('lines', { breakpoints, current }, lines, line);
    painted = { lines, pausedOnBreakpoint: line !== null && lines.includes(line) };
    if (line === null) delete host.dataset.debugLine;
    else if (host.dataset.debugLine !== String(line)) {
      host.dataset.debugLine = String(line);
      // The paused line shows: the notebook scrolls to the cell as VS Code's does.
      host.scrollIntoView({ block: 'nearest' });
    }
    host.dataset.breakpoints = lines.join(',');
  };
  paint();
  const watching = store.subscribe(paint);

  const click = editor.onMouseDown((event) => {
    const type = event.target.type;
    const gutter =
      type === monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS ||
      type === monaco.editor.MouseTargetType.GUTTER_GLYPH_MARGIN ||
      type === monaco.editor.MouseTargetType.GUTTER_LINE_NUMBERS;
    const line = event.target.position?.lineNumber;
    if (!gutter || !line) return;
    event.event.preventDefault();
    void store.toggleBreakpoint(path, cellId, line);
  });
  // Breakpoints move with the lines the operator edits; a source replaced whole (from disk) keeps their numbers.
  const edits = editor.onDidChangeModelContent((event) => {
    if (event.isFlush) return;
    const moved = linesAfterEdit({ breakpoints, current }, painted.lines, painted.pausedOnBreakpoint);
    if (moved) void store.setCellBreakpoints(path, cellId, moved);
  });
  const focus = editor.onDidFocusEditorText(() =>
    store.focus({ path, cellId, line: () => editor.getPosition()?.lineNumber ?? null }),
  );

  return () => {
    watching();
    click.dispose();
    edits.dispose();
    focus.dispose();
    breakpoints.clear();
    current.clear();
    if (store.getState().focused?.cellId === cellId) store.focus(null);
  };
};
