import type { NotebookOutput } from '../../../../shared/contract';
import { joinMultiline } from '../../../../shared/contract';
import { chooseMime, rendererKind } from '../renderers/mime-rank';

/** What the find bar asks for. */
export interface FindQuery {
  text: string;
  matchCase: boolean;
  wholeWord: boolean;
  regex: boolean;
  /** Also search the cells' text outputs (read-only: never replaced). */
  inOutputs: boolean;
}

export const EMPTY_QUERY: FindQuery = { text: '', matchCase: false, wholeWord: false, regex: false, inOutputs: false };

/** What a cell offers to find: its source, and its outputs as text when asked. */
export interface FindableCell {
  id: string;
  source: string;
  outputs: readonly NotebookOutput[];
}

/** One match, as offsets (UTF-16) in its cell's source or in its outputs' text. */
export interface FindMatch {
  cellId: string;
  cellIndex: number;
  area: 'source' | 'output';
  start: number;
  end: number;
}

export interface FindResult {
  matches: FindMatch[];
  /** The pattern can't be read (a bad regular expression); no matches then. */
  error: string | null;
}

/** The query as a global RegExp, or the reason it is not one. Empty text finds nothing. */
export function findRegExp(query: FindQuery): RegExp | { error: string } | null {
  if (!query.text) return null;
  let source = query.regex ? query.text : query.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (query.wholeWord) source = `\\b(?:${source})\\b`;
  try {
    return new RegExp(source, query.matchCase ? 'g' : 'gi');
  } catch (err) {
    return { error: `Not a valid regular expression: ${(err as Error).message}` };
  }
}

// Colour escapes are not text the operator sees in an output.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** The text an output shows (streams, text/plain, tracebacks), as find reads it. */
export function outputText(outputs: readonly NotebookOutput[]): string {
  const parts: string[] = [];
  for (const output of outputs) {
    const o = output as { output_type: string; text?: unknown; data?: Record<string, unknown>; traceback?: unknown };
    if (o.output_type === 'stream') parts.push(joinMultiline(o.text as string | string[]));
    else if (o.output_type === 'error' && Array.isArray(o.traceback)) parts.push(o.traceback.join('\n'));
    else if (o.data && isJsonShown(o.data)) parts.push(jsonText(o.data[chooseMime(o.data as never)!]));
    else if (o.data && 'text/plain' in o.data) parts.push(joinMultiline(o.data['text/plain'] as string | string[]));
  }
  return parts.join('\n').replace(ANSI, '');
}

/** A JSON output shows as a tree (not its text/plain, e.g. `<IPython.core.display.JSON object>`): find reads the tree. */
function isJsonShown(data: Record<string, unknown>): boolean {
  const mime = chooseMime(data as never);
  return mime !== null && rendererKind(mime) === 'json';
}

/** A JSON value as its tree shows it: a line per key and value. */
function jsonText(value: unknown, name: string | null = null): string {
  if (value === null || typeof value !== 'object') {
    const leaf = JSON.stringify(value) ?? String(value);
    return name === null ? leaf : `${name}: ${leaf}`;
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const lines = entries.map(([key, child]) => jsonText(child, key));
  return (name === null ? lines : [name, ...lines]).join('\n');
}

function scan(text: string, regex: RegExp, each: (start: number, end: number) => void): void {
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    if (m[0].length === 0) {
      regex.lastIndex++;
      continue;
    }
    each(m.index, m.index + m[0].length);
  }
}

/** Every match in every cell, in document order (a cell's source, then its outputs). */
export function findInCells(cells: readonly FindableCell[], query: FindQuery): FindResult {
  const regex = findRegExp(query);
  if (regex === null) return { matches: [], error: null };
  if (!(regex instanceof RegExp)) return { matches: [], error: regex.error };
  const matches: FindMatch[] = [];
  cells.forEach((cell, cellIndex) => {
    scan(cell.source, regex, (start, end) => matches.push({ cellId: cell.id, cellIndex, area: 'source', start, end }));
    if (query.inOutputs && cell.outputs.length)
      scan(outputText(cell.outputs), regex, (start, end) =>
        matches.push({ cellId: cell.id, cellIndex, area: 'output', start, end }),
      );
  });
  return { matches, error: null };
}

/** The matches grouped by cell; a cell whose matches did not change keeps its array (memoized cells stay put). */
export function matchesByCell(
  matches: readonly FindMatch[],
  previous: ReadonlyMap<string, readonly FindMatch[]>,
): Map<string, readonly FindMatch[]> {
  const grouped = new Map<string, FindMatch[]>();
  for (const m of matches) {
    const list = grouped.get(m.cellId);
    if (list) list.push(m);
    else grouped.set(m.cellId, [m]);
  }
  const result = new Map<string, readonly FindMatch[]>();
  for (const [cellId, list] of grouped) {
    const before = previous.get(cellId);
    result.set(cellId, before && sameMatches(before, list) ? before : list);
  }
  return result;
}

function sameMatches(a: readonly FindMatch[], b: readonly FindMatch[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (m, i) => m.start === b[i].start && m.end === b[i].end && m.area === b[i].area && m.cellIndex === b[i].cellIndex,
    )
  );
}

/** What one match becomes: the replacement text, with `$1`, `$&`… expanded in regex mode. */
export function replacementFor(matched: string, replacement: string, query: FindQuery): string {
  if (!query.regex) return replacement;
  const regex = findRegExp({ ...query, wholeWord: false });
  if (!(regex instanceof RegExp)) return replacement;
  const single = new RegExp(`^(?:${regex.source})$`, regex.flags.replace('g', ''));
  return single.test(matched) ? matched.replace(single, replacement) : replacement;
}

/** The source with the given source matches (of this one cell) replaced; outputs are never touched. */
export function replaceInSource(
  source: string,
  matches: readonly FindMatch[],
  replacement: string,
  query: FindQuery,
): string {
  const spans = matches.filter((m) => m.area === 'source').sort((a, b) => a.start - b.start);
  let out = '';
  let from = 0;
  for (const m of spans) {
    if (m.start < from) continue;
    out += source.slice(from, m.start) + replacementFor(source.slice(m.start, m.end), replacement, query);
    from = m.end;
  }
  return out + source.slice(from);
}

/** The match to go to from `current` by `step`, wrapping around; 0 for the first when none was current. */
export function stepMatch(count: number, current: number | null, step: 1 | -1): number | null {
  if (count === 0) return null;
  if (current === null) return step === 1 ? 0 : count - 1;
  return (current + step + count) % count;
}

/** After the matches changed, the one to keep current: the first at or after where the old one was. */
export function nearestMatch(
  matches: readonly FindMatch[],
  where: { cellIndex: number; area: FindMatch['area']; start: number } | null,
): number | null {
  if (!matches.length) return null;
  if (!where) return 0;
  const at = (m: FindMatch) => [m.cellIndex, m.area === 'source' ? 0 : 1, m.start];
  const target = [where.cellIndex, where.area === 'source' ? 0 : 1, where.start];
  const index = matches.findIndex((m) => {
    const k = at(m);
    for (let i = 0; i < 3; i++) if (k[i] !== target[i]) return k[i] > target[i];
    return true;
  });
  return index < 0 ? 0 : index;
}
