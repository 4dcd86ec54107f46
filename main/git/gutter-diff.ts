import { diffLines } from 'diff';
import type { GutterChange } from '../../shared/contract';

/** Past this many edits a diff is not worth drawing in a gutter; the editor shows none. */
const MAX_EDIT_LENGTH = 5000;

/**
 * The change gutter between the committed text and the current one, in the current text's lines:
 * `added` (new lines), `modified` (lines replaced) and `deleted` (a marker at the line after the removal).
 */
export function gutterChanges(committed: string, current: string): GutterChange[] {
  if (committed === current) return [];
  const parts = diffLines(normalize(committed), normalize(current), { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return [];
  const changes: GutterChange[] = [];
  let line = 1;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!part.added && !part.removed) {
      line += part.count;
      continue;
    }
    if (part.removed) {
      const next = parts[i + 1];
      if (next?.added) {
        i++;
        const modified = Math.min(part.count, next.count);
        changes.push({ kind: 'modified', startLine: line, endLine: line + modified - 1 });
        if (next.count > modified)
          changes.push({ kind: 'added', startLine: line + modified, endLine: line + next.count - 1 });
        line += next.count;
      } else {
        const at = Math.max(1, line - 1);
        changes.push({ kind: 'deleted', startLine: at, endLine: at });
      }
      continue;
    }
    changes.push({ kind: 'added', startLine: line, endLine: line + part.count - 1 });
    line += part.count;
  }
  return changes;
}

/** Line endings and a missing final newline are not changes anyone wants marked. */
function normalize(text: string): string {
  const unix = text.replace(/\r\n/g, '\n');
  return unix.endsWith('\n') || unix === '' ? unix : `${unix}\n`;
}
