import picomatch from 'picomatch';
import type { PackedSearchFile, SearchMatch, SearchQuery } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { searchRegExp } from '../../shared/replace';

/** Never searched, whatever the query says: VCS internals, dependency trees, caches, Kiln's temp files. */
export const ALWAYS_EXCLUDED = ['.git', 'node_modules', '__pycache__', '.ipynb_checkpoints', '.kiln-*.tmp'];

/** Past this many characters a preview is cut around its match. */
const PREVIEW_CHARS = 240;
const PREVIEW_BEFORE = 40;

export type ParsedQuery = Required<Omit<SearchQuery, 'include' | 'exclude'>> & { include: string[]; exclude: string[] };

/** "src/**, *.py" → ["src/**", "*.py"]. */
function splitGlobs(text: string): string[] {
  return text
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
}

export function parseQuery(query: SearchQuery): ParsedQuery {
  const parsed: ParsedQuery = {
    pattern: query.pattern,
    isRegex: query.isRegex ?? false,
    matchCase: query.matchCase ?? false,
    wholeWord: query.wholeWord ?? false,
    include: splitGlobs(query.include ?? ''),
    exclude: [...ALWAYS_EXCLUDED, ...splitGlobs(query.exclude ?? '')],
  };
  // Both engines are told the same thing; a pattern JavaScript can't read is refused before either runs.
  toRegExp(parsed);
  return parsed;
}

/** The query as a JavaScript RegExp (global), for the Node engine and for checking a regex up front. */
export function toRegExp(query: Pick<ParsedQuery, 'pattern' | 'isRegex' | 'matchCase' | 'wholeWord'>): RegExp {
  try {
    return searchRegExp(query);
  } catch (err) {
    throw new KilnError('E_BAD_REQUEST', `Not a valid regular expression: ${(err as Error).message}`);
  }
}

/**
 * Tests a workspace-relative path against include and exclude globs the way ripgrep's -g does: a glob
 * without a slash matches a name at any depth, and an excluded folder excludes everything in it.
 */
export function globFilter(
  include: string[],
  exclude: string[],
): { file: (rel: string) => boolean; dir: (rel: string) => boolean } {
  const compile = (globs: string[]) =>
    globs.map((g) => {
      const anchored = g.includes('/');
      const glob = g.replace(/^\.?\//, '').replace(/\/$/, '');
      return picomatch(glob, { dot: true, basename: !anchored });
    });
  const inc = compile(include);
  const exc = compile(exclude);
  const excluded = (rel: string) => exc.some((m) => m(rel));
  return {
    dir: (rel) => !excluded(rel),
    file: (rel) => !excluded(rel) && (!inc.length || inc.some((m) => m(rel))),
  };
}

/** One match as the contract carries it: offsets in the line, and a preview cut around the match. */
export function matchOf(lineNumber: number, line: string, start: number, end: number): SearchMatch {
  if (line.length <= PREVIEW_CHARS) return { line: lineNumber, start, end, preview: line, previewStart: 0 };
  const previewStart = previewStartOf(line, start);
  return {
    line: lineNumber,
    start,
    end,
    preview: line.slice(previewStart, previewEnd(line, end, previewStart)),
    previewStart,
  };
}

/** matchOf straight into a packed file's columns, for ripgrep's stream (no object per match). */
export function pushMatch(file: PackedSearchFile, lineNumber: number, line: string, start: number, end: number): void {
  if (line.length <= PREVIEW_CHARS) {
    file.numbers.push(lineNumber, start, end, 0);
    file.previews.push(line);
    return;
  }
  const previewStart = previewStartOf(line, start);
  file.numbers.push(lineNumber, start, end, previewStart);
  file.previews.push(line.slice(previewStart, previewEnd(line, end, previewStart)));
}

function previewStartOf(line: string, start: number): number {
  return Math.max(0, Math.min(start - PREVIEW_BEFORE, line.length - PREVIEW_CHARS));
}

function previewEnd(line: string, end: number, previewStart: number): number {
  return Math.max(Math.min(line.length, previewStart + PREVIEW_CHARS), Math.min(end, previewStart + 1000));
}

/** The matches in a text's lines, at most `budget` (a file's, or a notebook cell's source). */
export function textMatches(text: string, regex: RegExp, budget: number): SearchMatch[] {
  const matches: SearchMatch[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    regex.lastIndex = 0;
    for (let m = regex.exec(line); m; m = regex.exec(line)) {
      if (m[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      matches.push(matchOf(i + 1, line, m.index, m.index + m[0].length));
      if (matches.length >= budget) return matches;
    }
  }
  return matches;
}
