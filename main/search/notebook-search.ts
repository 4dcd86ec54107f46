import type { SearchMatch } from '../../shared/contract';
import { matchOf } from './query';

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
    source: Array.isArray(cell?.source) ? cell.source.join('') : typeof cell?.source === 'string' ? cell.source : '',
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
    const lines = cells[index].source.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
      regex.lastIndex = 0;
      for (let m = regex.exec(line); m; m = regex.exec(line)) {
        if (m[0].length === 0) {
          regex.lastIndex++;
          continue;
        }
        const cell = cells[index].id === undefined ? { index } : { index, id: cells[index].id };
        matches.push({ ...matchOf(i + 1, line, m.index, m.index + m[0].length), cell });
        if (matches.length >= budget) return matches;
      }
    }
  }
  return matches;
}
