import { describe, expect, it } from 'vitest';
import { chooseMime, renderableMimes, rendererKind } from './mime-rank';

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
    expect(chooseMime({ 'text/plain': 'W', 'application/x-thing+json': {} })).toBe('text/plain');
    expect(chooseMime({ 'application/x-thing+json': { a: 1 } })).toBe('application/x-thing+json');
  });

  it("draws every type JupyterLab's standard renderers draw, in JupyterLab's order", () => {
    const bundle = {
      'application/vnd.jupyter.stderr': 'e',
      'application/vnd.jupyter.stdout': 'o',
      'text/plain': 'x',
      'application/javascript': 'alert(1)',
      'application/pdf': 'JVBER',
      'image/webp': 'UklG',
      'image/gif': 'R0lG',
      'image/bmp': 'Qk0',
      'text/latex': '$x$',
      'text/markdown': '*x*',
      'application/vnd.jupyter.widget-view+json': { model_id: 'm' },
    };
    expect(renderableMimes(bundle)).toEqual([
      'application/vnd.jupyter.widget-view+json',
      'text/markdown',
      'text/latex',
      'image/webp',
      'image/gif',
      'image/bmp',
      'application/pdf',
      'application/javascript',
      'application/vnd.jupyter.stderr',
      'application/vnd.jupyter.stdout',
      'text/plain',
    ]);
    expect(renderableMimes(bundle).map(rendererKind)).not.toContain(null);
    expect(rendererKind('text/javascript')).toBe('javascript');
  });

  it('a widget view is drawn (as the note that widgets need a widget manager) before its text/plain', () => {
    expect(chooseMime({ 'text/plain': 'IntSlider(value=0)', 'application/vnd.jupyter.widget-view+json': {} })).toBe(
      'application/vnd.jupyter.widget-view+json',
    );
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
