import { joinMultiline, type MultilineString, type SearchMatch } from '../../shared/contract';
import { textMatches } from './query';

/** A notebook's cells as Find in Files reads them: each source as the text the operator edits. */
export function notebookCellSources(text: string): { id?: string; source: string }[] | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const cells = (json as { cells?: unknown } | null)?.cells;
  if (!Array.isArray(cells)) return null;
  return cells.map((cell: { id?: unknown; source?: unknown }) => ({
    id: typeof cell?.id === 'string' ? cell.id : undefined,
    source:
      Array.isArray(cell?.source) || typeof cell?.source === 'string'
        ? joinMultiline(cell.source as MultilineString)
        : '',
  }));
}

/**
 * The matches in a notebook's cell sources (not in its escaped JSON), each with its cell; `line` is the line in
 * that cell. Null when the file is not a notebook Kiln can read: it is then searched as plain text.
 */
export function notebookMatches(text: string, regex: RegExp, budget: number): SearchMatch[] | null {
  const cells = notebookCellSources(text);
  if (!cells) return null;
  const matches: SearchMatch[] = [];
  for (let index = 0; index < cells.length; index++) {
    const { id, source } = cells[index];
    const cell = id === undefined ? { index } : { index, id };
    for (const match of textMatches(source, regex, budget - matches.length)) matches.push({ ...match, cell });
    if (matches.length >= budget) return matches;
  }
  return matches;
}
