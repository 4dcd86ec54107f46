import { useMemo, useRef } from 'react';
import { nameOf } from '../../../shared/paths';
import { useStore } from '../base';
import { useOpenFilesStore, useReveals } from '../editor';
import { useDocumentSymbols } from '../language';
import { markdownHeadings, useNotebookOutline } from '../notebook';
import { pythonOutline, symbolOutline, type OutlineEntry } from './text-outline';
import './outline.css';

interface Row extends OutlineEntry {
  /** A notebook heading's cell (0-based). */
  cell?: number;
}

/**
 * The Outline: the open notebook's markdown headings (the section of the selected cell marked), or a Markdown
 * file's headings, or a Python file's symbols (the language server's; classes and functions read from the text
 * when the server is off or has not answered). Enter or a click goes there.
 */
export function OutlineView({ path, onOpen }: { path: string | null; onOpen: (path: string) => void }) {
  const notebook = useNotebookOutline(path?.endsWith('.ipynb') ? path : null);
  const reveals = useReveals();
  const buffer = useStore(useOpenFilesStore(), (s) => s.files.find((f) => f.path === path)?.buffer ?? null);
  // A Python file's outline is the language server's; the file's own reading stands in while it has none.
  const symbols = useDocumentSymbols(path?.endsWith('.py') ? path : null);
  const listRef = useRef<HTMLUListElement>(null);
  const rows = useMemo<Row[]>(() => {
    if (!path) return [];
    if (notebook)
      return notebook.headings.map((h) => ({ text: h.text, level: h.level, line: h.line + 1, cell: h.cellIndex }));
    if (buffer === null) return [];
    if (/\.(md|markdown)$/i.test(path))
      return markdownHeadings(buffer).map((h) => ({ text: h.text, level: h.level, line: h.line + 1 }));
    if (path.endsWith('.py')) return symbols ? symbolOutline(symbols) : pythonOutline(buffer);
    return [];
  }, [path, notebook, buffer, symbols]);
  const current = notebook?.current ?? null;

  const go = (row: Row) => {
    if (!path) return;
    const start = row.character ?? 0;
    reveals.request(path, { line: row.line, start, end: start, cell: row.cell });
    onOpen(path);
  };
  const onKeyDown = (event: React.KeyboardEvent<HTMLLIElement>, index: number) => {
    const items = listRef.current?.querySelectorAll<HTMLElement>('[role="treeitem"]');
    const move = (to: number) => items?.[Math.max(0, Math.min(rows.length - 1, to))]?.focus();
    if (event.key === 'ArrowDown') move(index + 1);
    else if (event.key === 'ArrowUp') move(index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(rows.length - 1);
    else if (event.key === 'Enter' || event.key === ' ') go(rows[index]);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const empty = !path
    ? 'No file is open.'
    : rows.length
      ? null
      : notebook || /\.(md|markdown|py)$/i.test(path)
        ? `${nameOf(path)} has no headings.`
        : `No outline for ${nameOf(path)}.`;
  return (
    <section className="outline-view" role="region" aria-label="Outline">
      {empty ? (
        <p className="outline-empty">{empty}</p>
      ) : (
        <ul ref={listRef} className="outline-list" role="tree" aria-label={`Outline of ${nameOf(path!)}`}>
          {rows.map((row, index) => (
            <li
              key={`${row.cell ?? ''}:${row.line}:${index}`}
              role="treeitem"
              aria-level={row.level}
              aria-selected={index === (current ?? -1)}
              aria-current={index === current ? 'location' : undefined}
              tabIndex={index === (current ?? 0) ? 0 : -1}
              className={`outline-row${index === current ? ' current' : ''}`}
              style={{ paddingLeft: 12 + (row.level - 1) * 14 }}
              title={row.text}
              onClick={() => go(row)}
              onKeyDown={(e) => onKeyDown(e, index)}
            >
              {row.text || '(untitled)'}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
