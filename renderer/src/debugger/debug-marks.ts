import { monaco } from '../editor';

/** Where an editor draws the marks: a cell's line decorations, or a file's glyph margin as VS Code's does. */
export type MarkGutter = 'lines' | 'glyph';

function gutterMark(gutter: MarkGutter, className: string, hover?: string): monaco.editor.IModelDecorationOptions {
  return gutter === 'lines'
    ? { linesDecorationsClassName: className, linesDecorationsTooltip: hover }
    : { glyphMarginClassName: className, glyphMarginHoverMessage: hover ? { value: hover } : undefined };
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
