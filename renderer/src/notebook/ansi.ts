import Anser from 'anser';

/**
 * ANSI SGR escapes (what IPython puts in tracebacks and what programs print) -> styled segments, read by
 * anser. Only colour and weight are kept; every other escape sequence is dropped so it never shows as garbage.
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

// anser reads CSI sequences (ESC [) only: OSC strings (window titles, links) and other ESC sequences go first.
// eslint-disable-next-line no-control-regex
const NON_CSI = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b(?!\[)[\x20-\x2f]*[\x30-\x7e]?/g;

/** xterm's 256-colour cube and grey ramp as CSS (anser names these only as `ansi-palette-N` classes). */
function paletteColour(n: number): string {
  if (n >= 232) {
    const grey = 8 + (n - 232) * 10;
    return `rgb(${grey}, ${grey}, ${grey})`;
  }
  const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
  const i = n - 16;
  return `rgb(${level(Math.floor(i / 36))}, ${level(Math.floor(i / 6) % 6)}, ${level(i % 6)})`;
}

/** anser's colour (with `use_classes`) as a class suffix ('red', 'bright-blue') or a CSS colour. */
function colourOf(name: string | null, truecolor: string | null): string | undefined {
  if (!name) return undefined;
  if (name === 'ansi-truecolor') return truecolor ? `rgb(${truecolor})` : undefined;
  if (name.startsWith('ansi-palette-')) return paletteColour(Number(name.slice('ansi-palette-'.length)));
  return name.slice('ansi-'.length);
}

function segmentOf(entry: Anser.AnserJsonEntry): AnsiSegment {
  const segment: AnsiSegment = { text: entry.content };
  const fg = colourOf(entry.fg, entry.fg_truecolor);
  const bg = colourOf(entry.bg, entry.bg_truecolor);
  if (fg) segment.fg = fg;
  if (bg) segment.bg = bg;
  for (const decoration of entry.decorations) {
    if (decoration === 'bold' || decoration === 'dim' || decoration === 'italic' || decoration === 'underline')
      segment[decoration] = true;
  }
  return segment;
}

/** Splits text into segments of one style each; empty segments are dropped. */
export function parseAnsi(text: string): AnsiSegment[] {
  if (!text.includes('\x1b')) return text ? [{ text }] : [];
  const entries = Anser.ansiToJson(text.replace(NON_CSI, ''), { json: true, remove_empty: true, use_classes: true });
  return entries.map(segmentOf);
}

/** The text without any escape sequences (for copying, searching, accessible names). */
export function stripAnsi(text: string): string {
  return text.includes('\x1b') ? Anser.ansiToText(text.replace(NON_CSI, '')) : text;
}
