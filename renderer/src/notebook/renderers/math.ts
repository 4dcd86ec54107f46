import type katexModule from 'katex';

/*
 * Math is typeset with KaTeX rather than MathJax 3. Measured in Node 20 on a shared, busy 2-core machine, on
 * 500 formulas as sympy's latex() prints them (integrals, sums, matrices, cases, \left.\right|_{\substack},
 * \binom, Bessel functions, ...), display mode: KaTeX 1.4 s cold / 0.44 s warm, MathJax 3.2's TeX-to-CHTML
 * 5.8 s cold / 3.6 s warm (4-8x slower). Both parsed all 500. KaTeX is also synchronous (a cell's math is
 * there in the same frame, no re-layout pass) and its chunk (268 KB) is a fifth of MathJax's (1.3 MB).
 * What KaTeX can't parse shows its source with an error mark, never a blank.
 */

export type Katex = typeof katexModule;

export type MathSegment =
  { kind: 'text'; text: string } | { kind: 'math'; tex: string; display: boolean; source: string };

// Order matters: code first (math inside code is code), then escaped dollars, then the delimiters.
const TOKENS = new RegExp(
  [
    '^(?<fence>```|~~~)[^\\n]*\\n[\\s\\S]*?(?:\\n\\k<fence>[^\\n]*(?=\\n|$)|$(?![\\s\\S]))', // fenced code
    '(?<ticks>`+)[\\s\\S]*?\\k<ticks>', // inline code
    '\\\\\\$', // \$ : a literal dollar
    '\\$\\$(?<dd>[\\s\\S]+?)\\$\\$', // $$…$$
    '\\\\\\[(?<bracket>[\\s\\S]+?)\\\\\\]', // \[…\]
    '\\\\\\((?<paren>[\\s\\S]+?)\\\\\\)', // \(…\)
    '\\\\begin\\{(?<env>[a-zA-Z*]+)\\}[\\s\\S]*?\\\\end\\{\\k<env>\\}', // \begin{env}…\end{env}
    '\\$(?<d>(?:\\\\.|[^$\\\\\\n]|\\n(?!\\s*\\n))+?)\\$', // $…$ within one paragraph
  ].join('|'),
  'gm',
);

/** Splits text (markdown or a text/latex output) into plain text and math, code spans left as text. */
export function splitMath(text: string): MathSegment[] {
  const segments: MathSegment[] = [];
  let last = 0;
  const pushText = (value: string) => {
    if (!value) return;
    const prev = segments[segments.length - 1];
    if (prev?.kind === 'text') prev.text += value;
    else segments.push({ kind: 'text', text: value });
  };
  for (const match of text.matchAll(TOKENS)) {
    const groups = match.groups ?? {};
    const whole = match[0];
    const start = match.index ?? 0;
    pushText(text.slice(last, start));
    last = start + whole.length;
    if (groups.fence !== undefined || groups.ticks !== undefined || whole === '\\$') {
      pushText(whole);
      continue;
    }
    const display = groups.d === undefined && groups.paren === undefined;
    const tex = groups.dd ?? groups.bracket ?? groups.paren ?? groups.d ?? whole;
    if (!tex.trim()) {
      pushText(whole);
      continue;
    }
    segments.push({ kind: 'math', tex: tex.trim(), display, source: whole });
  }
  pushText(text.slice(last));
  return segments;
}

export function hasMath(text: string): boolean {
  return (text.includes('$') || text.includes('\\')) && splitMath(text).some((segment) => segment.kind === 'math');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * One formula as HTML. KaTeX never emits script or event handlers (`trust: false`); a parse error becomes
 * the source in a `.katex-error` span (styled as an error mark). Without KaTeX yet: the source, escaped.
 */
export function typeset(
  katex: Katex | null,
  tex: string,
  display: boolean,
  output: 'htmlAndMathml' | 'mathml' = 'htmlAndMathml',
): string {
  if (!katex) return `<span class="nb-math-pending">${escapeHtml(display ? `$$${tex}$$` : `$${tex}$`)}</span>`;
  try {
    return katex.renderToString(tex, {
      displayMode: display,
      throwOnError: true,
      output,
      trust: false,
      strict: 'ignore',
    });
  } catch (error) {
    // An unknown command or a syntax error: the source, marked, with KaTeX's reason as its tooltip.
    const reason = error instanceof Error ? error.message : String(error);
    const source = display ? `$$${tex}$$` : `$${tex}$`;
    return `<span class="katex-error" title="${escapeHtml(reason)}">${escapeHtml(source)}</span>`;
  }
}

/** A text/latex output as HTML: its math typeset, the text around it escaped. Undelimited LaTeX is one formula. */
export function latexToHtml(katex: Katex | null, latex: string, output?: 'htmlAndMathml' | 'mathml'): string {
  const segments = splitMath(latex);
  if (!segments.some((segment) => segment.kind === 'math')) return typeset(katex, latex.trim(), true, output);
  return segments
    .map((segment) =>
      segment.kind === 'math' ? typeset(katex, segment.tex, segment.display, output) : escapeHtml(segment.text),
    )
    .join('');
}

/** Typeset outputs kept by their source: a cell made again (scrolled back, re-run alike, re-themed) skips KaTeX. */
const CACHED_OUTPUTS = 500;
// process-wide: KaTeX's output depends on the source alone, the same in every window.
const typesetOutputs = new Map<string, string>();

/** latexToHtml for the live notebook, remembered per source (the oldest forgotten first). */
export function latexToHtmlCached(katex: Katex | null, latex: string): string {
  if (!katex) return latexToHtml(null, latex);
  const cached = typesetOutputs.get(latex);
  if (cached !== undefined) return cached;
  const html = latexToHtml(katex, latex);
  if (typesetOutputs.size >= CACHED_OUTPUTS) typesetOutputs.delete(typesetOutputs.keys().next().value!);
  typesetOutputs.set(latex, html);
  return html;
}

/**
 * The KaTeX fonts nearly every formula uses: its upright and italic text, and the display-size integrals, sums
 * and delimiters. Fetched with KaTeX, so formulas are laid out once in their fonts; a font asked for by layout
 * alone came a second later and laid every formula on screen out again.
 */
const COMMON_FONTS = ['1em KaTeX_Main', 'italic 1em KaTeX_Math', '1em KaTeX_Size1', '1em KaTeX_Size2'];

function loadCommonFonts(): Promise<unknown> {
  if (typeof document === 'undefined' || !document.fonts) return Promise.resolve();
  return Promise.all(COMMON_FONTS.map((font) => document.fonts.load(font))).catch((err: unknown) => {
    // Expected only when a font can't be fetched: formulas draw in a fallback font, then in KaTeX's when it comes.
    console.warn('Kiln: KaTeX fonts could not be preloaded', err);
  });
}

// process-wide: KaTeX loaded once for the page.
let loaded: Katex | null = null;
let loading: Promise<Katex> | null = null;

/** KaTeX, its stylesheet and its common fonts, fetched once on first use (a chunk of its own). */
export function loadKatex(): Promise<Katex> {
  loading ??= Promise.all([
    import('katex'),
    // The @font-face rules exist once the stylesheet is in: the fonts are asked for then, as KaTeX's script loads.
    import('katex/dist/katex.min.css').then(loadCommonFonts),
  ]).then(([module]) => {
    loaded = module.default;
    return loaded;
  });
  return loading;
}

export function katexIfLoaded(): Katex | null {
  return loaded;
}
