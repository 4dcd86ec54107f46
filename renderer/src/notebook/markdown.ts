import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import type { MimeBundle } from '../../../shared/contract';

// marked and DOMPurify ship with Monaco (same pinned versions); no extra download.
const marked = new Marked({ gfm: true, breaks: false, async: false });

/**
 * Markdown (a markdown cell or a text/markdown output) as sanitized HTML: no script, no event handlers,
 * no javascript: links. Images named `attachment:x` resolve to the cell's attachments.
 */
export function renderMarkdown(source: string, attachments?: Record<string, MimeBundle>): string {
  const raw = marked.parse(source) as string;
  const clean = DOMPurify.sanitize(raw, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button'],
  });
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
