/**
 * nbconvert's HTML templates load require.js and MathJax from a CDN. The exported page draws its math and
 * charts without them (Kiln puts MathML and SVG into the notebook first), so every script or stylesheet
 * that would come from the network is removed: the file opens offline and calls nowhere.
 */
export function withoutNetworkLoads(html: string): string {
  return html
    .replace(/<script\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\/[^>]*>[\s\S]*?<\/script\s*>/gi, '')
    .replace(/<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^>]*>/gi, '')
    .replace(/<script\b[^>]*type\s*=\s*["']?text\/x-mathjax-config[^>]*>[\s\S]*?<\/script\s*>/gi, '');
}

/** Whether a page still has something that would load from the network (for tests and a last check). */
export function loadsFromNetwork(html: string): boolean {
  return /<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i.test(html);
}
