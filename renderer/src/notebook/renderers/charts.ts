import type { EmbedOptions, Result as EmbedResult, VisualizationSpec } from 'vega-embed';

/*
 * Chart libraries are big (Vega ~1 MB, Plotly ~4.6 MB minified): each is its own chunk, fetched the first time
 * a notebook shows such an output, so a notebook without charts opens as fast as before.
 */

type Embed = (element: HTMLElement, spec: VisualizationSpec, options: EmbedOptions) => Promise<EmbedResult>;
type PlotlyModule = typeof import('plotly.js-dist-min').default;

// process-wide: libraries loaded once for the page.
let vega: Promise<Embed> | null = null;
let plotly: Promise<PlotlyModule> | null = null;
let plotlyLoaded: PlotlyModule | null = null;

export function loadVegaEmbed(): Promise<Embed> {
  vega ??= Promise.all([import('vega-embed'), import('vega-interpreter')]).then(([embedModule, interpreter]) => {
    const embed = embedModule.default;
    return (element, spec, options) =>
      // vega-interpreter evaluates Vega expressions without `new Function`: no 'unsafe-eval' in the CSP.
      embed(element, spec, { ...options, ast: true, expr: interpreter.expressionInterpreter });
  });
  return vega;
}

export function loadPlotly(): Promise<PlotlyModule> {
  plotly ??= import('plotly.js-dist-min').then((module) => (plotlyLoaded = module.default));
  return plotly;
}

export function plotlyIfLoaded(): PlotlyModule | null {
  return plotlyLoaded;
}

/** `application/vnd.vegalite.v4+json` -> 'vega-lite'; `application/vnd.vega.v5+json` -> 'vega'. */
export function vegaMode(mime: string): 'vega' | 'vega-lite' {
  return mime.includes('vegalite') ? 'vega-lite' : 'vega';
}

/** A chart's accessible name: its title (a string, a list of lines, or `{ text }`), else "Chart". */
export function chartTitle(spec: unknown): string {
  const title =
    (spec as { title?: unknown; layout?: { title?: unknown } } | null)?.title ??
    (spec as { layout?: { title?: unknown } } | null)?.layout?.title;
  const text =
    typeof title === 'object' && title !== null && !Array.isArray(title) ? (title as { text?: unknown }).text : title;
  if (typeof text === 'string' && text.trim()) return text.trim();
  if (Array.isArray(text) && text.every((line) => typeof line === 'string') && text.length) return text.join(' ');
  return 'Chart';
}
