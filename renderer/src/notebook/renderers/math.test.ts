import katex from 'katex';
import { describe, expect, it, vi } from 'vitest';
import { latexToHtml, latexToHtmlCached, splitMath, typeset } from './math';

describe('splitMath', () => {
  it('finds inline, display and environment math, and leaves code and escaped dollars as text', () => {
    const segments = splitMath(
      'a $x_1$ b $$\\frac{1}{2}$$ c \\(y\\) `$not$` \\$5\n\\begin{align}a&=b\\end{align}\n```\n$code$\n```',
    );
    expect(
      segments
        .filter((s) => s.kind === 'math')
        .map((s) => [s.kind === 'math' && s.tex, s.kind === 'math' && s.display]),
    ).toEqual([
      ['x_1', false],
      ['\\frac{1}{2}', true],
      ['y', false],
      ['\\begin{align}a&=b\\end{align}', true],
    ]);
    expect(segments.map((s) => (s.kind === 'text' ? s.text : '')).join('')).toContain('`$not$`');
    expect(segments.map((s) => (s.kind === 'text' ? s.text : '')).join('')).toContain('$code$');
  });

  it('does not pair dollars across a blank line', () => {
    expect(splitMath('costs $5\n\nand $6').every((s) => s.kind === 'text')).toBe(true);
  });
});

// Markdown cells (marked + DOMPurify need a DOM) are covered by e2e/notebook-outputs.spec.ts.

describe('typeset', () => {
  it('marks what KaTeX cannot parse and keeps its source', () => {
    const html = typeset(katex, '\\unknowncommand{x}', false);
    expect(html).toContain('katex-error');
    expect(html).toContain('\\unknowncommand');
  });

  it('shows the source until KaTeX is loaded', () => {
    expect(typeset(null, 'x^2', false)).toContain('nb-math-pending');
  });
});

describe('latexToHtml', () => {
  it("typesets sympy's $\\displaystyle …$ output", () => {
    const html = latexToHtml(katex, '$\\displaystyle \\frac{x^{2}}{2}$');
    expect(html).toContain('class="katex"');
    expect(html.replace(/<annotation[\s\S]*?<\/annotation>/g, '')).not.toContain('\\frac');
  });

  it('typesets undelimited LaTeX as one display formula, and can emit MathML only (for export)', () => {
    const html = latexToHtml(katex, '\\sqrt{2}', 'mathml');
    expect(html).toContain('<math');
    expect(html).not.toContain('katex-html');
  });
});

describe('latexToHtmlCached', () => {
  it('typesets a source once: a cell made again reuses its HTML; the source until KaTeX is there is not kept', () => {
    const renderToString = vi.spyOn(katex, 'renderToString');
    const source = '$\\displaystyle \\frac{y^{3}}{7}$';
    expect(latexToHtmlCached(null, source)).toContain('nb-math-pending');
    const first = latexToHtmlCached(katex, source);
    expect(first).toBe(latexToHtml(katex, source));
    renderToString.mockClear();
    expect(latexToHtmlCached(katex, source)).toBe(first);
    expect(renderToString).not.toHaveBeenCalled();
    // Another source is typeset.
    expect(latexToHtmlCached(katex, '$z_1$')).toContain('class="katex"');
    expect(renderToString).toHaveBeenCalledTimes(1);
    renderToString.mockRestore();
  });
});
