import { describe, expect, it } from 'vitest';
import { chooseMime, renderableMimes } from './mime-rank';

describe('chooseMime', () => {
  it('prefers a Plotly figure over its script-based HTML, as JupyterLab does', () => {
    const bundle = { 'text/html': '<script>…</script>', 'application/vnd.plotly.v1+json': {}, 'text/plain': 'Figure' };
    expect(chooseMime(bundle)).toBe('application/vnd.plotly.v1+json');
  });

  it('draws an Altair chart rather than its text/plain or its script-based text/html', () => {
    expect(chooseMime({ 'text/plain': 'alt.Chart(...)', 'application/vnd.vegalite.v4+json': {} })).toBe(
      'application/vnd.vegalite.v4+json',
    );
    expect(chooseMime({ 'text/html': '<script>vegaEmbed()</script>', 'application/vnd.vega.v5+json': {} })).toBe(
      'application/vnd.vega.v5+json',
    );
  });

  it('ranks html, markdown, latex, svg, png, text in that order', () => {
    const bundle = {
      'text/plain': 'x',
      'image/png': 'AA',
      'image/svg+xml': '<svg/>',
      'text/latex': '$x$',
      'text/markdown': '*x*',
      'text/html': '<b>x</b>',
    };
    expect(renderableMimes(bundle)).toEqual([
      'text/html',
      'text/markdown',
      'text/latex',
      'image/svg+xml',
      'image/png',
      'text/plain',
    ]);
  });

  it('shows an unknown +json only when there is no text/plain', () => {
    expect(chooseMime({ 'text/plain': 'W', 'application/vnd.jupyter.widget-view+json': {} })).toBe('text/plain');
    expect(chooseMime({ 'application/x-thing+json': { a: 1 } })).toBe('application/x-thing+json');
  });

  it("honours the operator's choice when the bundle has it, and ignores it otherwise", () => {
    const bundle = { 'text/html': '<b>x</b>', 'text/plain': 'x' };
    expect(chooseMime(bundle, 'text/plain')).toBe('text/plain');
    expect(chooseMime(bundle, 'image/png')).toBe('text/html');
  });

  it('answers null for a bundle with nothing Kiln draws', () => {
    expect(chooseMime({ 'application/x-unknown': 'x' })).toBeNull();
  });
});
