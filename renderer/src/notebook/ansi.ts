/**
 * ANSI SGR escapes (what IPython puts in tracebacks and what programs print) -> styled segments.
 * Only colour and weight are kept; every other escape sequence is dropped so it never shows as garbage.
 */

export interface AnsiSegment {
  text: string;
  /** Foreground: a class suffix for the 16 standard colours ('red', 'bright-blue') or a CSS colour. */
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** xterm's 256-colour palette entry as CSS. */
function color256(n: number): string {
  if (n < 8) return NAMES[n];
  if (n < 16) return `bright-${NAMES[n - 8]}`;
  if (n < 232) {
    const i = n - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `rgb(${level(Math.floor(i / 36))}, ${level(Math.floor(i / 6) % 6)}, ${level(i % 6)})`;
  }
  const grey = 8 + (n - 232) * 10;
  return `rgb(${grey}, ${grey}, ${grey})`;
}

type Style = Omit<AnsiSegment, 'text'>;

function applySgr(style: Style, params: number[]): Style {
  const next: Style = { ...style };
  if (params.length === 0) params = [0];
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === 0) {
      for (const key of Object.keys(next) as (keyof Style)[]) delete next[key];
    } else if (p === 1) next.bold = true;
    else if (p === 2) next.dim = true;
    else if (p === 3) next.italic = true;
    else if (p === 4) next.underline = true;
    else if (p === 22) {
      delete next.bold;
      delete next.dim;
    } else if (p === 23) delete next.italic;
    else if (p === 24) delete next.underline;
    else if (p >= 30 && p <= 37) next.fg = NAMES[p - 30];
    else if (p === 39) delete next.fg;
    else if (p >= 40 && p <= 47) next.bg = NAMES[p - 40];
    else if (p === 49) delete next.bg;
    else if (p >= 90 && p <= 97) next.fg = `bright-${NAMES[p - 90]}`;
    else if (p >= 100 && p <= 107) next.bg = `bright-${NAMES[p - 100]}`;
    else if (p === 38 || p === 48) {
      const key = p === 38 ? 'fg' : 'bg';
      if (params[i + 1] === 5 && params[i + 2] !== undefined) {
        next[key] = color256(params[i + 2]);
        i += 2;
      } else if (params[i + 1] === 2 && params[i + 4] !== undefined) {
        next[key] = `rgb(${params[i + 2]}, ${params[i + 3]}, ${params[i + 4]})`;
        i += 4;
      }
    }
  }
  return next;
}

// CSI sequences (ESC [ ... final byte), OSC (ESC ] ... BEL or ESC \), and two-byte escapes.
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;

/** Splits text into segments of one style each; empty segments are dropped. */
export function parseAnsi(text: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  if (!text.includes('\x1b')) return text ? [{ text }] : [];
  let style: Style = {};
  let last = 0;
  const push = (chunk: string) => {
    if (chunk) segments.push({ text: chunk, ...style });
  };
  for (const match of text.matchAll(ESCAPE)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm') {
      const params = match[1] === '' ? [] : match[1].split(';').map((v) => Number.parseInt(v, 10) || 0);
      style = applySgr(style, params);
    }
  }
  push(text.slice(last));
  return segments;
}

/** The text without any escape sequences (for copying, searching, accessible names). */
export function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(ESCAPE, '') : text;
}
