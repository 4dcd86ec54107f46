import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import type { MimeBundle } from '../../../shared/contract';
import { splitMath, typeset, type Katex } from './renderers/math';

// marked and DOMPurify ship with Monaco (same pinned versions); no extra download.
const marked = new Marked({ gfm: true, breaks: false, async: false });

// Private-use characters around a formula's index: marked and DOMPurify pass them through untouched.
const MATH_MARK = /\uE000(\d+)\uE001/g;

/**
 * Markdown (a markdown cell or a text/markdown output) as sanitized HTML: no script, no event handlers,
 * no javascript: links. Images named `attachment:x` resolve to the cell's attachments. Math is taken out
 * before marked reads the text (so `$a_1 * b_2$` keeps its `_` and `*`) and typeset after sanitizing;
 * without KaTeX (not loaded yet) it shows as its source.
 */
export function renderMarkdown(
  source: string,
  attachments?: Record<string, MimeBundle>,
  katex: Katex | null = null,
  mathOutput?: 'htmlAndMathml' | 'mathml',
): string {
  const formulas: { tex: string; display: boolean }[] = [];
  const protectedSource = splitMath(source)
    .map((segment) => {
      if (segment.kind === 'text') return segment.text;
      formulas.push(segment);
      return `\uE000${formulas.length - 1}\uE001`;
    })
    .join('');
  const raw = marked.parse(protectedSource) as string;
  const sanitized = DOMPurify.sanitize(raw, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button'],
  });
  const clean = formulas.length
    ? sanitized.replace(MATH_MARK, (whole, index: string) => {
        const formula = formulas[Number(index)];
        return formula ? typeset(katex, formula.tex, formula.display, mathOutput) : whole;
      })
    : sanitized;
  if (!attachments || !clean.includes('attachment:')) return clean;
  return clean.replace(/src="attachment:([^"]+)"/g, (whole, name: string) => {
    const bundle = attachments[decodeURIComponent(name)];
    if (!bundle) return whole;
    const mime = Object.keys(bundle).find((m) => m.startsWith('image/') && m !== 'image/svg+xml') ?? null;
    const data = mime ? bundle[mime] : null;
    if (!mime || typeof data !== 'string') return whole;
    return `src="data:${mime};base64,${data.replace(/\s+/g, '')}"`;
  });
}
