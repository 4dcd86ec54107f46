import type { LspPosition, LspTextEdit } from '../../shared/contract';

/** The UTF-16 offset of an LSP position in `text` (LSP's default encoding is JavaScript's own), clamped to the text. */
export function offsetAt(text: string, position: LspPosition): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  const end = lineEnd < 0 ? text.length : lineEnd;
  return Math.min(offset + position.character, end);
}

/** Applies edits that all refer to the same original text (as a WorkspaceEdit's do), last first. */
export function applyTextEdits(text: string, edits: readonly Pick<LspTextEdit, 'range' | 'newText'>[]): string {
  const spans = edits
    .map((edit) => ({
      start: offsetAt(text, edit.range.start),
      end: offsetAt(text, edit.range.end),
      text: edit.newText,
    }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  for (const span of spans) result = result.slice(0, span.start) + span.text + result.slice(span.end);
  return result;
}
