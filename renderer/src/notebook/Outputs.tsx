import { memo, useMemo, useState, type CSSProperties, type ReactNode } from 'react';
import type { MimeBundle, NotebookOutput } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { formatJsonExact, jsonPointer } from '../../../shared/python-json';
import { parseAnsi } from './ansi';
import { cutText, fixConsole } from './console-text';
import { renderMarkdown } from './markdown';

/** Lines shown from the start and the end of a long text output before "Show more". */
const HEAD_LINES = 200;
const TAIL_LINES = 300;
const MORE_STEP = 5000;
/** Outputs shown per cell before "Show more" (a loop calling display() 10,000 times). */
const MAX_OUTPUTS = 200;

/** Preference order among a bundle's mimetypes, richest first (as JupyterLab ranks them). */
const MIME_ORDER = [
  'text/html',
  'image/svg+xml',
  'image/png',
  'image/jpeg',
  'image/gif',
  'text/markdown',
  'text/latex',
  'application/json',
  'text/plain',
];

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

function imageSize(metadata: unknown, mime: string): CSSProperties {
  const entry = (metadata as Record<string, { width?: unknown; height?: unknown }> | undefined)?.[mime];
  const style: CSSProperties = {};
  if (typeof entry?.width === 'number') style.width = entry.width;
  if (typeof entry?.height === 'number') style.height = entry.height;
  return style;
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

function HtmlFrame({ html }: { html: string }) {
  const height = useMemo(() => estimateHtmlHeight(html), [html]);
  const doc = `<!doctype html><html><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><style>
    :root{color-scheme:light dark}
    body{margin:4px 0;font:13px/1.4 system-ui,sans-serif;color:#1f2328;background:transparent}
    @media (prefers-color-scheme: dark){body{color:#d4d4d4}}
    table{border-collapse:collapse;font-size:12px}th,td{padding:3px 8px;border-bottom:1px solid rgba(128,128,128,.3);text-align:right}
    th{font-weight:600}tbody tr:nth-child(odd){background:rgba(128,128,128,.08)}
  </style></head><body>${html}</body></html>`;
  // sandbox="" : no scripts, no forms, no popups, no same-origin access. Notebook trust is not modelled.
  return <iframe className="nb-out-html" title="HTML output" sandbox="" srcDoc={doc} style={{ height }} />;
}

/** A cell's numbers as its file writes them, by JSON pointer (NotebookCell.exactNumbers), and where this part sits. */
interface ExactNumbers {
  numbers?: Readonly<Record<string, string>>;
  at: string;
}

function MimeView({ bundle, metadata, numbers, at }: { bundle: MimeBundle; metadata: unknown } & ExactNumbers) {
  const mime = MIME_ORDER.find((m) => bundle[m] !== undefined) ?? Object.keys(bundle).find((m) => m.endsWith('+json'));
  if (!mime) {
    return (
      <div className="nb-out-note">Output of type {Object.keys(bundle).join(', ') || 'nothing'} cannot be shown.</div>
    );
  }
  const value = bundle[mime];
  const text = typeof value === 'string' || Array.isArray(value) ? joinMultiline(value as string | string[]) : '';
  switch (mime) {
    case 'text/html':
      return <HtmlFrame html={text} />;
    case 'image/svg+xml':
      // An <img> never runs the SVG's scripts or loads its external resources.
      return (
        <img
          className="nb-out-image"
          alt="SVG output"
          src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`}
          style={imageSize(metadata, mime)}
        />
      );
    case 'image/png':
    case 'image/jpeg':
    case 'image/gif':
      return (
        <img
          className="nb-out-image"
          alt={`${mime.slice(6).toUpperCase()} output`}
          src={`data:${mime};base64,${text.replace(/\s+/g, '')}`}
          style={imageSize(metadata, mime)}
        />
      );
    case 'text/markdown':
      return <Markdown source={text} />;
    case 'text/latex':
      return (
        <pre className="nb-out-text nb-latex" title="LaTeX source">
          {text}
        </pre>
      );
    case 'text/plain':
      return <LongText text={text} className="nb-out-text" />;
    default:
      // Numbers as the file has them: 1.0 shows 1.0, 1e-05 as 1e-05.
      return (
        <LongText
          text={formatJsonExact(value, numbers, jsonPointer(`${at}/data`, mime))}
          className="nb-out-text nb-json"
        />
      );
  }
}

/** Sanitized markdown; links open outside the app instead of navigating Kiln away. */
export function Markdown({ source, attachments }: { source: string; attachments?: Record<string, MimeBundle> }) {
  const html = useMemo(() => renderMarkdown(source, attachments), [source, attachments]);
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

const OutputView = memo(function OutputView({ output, numbers, at }: { output: NotebookOutput } & ExactNumbers) {
  switch (output.output_type) {
    case 'stream':
      return <StreamView name={String(output.name)} text={joinMultiline(output.text as string | string[])} />;
    case 'error':
      return <ErrorView output={output} />;
    case 'execute_result':
    case 'display_data':
      return (
        <MimeView bundle={(output.data ?? {}) as MimeBundle} metadata={output.metadata} numbers={numbers} at={at} />
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
}

export function OutputList({ outputs, executionCount, exactNumbers }: OutputListProps) {
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
            <OutputView output={output} numbers={exactNumbers} at={`/outputs/${i}`} />
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
