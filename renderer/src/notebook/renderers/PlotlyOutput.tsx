import { useEffect, useRef, useState } from 'react';
import { chartTitle, loadPlotly, plotlyIfLoaded } from './charts';
import { followWidth } from './follow-width';

interface PlotlyFigure {
  data?: unknown[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

/**
 * A Plotly figure (`application/vnd.plotly.v1+json`) with the bundled plotly.js: pan, zoom and hover work,
 * and nothing is fetched (no MathJax, no topojson from a CDN, no "Edit in Chart Studio"). A figure without a
 * set width fills the output and follows its width (Plotly's `responsive` alone follows only the window).
 */
export function PlotlyOutput({ figure }: { figure: unknown }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const { data = [], layout = {}, config = {} } = (figure ?? {}) as PlotlyFigure;
    let live = true;
    let unfollow = () => {};
    setError(null);
    loadPlotly()
      .then((Plotly) => {
        // A newer figure (or an unmount) came while plotly.js loaded: that run draws, this one doesn't.
        if (!live) return;
        return Plotly.newPlot(element, structuredClone(data), structuredClone(layout), {
          ...config,
          responsive: true,
          displaylogo: false,
          showLink: false,
          showSendToCloud: false,
          showEditInChartStudio: false,
          typesetMath: false,
          topojsonURL: 'about:invalid/',
        }).then(() => {
          if (live && layout.width === undefined)
            unfollow = followWidth(element, () => void Plotly.Plots.resize(element).catch(() => undefined));
        });
      })
      .catch((reason: unknown) => {
        if (live) setError(reason instanceof Error ? reason.message : String(reason));
      });
    return () => {
      live = false;
      unfollow();
      plotlyIfLoaded()?.purge(element);
    };
  }, [figure]);
  return (
    <div
      className="nb-out-chart"
      role="figure"
      aria-label={chartTitle((figure as PlotlyFigure | null)?.layout ?? null)}
    >
      <div ref={host} className="nb-out-plotly" />
      {error && <div className="nb-out-note nb-out-chart-error">This figure could not be drawn: {error}</div>}
    </div>
  );
}
