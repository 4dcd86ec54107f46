/*
 * Where each cell's `source` sits in a notebook's JSON text, so Replace in Files rewrites those tokens alone and
 * every other byte (outputs, metadata, number literals, the file's own indentation and escapes) stays as it was.
 */

export interface SourceSpan {
  /** The whole value: a string token, or an array of string tokens. */
  start: number;
  end: number;
  kind: 'string' | 'array';
  /** The array's string tokens (a string source has one, the value itself). */
  items: { start: number; end: number }[];
}

const WS = /[ \t\n\r]/;

/** Each cell's source span, by cell index (null for a cell with no string source); null when the text is not a notebook. */
export function notebookSourceSpans(text: string): (SourceSpan | null)[] | null {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxError(`unexpected JSON at ${at}`);
  };
  const skipWs = () => {
    while (at < text.length && WS.test(text[at])) at++;
  };
  const stringToken = (): string => {
    const start = at;
    if (text[at] !== '"') fail();
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail();
    at++;
    return text.slice(start, at);
  };
  // Skips any value; `onKey(key)` may take over an object's member value (it returns true when it did).
  const value = (onMember?: (key: string) => boolean): void => {
    skipWs();
    const c = text[at];
    if (c === '"') return void stringToken();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      at++;
      skipWs();
      if (text[at] === close) return void at++;
      for (;;) {
        skipWs();
        if (c === '{') {
          const key = JSON.parse(stringToken()) as string;
          skipWs();
          if (text[at++] !== ':') fail();
          skipWs();
          if (!onMember?.(key)) value();
        } else value();
        skipWs();
        if (text[at] === ',') at++;
        else if (text[at] === close) return void at++;
        else fail();
      }
    }
    const scalar = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity)/.exec(
      text.slice(at, at + 400),
    );
    if (!scalar) fail();
    at += scalar![0].length;
  };

  const spans: (SourceSpan | null)[] = [];
  let sawCells = false;
  const sourceOf = (): SourceSpan | null => {
    const start = at;
    if (text[at] === '"') {
      stringToken();
      return { start, end: at, kind: 'string', items: [{ start, end: at }] };
    }
    if (text[at] !== '[') {
      value();
      return null;
    }
    const items: { start: number; end: number }[] = [];
    at++;
    skipWs();
    if (text[at] === ']') return { start, end: ++at, kind: 'array', items };
    for (;;) {
      skipWs();
      const itemStart = at;
      if (text[at] !== '"') {
        value();
        items.length = 0;
      } else {
        stringToken();
        items.push({ start: itemStart, end: at });
      }
      skipWs();
      if (text[at] === ',') at++;
      else if (text[at++] === ']') break;
      else fail();
    }
    return { start, end: at, kind: 'array', items };
  };
  try {
    skipWs();
    if (text[at] !== '{') return null;
    value((key) => {
      if (key !== 'cells' || text[at] !== '[') return false;
      sawCells = true;
      at++;
      skipWs();
      if (text[at] === ']') return Boolean(++at);
      for (;;) {
        skipWs();
        let span: SourceSpan | null = null;
        if (text[at] === '{') value((cellKey) => (cellKey === 'source' ? ((span = sourceOf()), true) : false));
        else value();
        spans.push(span);
        skipWs();
        if (text[at] === ',') at++;
        else if (text[at++] === ']') return true;
        else fail();
      }
    });
  } catch {
    return null;
  }
  return sawCells ? spans : null;
}

/** The source a span holds, joined as the operator edits it. */
export function sourceText(text: string, span: SourceSpan): string {
  return span.items.map((item) => JSON.parse(text.slice(item.start, item.end)) as string).join('');
}

/**
 * The span's value rewritten to hold `source`, in the file's own style: a string stays a string, an array stays
 * an array of lines laid out as the original was, and each line that did not change keeps its original token.
 */
export function rewriteSource(text: string, span: SourceSpan, source: string): string {
  if (span.kind === 'string') return JSON.stringify(source);
  const lines = source === '' ? [] : source.split(/(?<=\n)/);
  if (!lines.length) return '[]';
  const old = span.items;
  const tokens = lines.map((line, i) => {
    const kept = old[i] && text.slice(old[i].start, old[i].end);
    return kept && JSON.parse(kept) === line ? kept : JSON.stringify(line);
  });
  if (!old.length) return `[${tokens.join(', ')}]`;
  const open = text.slice(span.start + 1, old[0].start);
  const close = text.slice(old[old.length - 1].end, span.end - 1);
  const separator = old.length > 1 ? text.slice(old[0].end, old[1].start) : `,${open}`;
  return `[${open}${tokens.join(separator)}${close}]`;
}
