import { monaco } from '../editor';

/** Where an editor draws the marks: a cell's line decorations, or a file's glyph margin as VS Code's does. */
export type MarkGutter = 'lines' | 'glyph';

function gutterMark(gutter: MarkGutter, className: string, hover?: string): monaco.editor.IModelDecorationOptions {
  // As VS Code's: a line inserted above (or Enter at the line's start) carries the mark down with its code.
  const stickiness = monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges;
  return gutter === 'lines'
    ? { linesDecorationsClassName: className, linesDecorationsTooltip: hover, stickiness }
    : { glyphMarginClassName: className, glyphMarginHoverMessage: hover ? { value: hover } : undefined, stickiness };
}

/**
 * Paints an editor's breakpoints and the paused line (null when not paused there). The paused line's mark says
 * both when it sits on a breakpoint: it is drawn in place of the breakpoint's dot.
 */
export function paintDebugMarks(
  gutter: MarkGutter,
  collections: {
    breakpoints: monaco.editor.IEditorDecorationsCollection;
    current: monaco.editor.IEditorDecorationsCollection;
  },
  lines: readonly number[],
  line: number | null,
): void {
  collections.breakpoints.set(
    lines
      .filter((l) => l !== line)
      .map((l) => ({
        range: new monaco.Range(l, 1, l, 1),
        options: gutterMark(gutter, 'debug-breakpoint', 'Breakpoint (F9)'),
      })),
  );
  const arrow = lines.includes(line ?? 0) ? 'debug-current-arrow debug-current-on-breakpoint' : 'debug-current-arrow';
  collections.current.set(
    line === null
      ? []
      : [
          {
            range: new monaco.Range(line, 1, line, 1),
            options: { isWholeLine: true, className: 'debug-current-line', ...gutterMark(gutter, arrow) },
          },
        ],
  );
}

/**
 * The breakpoint lines after an edit, read from where the editor carried the marks (a paused line's mark stands in
 * for the breakpoint it covers); sorted, without the repeats of lines an edit joined. Null when nothing moved.
 */
export function linesAfterEdit(
  collections: {
    breakpoints: monaco.editor.IEditorDecorationsCollection;
    current: monaco.editor.IEditorDecorationsCollection;
  },
  before: readonly number[],
  pausedOnBreakpoint: boolean,
): number[] | null {
  const carried = collections.breakpoints.getRanges().map((r) => r.startLineNumber);
  if (pausedOnBreakpoint) carried.push(...collections.current.getRanges().map((r) => r.startLineNumber));
  const lines = [...new Set(carried)].sort((a, b) => a - b);
  const same = lines.length === before.length && [...before].sort((a, b) => a - b).every((l, i) => l === lines[i]);
  return same ? null : lines;
}
