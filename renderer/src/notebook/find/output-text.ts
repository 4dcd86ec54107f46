import type { MimeBundle, NotebookOutput } from '../../../../shared/contract';
import { joinMultiline } from '../../../../shared/contract';
import { chooseMime, rendererKind } from '../renderers/mime-rank';

/**
 * What find reads of an output: the text the operator sees, by what the output is drawn with. Rendering is
 * the page's job (markdown, KaTeX, DOMParser), so it comes in as readers; this part stays pure.
 */
export interface OutputReaders {
  /** The text an HTML output shows (its body's text, scripts and styles left out). */
  htmlText: (html: string) => string;
  /** A text/markdown output's rendered text. */
  markdownText: (source: string) => string;
  /** A text/latex output's rendered text (its source while the typesetter is not loaded). */
  latexText: (latex: string) => string;
}

// Colour escapes are not text the operator sees in an output.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** Readers for where no page renders: markup's tags taken out, nothing typeset (tests, and a fallback). */
export const PLAIN_READERS: OutputReaders = {
  htmlText: (html) =>
    html
      .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, '')
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  markdownText: (source) => source,
  latexText: (latex) => latex,
};

/** One output's text as find reads it ('' for what shows no text: images, charts, PDFs, scripts). */
export function outputText(output: NotebookOutput, readers: OutputReaders = PLAIN_READERS): string {
  const o = output as { output_type: string; text?: unknown; data?: MimeBundle; traceback?: unknown };
  if (o.output_type === 'stream') return joinMultiline(o.text as string | string[]).replace(ANSI, '');
  if (o.output_type === 'error') return Array.isArray(o.traceback) ? o.traceback.join('\n').replace(ANSI, '') : '';
  if (!o.data) return '';
  const mime = chooseMime(o.data);
  if (!mime) return '';
  const value = o.data[mime];
  const text = typeof value === 'string' || Array.isArray(value) ? joinMultiline(value as string | string[]) : '';
  switch (rendererKind(mime)) {
    case 'text':
    case 'stdout':
    case 'stderr':
      return text.replace(ANSI, '');
    case 'markdown':
      return readers.markdownText(text);
    case 'latex':
      return readers.latexText(text);
    case 'html':
      return readers.htmlText(text);
    case 'json':
      return jsonText(value);
    default:
      return '';
  }
}

/** A JSON value as its tree shows it: a line per key and value. */
export function jsonText(value: unknown, name: string | null = null): string {
  if (value === null || typeof value !== 'object') {
    const leaf = JSON.stringify(value) ?? String(value);
    return name === null ? leaf : `${name}: ${leaf}`;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const lines = entries.map(([key, child]) => jsonText(child, key));
  return (name === null ? lines : [name, ...lines]).join('\n');
}
