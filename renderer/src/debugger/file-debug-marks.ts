import { monaco, type CodeEditorContribution } from '../editor';
import { linesAfterEdit, paintDebugMarks } from './debug-marks';
import { useDebuggerStore } from './debugger-store';

function isPython(path: string | null): path is string {
  return Boolean(path?.toLowerCase().endsWith('.py'));
}

/**
 * A `.py` file's debugger marks in the text editor, as VS Code draws them: its breakpoints (a red dot in the
 * glyph margin; a click there or F9 toggles one) and, while a Debug Cell run is paused in it, the current line.
 * The host element carries `data-breakpoints` and `data-debug-line` (the marked line) for tests.
 */
export const fileDebugMarks: CodeEditorContribution = (editor, { bridge, pathOf, host }) => {
  const store = useDebuggerStore.of(bridge);
  const breakpoints = editor.createDecorationsCollection();
  const current = editor.createDecorationsCollection();
  let glyphMargin: boolean | null = null;
  let painted = { lines: [] as number[], pausedOnBreakpoint: false };
  const shown = () => {
    const path = pathOf(editor.getModel());
    return isPython(path) ? path : null;
  };

  const paint = () => {
    const path = shown();
    if (glyphMargin !== (path !== null)) {
      glyphMargin = path !== null;
      editor.updateOptions({ glyphMargin });
    }
    const lines = path ? store.fileBreakpointsOf(path) : [];
    const frame = path ? store.pausedFrame() : null;
    const line = frame && frame.file === path ? frame.line : null;
    paintDebugMarks('glyph', { breakpoints, current }, lines, line);
    painted = { lines, pausedOnBreakpoint: line !== null && lines.includes(line) };
    if (line === null) delete host.dataset.debugLine;
    else host.dataset.debugLine = String(line);
    if (path) host.dataset.breakpoints = lines.join(',');
    else delete host.dataset.breakpoints;
  };

  const focus = () => {
    const path = shown();
    // F9 acts on this file while its editor has focus; another kind of file has no breakpoints to toggle.
    store.focus(path ? { path, cellId: null, line: () => editor.getPosition()?.lineNumber ?? null } : null);
  };

  paint();
  const watching = store.subscribe(paint);
  const modelChange = editor.onDidChangeModel(() => {
    paint();
    if (editor.hasTextFocus()) focus();
  });
  const focusing = editor.onDidFocusEditorText(focus);
  // Breakpoints move with the lines the operator edits; a whole buffer replaced (a reload) keeps their numbers.
  const edits = editor.onDidChangeModelContent((event) => {
    const path = shown();
    if (!path || event.isFlush) return;
    const moved = linesAfterEdit({ breakpoints, current }, painted.lines, painted.pausedOnBreakpoint);
    if (moved) void store.setFileBreakpoints(path, moved);
  });
  const click = editor.onMouseDown((event) => {
    const path = shown();
    const line = event.target.position?.lineNumber;
    if (!path || !line || event.target.type !== monaco.editor.MouseTargetType.GUTTER_GLYPH_MARGIN) return;
    event.event.preventDefault();
    void store.toggleFileBreakpoint(path, line);
  });

  return () => {
    watching();
    modelChange.dispose();
    focusing.dispose();
    edits.dispose();
    click.dispose();
    breakpoints.clear();
    current.clear();
  };
};
