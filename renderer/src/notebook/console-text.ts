/**
 * Terminal-like fixes for stream text, and the cut that keeps huge outputs cheap to show.
 * Both run on every repaint of a streaming cell, so they avoid work when the text has nothing to fix.
 */

/** Applies carriage returns (overwrite from the line start) and backspaces, as a terminal would show them. */
export function fixConsole(text: string): string {
  if (!text.includes('\r') && !text.includes('\b')) return text;
  text = text.replace(/\r+\n/g, '\n');
  if (!text.includes('\r') && !text.includes('\b')) return text;
  const lines = text.split('\n');
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l];
    if (!line.includes('\r') && !line.includes('\b')) continue;
    const buf: string[] = [];
    let cursor = 0;
    for (const ch of line) {
      if (ch === '\r') cursor = 0;
      else if (ch === '\b') cursor = Math.max(0, cursor - 1);
      else {
        buf[cursor] = ch;
        cursor += 1;
      }
    }
    // A backspace at the very end erases, as Jupyter shows it ("ab\b" -> "a").
    let end = buf.length;
    if (line.endsWith('\b')) end = cursor;
    lines[l] = buf.slice(0, end).join('');
  }
  return lines.join('\n');
}

export interface TextCut {
  /** Shown first. */
  head: string;
  /** Lines left out between head and tail (0 when nothing is cut). */
  hiddenLines: number;
  /** Shown after the cut ('' when nothing is cut). */
  tail: string;
  totalLines: number;
}

/** Counts lines without splitting (a 100,000-line output stays one string). */
export function countLines(text: string): number {
  if (!text) return 0;
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count += 1;
  // A trailing newline ends the last line rather than starting an empty one.
  return text.endsWith('\n') ? count - 1 : count;
}

/**
 * Keeps the first `headLines` and the last `tailLines` lines when the text is longer than both; also caps
 * the characters kept (one enormous line must not freeze the window either).
 */
export function cutText(text: string, headLines: number, tailLines: number, maxChars = 400_000): TextCut {
  const totalLines = countLines(text);
  if (totalLines <= headLines + tailLines && text.length <= maxChars)
    return { head: text, hiddenLines: 0, tail: '', totalLines };
  let headEnd = 0;
  for (let n = 0; n < headLines; n++) {
    const next = text.indexOf('\n', headEnd);
    if (next === -1) {
      headEnd = text.length;
      break;
    }
    headEnd = next + 1;
  }
  let tailStart = text.length;
  // Skip the final newline so the tail is whole lines.
  let searchFrom = text.endsWith('\n') ? text.length - 2 : text.length - 1;
  for (let n = 0; n < tailLines; n++) {
    const prev = text.lastIndexOf('\n', searchFrom);
    if (prev === -1 || prev < headEnd) {
      tailStart = headEnd;
      break;
    }
    tailStart = prev + 1;
    searchFrom = prev - 1;
  }
  let head = text.slice(0, headEnd);
  let tail = tailStart > headEnd ? text.slice(tailStart) : '';
  const half = Math.floor(maxChars / 2);
  if (head.length > half) head = `${head.slice(0, half)}…\n`;
  if (tail.length > half) tail = `…${tail.slice(tail.length - half)}`;
  const hiddenLines = tailStart > headEnd ? countLines(text.slice(headEnd, tailStart)) : 0;
  return { head, hiddenLines, tail, totalLines };
}
