import type { MimeBundle } from '../../../../shared/contract';

/**
 * Altair 4's default renderer (and Altair 5's "html") emits only text/html: a script that fetches Vega from
 * a CDN and calls `vegaEmbed(div, spec, options)`. Kiln never runs an output's scripts and is offline, so
 * that HTML would draw nothing. The spec is inline JSON, the arguments of the script's last call
 * `})({...spec}, {"mode": "vega-lite"});`: read as JSON (nothing runs), it is drawn as the mimetype Altair
 * emits under JupyterLab's renderer would be.
 */
export function vegaSpecInHtml(html: string): { mime: string; spec: unknown } | null {
  if (!html.includes('vegaEmbed') || !html.includes('})(')) return null;
  const start = html.lastIndexOf('})(');
  const end = html.indexOf(');', start);
  if (end < 0) return null;
  let args: unknown;
  try {
    args = JSON.parse(`[${html.slice(start + 3, end)}]`);
  } catch {
    return null;
  }
  if (!Array.isArray(args) || typeof args[0] !== 'object' || args[0] === null) return null;
  const spec = args[0] as { $schema?: unknown };
  const options = (args[1] ?? {}) as { mode?: unknown };
  const schema = typeof spec.$schema === 'string' ? spec.$schema : '';
  const match = /schema\/(vega-lite|vega)\/v(\d+)/.exec(schema);
  const lite = match ? match[1] === 'vega-lite' : options.mode !== 'vega';
  const major = Math.min(Math.max(Number(match?.[2] ?? (lite ? 4 : 5)), 3), 5);
  return { mime: `application/vnd.${lite ? 'vegalite' : 'vega'}.v${major}+json`, spec };
}

/** The bundle, plus the chart its script-based HTML holds when it has no chart mimetype of its own. */
export function withEmbeddedChart(bundle: MimeBundle): MimeBundle {
  const html = bundle['text/html'];
  if (html === undefined || Object.keys(bundle).some((mime) => /^application\/vnd\.vega(lite)?\./.test(mime)))
    return bundle;
  const found = vegaSpecInHtml(Array.isArray(html) ? html.join('') : String(html));
  return found ? { ...bundle, [found.mime]: found.spec as MimeBundle[string] } : bundle;
}
