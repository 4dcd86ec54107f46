import { loadPlotly, vegaMode } from '../renderers/charts';

/** A Vega or Vega-Lite spec drawn to SVG text without a page (for export): Vega's headless view, no eval. */
export async function vegaToSvg(mime: string, spec: unknown): Promise<string> {
  const [vega, vegaLite, interpreter] = await Promise.all([
    import('vega'),
    import('vega-lite'),
    import('vega-interpreter'),
  ]);
  const source = structuredClone(spec) as Record<string, unknown>;
  const vegaSpec = vegaMode(mime) === 'vega-lite' ? vegaLite.compile(source as never).spec : source;
  const runtime = vega.parse(vegaSpec as never, undefined, { ast: true });
  const view = new vega.View(runtime, { renderer: 'none', expr: interpreter.expressionInterpreter as never });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** A Plotly figure as SVG text (plotly.js draws it in a detached node; nothing is fetched). */
export async function plotlyToSvg(figure: unknown): Promise<string> {
  const Plotly = await loadPlotly();
  const { data = [], layout = {} } = (figure ?? {}) as { data?: unknown[]; layout?: object };
  const host = document.createElement('div');
  host.style.cssText = 'position:fixed;left:-10000px;top:0;width:800px;height:500px';
  document.body.appendChild(host);
  try {
    await Plotly.newPlot(host, structuredClone(data), structuredClone(layout), {
      staticPlot: true,
      typesetMath: false,
    });
    const url = await Plotly.toImage(host, { format: 'svg' });
    return decodeURIComponent(url.slice(url.indexOf(',') + 1));
  } finally {
    Plotly.purge(host);
    host.remove();
  }
}
