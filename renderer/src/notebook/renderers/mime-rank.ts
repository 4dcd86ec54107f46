import type { MimeBundle } from '../../../../shared/contract';

/** The MIME type of an ipywidgets view (what `display(widget)` sends beside its text/plain). */
export const WIDGET_VIEW_MIME = 'application/vnd.jupyter.widget-view+json';

/**
 * JupyterLab's renderer ranks (lower wins), from @jupyterlab/rendermime's standard factories and the
 * extensions it ships: Plotly, the JSON viewer and widgets at 0, HTML 50, Vega 57, markdown 60, LaTeX 70,
 * SVG 80, images 90, PDF 100, JavaScript 110, text (plain, stdout, stderr) 120. So a Plotly figure beats its
 * script-based text/html and an Altair chart beats its text/plain. One change: Vega comes before HTML. An
 * Altair bundle's text/html is a vega-embed script; Kiln never runs an output's scripts (its frame is
 * sandboxed), so that HTML would be blank where the spec draws.
 */
const RANKS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^application\/vnd\.plotly\.v1\+json$/, 0],
  [/^application\/json$/, 0],
  // Kiln has no widget manager: the widget ranks first so the operator is told so, not shown its bare repr.
  [/^application\/vnd\.jupyter\.widget-view\+json$/, 0],
  [/^application\/vnd\.vega(lite)?\.v[345]\+json$/, 45],
  [/^text\/html$/, 50],
  [/^text\/markdown$/, 60],
  [/^text\/latex$/, 70],
  [/^image\/svg\+xml$/, 80],
  [/^image\/(bmp|png|jpeg|gif|webp)$/, 90],
  [/^application\/pdf$/, 100],
  [/^(application|text)\/javascript$/, 110],
  [/^(text\/plain|application\/vnd\.jupyter\.(stdout|stderr))$/, 120],
  // Not rendered by JupyterLab: shown as a JSON tree only when nothing better is there.
  [/\+json$/, 130],
];

/** What a mimetype is drawn with in Kiln. */
export type RendererKind =
  | 'plotly'
  | 'json'
  | 'widget'
  | 'html'
  | 'vega'
  | 'markdown'
  | 'latex'
  | 'svg'
  | 'image'
  | 'pdf'
  | 'javascript'
  | 'text'
  | 'stdout'
  | 'stderr';

export function rendererKind(mime: string): RendererKind | null {
  if (mime === 'application/vnd.plotly.v1+json') return 'plotly';
  if (mime === WIDGET_VIEW_MIME) return 'widget';
  if (/^application\/vnd\.vega(lite)?\.v[345]\+json$/.test(mime)) return 'vega';
  if (mime === 'text/html') return 'html';
  if (mime === 'text/markdown') return 'markdown';
  if (mime === 'text/latex') return 'latex';
  if (mime === 'image/svg+xml') return 'svg';
  if (/^image\/(bmp|png|jpeg|gif|webp)$/.test(mime)) return 'image';
  if (mime === 'application/pdf') return 'pdf';
  if (mime === 'application/javascript' || mime === 'text/javascript') return 'javascript';
  if (mime === 'text/plain') return 'text';
  if (mime === 'application/vnd.jupyter.stdout') return 'stdout';
  if (mime === 'application/vnd.jupyter.stderr') return 'stderr';
  if (mime === 'application/json' || mime.endsWith('+json')) return 'json';
  return null;
}

function rankOf(mime: string): number | null {
  for (const [pattern, rank] of RANKS) if (pattern.test(mime)) return rank;
  return null;
}

/** The bundle's mimetypes Kiln can draw, best first (ties keep the bundle's order). */
export function renderableMimes(bundle: MimeBundle): string[] {
  return Object.keys(bundle)
    .filter((mime) => bundle[mime] !== undefined && rankOf(mime) !== null)
    .map((mime, order) => ({ mime, order, rank: rankOf(mime) ?? Infinity }))
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .map((entry) => entry.mime);
}

/** The mimetype to show: the operator's choice when the bundle has it, else the best ranked. */
export function chooseMime(bundle: MimeBundle, preferred?: string | null): string | null {
  const mimes = renderableMimes(bundle);
  if (preferred && mimes.includes(preferred)) return preferred;
  return mimes[0] ?? null;
}
