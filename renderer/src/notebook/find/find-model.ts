import type { NotebookOutput } from '../../../../shared/contract';
import { outputText, PLAIN_READERS, type OutputReaders } from './output-text';

export { outputText } from './output-text';

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

/** One match, as offsets (UTF-16) in its cell's source or in one output's text. */
export interface FindMatch {
  cellId: string;
  cellIndex: number;
  area: 'source' | 'output';
  /** Which of the cell's outputs, for a match in an output. */
  output?: number;
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

/** Every match in every cell, in document order (a cell's source, then its outputs, each as it is drawn). */
export function findInCells(
  cells: readonly FindableCell[],
  query: FindQuery,
  readers: OutputReaders = PLAIN_READERS,
): FindResult {
  const regex = findRegExp(query);
  if (regex === null) return { matches: [], error: null };
  if (!(regex instanceof RegExp)) return { matches: [], error: regex.error };
  const matches: FindMatch[] = [];
  cells.forEach((cell, cellIndex) => {
    scan(cell.source, regex, (start, end) => matches.push({ cellId: cell.id, cellIndex, area: 'source', start, end }));
    if (query.inOutputs)
      cell.outputs.forEach((output, index) =>
        scan(outputText(output, readers), regex, (start, end) =>
          matches.push({ cellId: cell.id, cellIndex, area: 'output', output: index, start, end }),
        ),
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
      (m, i) =>
        m.start === b[i].start &&
        m.end === b[i].end &&
        m.area === b[i].area &&
        m.output === b[i].output &&
        m.cellIndex === b[i].cellIndex,
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
  where: Pick<FindMatch, 'cellIndex' | 'area' | 'output' | 'start'> | null,
): number | null {
  if (!matches.length) return null;
  if (!where) return 0;
  const at = (m: typeof where) => [m.cellIndex, m.area === 'source' ? 0 : 1, m.output ?? 0, m.start];
  const target = at(where);
  const index = matches.findIndex((m) => {
    const k = at(m);
    for (let i = 0; i < k.length; i++) if (k[i] !== target[i]) return k[i] > target[i];
    return true;
  });
  return index < 0 ? 0 : index;
}
