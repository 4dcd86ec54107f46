import { lazy, memo, Suspense, useContext, useMemo, useState, type CSSProperties, type ReactNode } from 'react';
import type { MimeBundle, NotebookOutput } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { jsonPointer } from '../../../shared/python-json';
import { ContextMenu, MoreIcon } from '../ui';
import { parseAnsi } from './ansi';
import { cutText, fixConsole } from './console-text';
import { isDataResult, OpenDataContext } from './output-data';
import { FRAME_MARK_STYLE, markHtml, useFrameFind } from './find/frame-marks';
import { renderMarkdown } from './markdown';
import { withEmbeddedChart } from './renderers/embedded-chart';
import { ImageOutput } from './renderers/ImageOutput';
import { JsonTree } from './renderers/JsonTree';
import { LatexOutput } from './renderers/LatexOutput';
import { JavaScriptOutput, PdfOutput, WidgetOutput } from './renderers/NoticeOutputs';
import { useLazy } from './renderers/lazy';
import { hasMath, katexIfLoaded, loadKatex } from './renderers/math';
import { loadVegaEmbed } from './renderers/charts';
import { chooseMime, renderableMimes, rendererKind } from './renderers/mime-rank';
import './renderers/outputs.css';

// Chart components pull in their libraries; each is its own chunk, loaded when a chart first shows.
const VegaOutput = lazy(() => {
  // Vega is fetched with the component, not after the component's first effect asks for it (one round trip and
  // a busy main thread later). A failure shows in the chart, which asks for the same promise.
  loadVegaEmbed().catch(() => undefined);
  return import('./renderers/VegaOutput').then((m) => ({ default: m.VegaOutput }));
});
const PlotlyOutput = lazy(() => import('./renderers/PlotlyOutput').then((m) => ({ default: m.PlotlyOutput })));

/** Lines shown from the start and the end of a long text output before "Show more". */
const HEAD_LINES = 200;
const TAIL_LINES = 300;
const MORE_STEP = 5000;
/** Outputs shown per cell before "Show more" (a loop calling display() 10,000 times). */
const MAX_OUTPUTS = 200;

/** Coloured text from ANSI escapes; plain strings skip the parse. */
export function AnsiText({ text }: { text: string }): ReactNode {
  const segments = useMemo(() => (text.includes('\x1b') ? parseAnsi(text) : null), [text]);
  if (!segments) return text;
  return segments.map((seg, i) => {
    const classes: string[] = [];
    const style: CSSProperties = {};
    if (seg.fg) {
      if (seg.fg.startsWith('rgb')) style.color = seg.fg;
      else classes.push(`ansi-fg-${seg.fg}`);
    }
    if (seg.bg) {
      if (seg.bg.startsWith('rgb')) style.backgroundColor = seg.bg;
      else classes.push(`ansi-bg-${seg.bg}`);
    }
    if (seg.bold) classes.push('ansi-bold');
    if (seg.dim) classes.push('ansi-dim');
    if (seg.italic) classes.push('ansi-italic');
    if (seg.underline) classes.push('ansi-underline');
    if (!classes.length && !seg.fg && !seg.bg) return <span key={i}>{seg.text}</span>;
    return (
      <span key={i} className={classes.join(' ') || undefined} style={style}>
        {seg.text}
      </span>
    );
  });
}

/** Text that may be huge: head and tail shown, the middle behind "Show more". */
function LongText({ text, className }: { text: string; className: string }) {
  const [extra, setExtra] = useState(0);
  const cut = useMemo(() => cutText(text, HEAD_LINES + extra, TAIL_LINES), [text, extra]);
  return (
    <pre className={className}>
      <AnsiText text={cut.head} />
      {cut.hiddenLines > 0 && (
        <span className="nb-truncated" role="note">
          <span>
            … {cut.hiddenLines.toLocaleString('en-US')} more line{cut.hiddenLines === 1 ? '' : 's'} (
            {cut.totalLines.toLocaleString('en-US')} in all)
          </span>
          <button type="button" className="btn btn-small" onClick={() => setExtra((n) => n + MORE_STEP)}>
            Show more
          </button>
        </span>
      )}
      {cut.tail && <AnsiText text={cut.tail} />}
    </pre>
  );
}

/** A stream, or a display() of `application/vnd.jupyter.stdout`/`stderr` (drawn alike, as JupyterLab does). */
function StreamView({ name, text }: { name: string; text: string }) {
  const fixed = useMemo(() => fixConsole(text), [text]);
  return (
    <LongText text={fixed} className={`nb-out-text nb-stream nb-stream-${name === 'stderr' ? 'stderr' : 'stdout'}`} />
  );
}

function ErrorView({ output }: { output: NotebookOutput }) {
  const { traceback, ename, evalue } = output as { traceback?: string[]; ename?: string; evalue?: string };
  const text = traceback?.length ? traceback.join('\n') : `${ename ?? 'Error'}: ${evalue ?? ''}`;
  return <LongText text={text} className="nb-out-text nb-error" />;
}

/**
 * A guess at the height HTML needs: the frame is `sandbox=""` (no script, opaque origin), so neither it
 * nor Kiln can measure its content. Parsing with DOMParser runs nothing and loads nothing.
 */
function estimateHtmlHeight(html: string): number {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const rows = doc.querySelectorAll('tr, li, p, h1, h2, h3, h4, h5, h6, br, div, pre > *').length;
  const preLines = [...doc.querySelectorAll('pre')].reduce(
    (n, pre) => n + (pre.textContent?.split('\n').length ?? 0),
    0,
  );
  const textLines = Math.ceil((doc.body.textContent?.length ?? 0) / 120);
  const images = doc.querySelectorAll('img, svg, canvas, video').length;
  const estimate = 16 + Math.max(rows + preLines, textLines, 1) * 22 + images * 160;
  return Math.min(Math.max(estimate, 36), 600);
}

/**
 * HTML that is only scripts and styles (Plotly's `init_notebook_mode`, a widget loader) draws nothing once its
 * scripts can't run; JupyterLab shows such an output as nothing too, so Kiln doesn't show an empty frame.
 */
function onlyScripts(html: string): boolean {
  if (!/<script\b/i.test(html)) return false;
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, style, link, meta').forEach((node) => node.remove());
  return !doc.body.textContent?.trim() && !doc.body.querySelector('img, svg, canvas, video, iframe, table, input');
}

function HtmlFrame({ html, cellId, outputIndex }: { html: string; cellId?: string; outputIndex: number }) {
  const height = useMemo(() => estimateHtmlHeight(html), [html]);
  const empty = useMemo(() => onlyScripts(html), [html]);
  const find = useFrameFind(cellId, outputIndex);
  const shown = useMemo(() => (find ? markHtml(html, find.regex, find.current) : html), [html, find]);
  if (empty) return null;
  const doc = `<!doctype html><html><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><style>${find ? FRAME_MARK_STYLE : ''}
    :root{color-scheme:light dark}
    body{margin:4px 0;font:13px/1.4 system-ui,sans-serif;color:#1f2328;background:transparent}
    @media (prefers-color-scheme: dark){body{color:#d4d4d4}}
    table{border-collapse:collapse;font-size:12px}th,td{padding:3px 8px;border-bottom:1px solid rgba(128,128,128,.3);text-align:right}
    th{font-weight:600}tbody tr:nth-child(odd){background:rgba(128,128,128,.08)}
  </style></head><body>${shown}</body></html>`;
  // sandbox="" : no scripts, no forms, no popups, no same-origin access. Notebook trust is not modelled.
  return (
    <iframe
      className="nb-out-html"
      title="HTML output"
      sandbox=""
      srcDoc={doc}
      style={{ height }}
      data-find-current={find?.current != null ? 'true' : undefined}
    />
  );
}

/** A cell's numbers as its file writes them, by JSON pointer (NotebookCell.exactNumbers), and where this part sits. */
interface ExactNumbers {
  numbers?: Readonly<Record<string, string>>;
  at: string;
  /** Which output of which cell this is, for find's marks in an HTML frame. */
  cellId?: string;
  outputIndex: number;
}

function MimeView({
  bundle,
  metadata,
  mime,
  numbers,
  at,
  cellId,
  outputIndex,
}: { bundle: MimeBundle; metadata: unknown; mime: string | null } & ExactNumbers) {
  if (!mime) {
    return (
      <div className="nb-out-note">Output of type {Object.keys(bundle).join(', ') || 'nothing'} cannot be shown.</div>
    );
  }
  const value = bundle[mime];
  const text = typeof value === 'string' || Array.isArray(value) ? joinMultiline(value as string | string[]) : '';
  switch (rendererKind(mime)) {
    case 'html':
      return <HtmlFrame html={text} cellId={cellId} outputIndex={outputIndex} />;
    case 'svg':
    case 'image':
      return <ImageOutput mime={mime} data={text} metadata={metadata} />;
    case 'markdown':
      return <Markdown source={text} />;
    case 'latex':
      return <LatexOutput latex={text} />;
    case 'vega':
      return (
        <Suspense fallback={<div className="nb-out-note">Loading chart…</div>}>
          <VegaOutput mime={mime} spec={value} />
        </Suspense>
      );
    case 'plotly':
      return (
        <Suspense fallback={<div className="nb-out-note">Loading figure…</div>}>
          <PlotlyOutput figure={value} />
        </Suspense>
      );
    case 'json':
      return <JsonTree value={value} numbers={numbers} at={jsonPointer(`${at}/data`, mime)} />;
    case 'stdout':
    case 'stderr':
      return <StreamView name={rendererKind(mime)!} text={text} />;
    case 'pdf':
      return <PdfOutput data={text} />;
    case 'javascript':
      return <JavaScriptOutput />;
    case 'widget':
      return <WidgetOutput bundle={bundle} />;
    default:
      return <LongText text={text} className="nb-out-text" />;
  }
}

/**
 * A rich output, drawn with the best ranked renderer; its context menu switches to another of the bundle's
 * mimetypes ("Show as text/plain"), remembered by this view only (the notebook is never rewritten), and opens a
 * result that is a DataFrame, Series or array in the data viewer.
 */
function RichOutput({
  bundle: saved,
  metadata,
  numbers,
  at,
  cellId,
  outputIndex,
  onOpenData,
}: { bundle: MimeBundle; metadata: unknown; onOpenData?: () => void } & ExactNumbers) {
  const [preferred, setPreferred] = useState<string | null>(null);
  const bundle = useMemo(() => withEmbeddedChart(saved), [saved]);
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);
  const mimes = useMemo(() => renderableMimes(bundle), [bundle]);
  const mime = chooseMime(bundle, preferred);
  return (
    <div
      className="nb-out-rich"
      data-mime={mime ?? undefined}
      onContextMenu={(event) => {
        if (mimes.length < 2 && !onOpenData) return;
        event.preventDefault();
        event.stopPropagation();
        setMenu({ x: event.clientX, y: event.clientY });
      }}
    >
      <MimeView
        bundle={bundle}
        metadata={metadata}
        mime={mime}
        numbers={numbers}
        at={at}
        cellId={cellId}
        outputIndex={outputIndex}
      />
      {(mimes.length > 1 || onOpenData) && (
        // Right-click can't reach Kiln inside an HTML output's frame: this button opens the same menu.
        <button
          type="button"
          className="icon-btn nb-out-menu-button"
          aria-label="Output menu"
          aria-haspopup="menu"
          title={`Shown as ${mime ?? 'nothing'}; show as…`}
          onClick={(event) => {
            const box = event.currentTarget.getBoundingClientRect();
            setMenu({ x: box.right - 200, y: box.bottom + 2 });
          }}
        >
          <MoreIcon />
        </button>
      )}
      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          label="Output menu"
          items={[
            ...(onOpenData ? [{ label: 'Open in Data Viewer', onSelect: onOpenData }] : []),
            ...(mimes.length > 1
              ? mimes.map((option) => ({
                  label: `Show as ${option}${option === mime ? ' ✓' : ''}`,
                  onSelect: () => setPreferred(option),
                  disabled: option === mime,
                }))
              : []),
          ]}
          onClose={() => setMenu(null)}
        />
      )}
    </div>
  );
}

/** Sanitized markdown; links open outside the app instead of navigating Kiln away. */
export function Markdown({ source, attachments }: { source: string; attachments?: Record<string, MimeBundle> }) {
  const withMath = useMemo(() => hasMath(source), [source]);
  const katex = useLazy(katexIfLoaded, loadKatex, withMath);
  const html = useMemo(() => renderMarkdown(source, attachments, katex), [source, attachments, katex]);
  return (
    <div
      className="nb-markdown"
      dangerouslySetInnerHTML={{ __html: html }}
      onClick={(e) => {
        const link = (e.target as HTMLElement).closest('a');
        if (!link) return;
        e.preventDefault();
        const href = link.getAttribute('href') ?? '';
        if (/^https?:/i.test(href)) window.open(href, '_blank', 'noopener,noreferrer');
      }}
    />
  );
}

const OutputView = memo(function OutputView({
  output,
  numbers,
  at,
  cellId,
  outputIndex,
  dataHandle,
}: { output: NotebookOutput; dataHandle?: string | null } & ExactNumbers) {
  const openData = useContext(OpenDataContext);
  const onOpenData = openData && dataHandle && isDataResult(output) ? () => openData(dataHandle) : undefined;
  switch (output.output_type) {
    case 'stream':
      return <StreamView name={String(output.name)} text={joinMultiline(output.text as string | string[])} />;
    case 'error':
      return <ErrorView output={output} />;
    case 'execute_result':
    case 'display_data':
      return (
        <RichOutput
          bundle={(output.data ?? {}) as MimeBundle}
          metadata={output.metadata}
          numbers={numbers}
          at={at}
          cellId={cellId}
          outputIndex={outputIndex}
          onOpenData={onOpenData}
        />
      );
    default:
      return (
        <div className="nb-out-note">
          Output of type “{output.output_type}” is not supported; it is kept when saving.
        </div>
      );
  }
});

export interface OutputListProps {
  outputs: NotebookOutput[];
  executionCount: number | null;
  exactNumbers?: Readonly<Record<string, string>>;
  /** The cell, for find's marks in HTML outputs. */
  cellId?: string;
  /** How the data viewer finds the cell's result in the kernel (output-data.ts), or null. */
  dataHandle?: string | null;
}

export function OutputList({ outputs, executionCount, exactNumbers, cellId, dataHandle }: OutputListProps) {
  const [limit, setLimit] = useState(MAX_OUTPUTS);
  const shown = outputs.length > limit ? outputs.slice(0, limit) : outputs;
  return (
    <>
      {shown.map((output, i) => (
        <div key={i} className={`nb-output nb-output-${output.output_type}`}>
          <div className="nb-out-prompt" aria-hidden>
            {output.output_type === 'execute_result'
              ? `[${executionCount ?? (output.execution_count as number | null) ?? ' '}]:`
              : ''}
          </div>
          <div className="nb-out-body">
            <OutputView
              output={output}
              numbers={exactNumbers}
              at={`/outputs/${i}`}
              cellId={cellId}
              outputIndex={i}
              dataHandle={dataHandle}
            />
          </div>
        </div>
      ))}
      {outputs.length > limit && (
        <div className="nb-truncated" role="note">
          <span>… {outputs.length - limit} more outputs</span>
          <button type="button" className="btn btn-small" onClick={() => setLimit((n) => n + MAX_OUTPUTS * 5)}>
            Show more
          </button>
        </div>
      )}
    </>
  );
}
