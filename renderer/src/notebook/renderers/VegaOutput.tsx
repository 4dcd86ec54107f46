import { useEffect, useRef, useState } from 'react';
import type { VisualizationSpec } from 'vega-embed';
import { useColorScheme } from '../../ui';
import { chartTitle, loadVegaEmbed, vegaMode } from './charts';

/**
 * Vega and Vega-Lite (v3-v5) with vega-embed, drawn as SVG (crisp, printable), with its actions menu (export
 * PNG/SVG, view source) minus "Open in Vega Editor", which would go online.
 */
export function VegaOutput({ mime, spec }: { mime: string; spec: unknown }) {
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
          if (live) finalize = () => result.finalize();
          else result.finalize();
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
    <div className="nb-out-chart" role="figure" aria-label={chartTitle(spec)}>
      <div ref={host} className="nb-out-vega" />
      {error && <div className="nb-out-note nb-out-chart-error">This chart could not be drawn: {error}</div>}
    </div>
  );
}
