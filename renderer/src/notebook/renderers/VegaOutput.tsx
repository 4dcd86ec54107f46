import { useEffect, useRef, useState } from 'react';
import type { VisualizationSpec } from 'vega-embed';
import { useColorScheme } from '../../ui';
import { chartTitle, loadVegaEmbed, vegaMode } from './charts';
import { followWidth } from './follow-width';

/** A spec whose width is its container's (Vega-Lite's `width: "container"`): it follows the output's width. */
function followsContainer(spec: unknown): boolean {
  return (spec as { width?: unknown } | null)?.width === 'container';
}

/**
 * Vega and Vega-Lite (v3-v5) with vega-embed, drawn as SVG (crisp, printable), with its actions menu (export
 * PNG/SVG, view source) minus "Open in Vega Editor", which would go online. A chart sized by its container
 * resizes with the output; a chart with a set width keeps it (as in JupyterLab), and scrolls when wider.
 */
export function VegaOutput({ mime, spec }: { mime: string; spec: unknown }) {
  const outer = useRef<HTMLDivElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const scheme = useColorScheme();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    let live = true;
    let finalize: (() => void) | null = null;
    setError(null);
    loadVegaEmbed()
      .then((embed) => {
        // A newer spec (or an unmount) came while Vega loaded: that run draws, this one doesn't.
        if (!live) return null;
        return embed(element, structuredClone(spec) as VisualizationSpec, {
          mode: vegaMode(mime),
          renderer: 'svg',
          actions: { export: true, source: true, compiled: true, editor: false },
          theme: scheme === 'dark' ? 'dark' : undefined,
          // Relative data URLs would resolve against Kiln's page: only inline data is drawn.
          loader: { baseURL: 'about:invalid/' },
        });
      })
      .then(
        (result) => {
          if (!result) return;
          // vega-embed's actions toggle is an icon only: name it for screen readers (axe: summary-name).
          element.querySelector('summary')?.setAttribute('aria-label', 'Chart actions');
          if (!live) return result.finalize();
          const unfollow =
            outer.current && followsContainer(spec)
              ? followWidth(outer.current, () => {
                  // As Vega's containerSize() reads it: vega-embed stretches a fitted chart's wrapper to the output.
                  const container = result.view.container() ?? element;
                  const style = getComputedStyle(container);
                  const inner = container.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
                  void result.view.width(Math.max(inner, 0)).runAsync();
                })
              : () => {};
          finalize = () => {
            unfollow();
            result.finalize();
          };
        },
        (reason: unknown) => {
          if (live) setError(reason instanceof Error ? reason.message : String(reason));
        },
      );
    return () => {
      live = false;
      finalize?.();
    };
  }, [mime, spec, scheme]);
  return (
    <div ref={outer} className="nb-out-chart" role="figure" aria-label={chartTitle(spec)}>
      <div ref={host} className="nb-out-vega" />
      {error && <div className="nb-out-note nb-out-chart-error">This chart could not be drawn: {error}</div>}
    </div>
  );
}
