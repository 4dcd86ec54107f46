import { renderMarkdown } from '../markdown';
import { katexIfLoaded, latexToHtml } from '../renderers/math';
import { PLAIN_READERS, type OutputReaders } from './output-text';

/**
 * Find's readers in the page: markdown and LaTeX rendered as their outputs are, and HTML read with DOMParser
 * (which runs no script and loads nothing), never by reaching into an HTML output's sandboxed frame.
 */

/** The text HTML shows: its body without scripts, styles and KaTeX's MathML copy (hidden from sight). */
export function textOfHtml(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, style, template, .katex-mathml').forEach((node) => node.remove());
  return doc.body.textContent ?? '';
}

/** Rendering costs more than searching: each text is read once per query session and kept (bounded). */
const MAX_KEPT = 2000;
function kept(read: (text: string) => string): (text: string) => string {
  const cache = new Map<string, string>();
  return (text) => {
    let found = cache.get(text);
    if (found === undefined) {
      if (cache.size >= MAX_KEPT) cache.clear();
      found = read(text);
      cache.set(text, found);
    }
    return found;
  };
}

function pageReaders(): OutputReaders {
  const html = kept(textOfHtml);
  // Typeset text differs from the source once KaTeX is there: the cache is keyed by both.
  const typesetKey = (prefix: string, text: string) => `${katexIfLoaded() ? 'k' : 's'}${prefix}${text}`;
  const markdown = kept((key) => textOfHtml(renderMarkdown(key.slice(2), undefined, katexIfLoaded())));
  const latex = kept((key) => textOfHtml(latexToHtml(katexIfLoaded(), key.slice(2))));
  return {
    htmlText: html,
    markdownText: (source) => markdown(typesetKey('m', source)),
    latexText: (source) => latex(typesetKey('l', source)),
  };
}

// process-wide: made once for the page from its DOMParser and loaded libraries.
let readers: OutputReaders | null = null;

/** The page's readers (plain ones where there is no DOMParser, as in unit tests). */
export function outputReaders(): OutputReaders {
  if (typeof DOMParser === 'undefined') return PLAIN_READERS;
  readers ??= pageReaders();
  return readers;
}
