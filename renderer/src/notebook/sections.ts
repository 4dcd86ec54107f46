import type { NotebookCell } from '../../../shared/contract';

/** A markdown heading: its level (1–6) and its text as the outline shows it. */
export interface Heading {
  level: number;
  text: string;
  /** 0-based line of the text the heading is on. */
  line: number;
}

/** One heading of the notebook, where it is. */
export interface NotebookHeading extends Heading {
  cellId: string;
  cellIndex: number;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/** Markdown as the outline reads it: inline marks dropped, links as their text. */
function plainText(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*_`~]+/g, '')
    .trim();
}

/** Every heading of a markdown text, in order (ATX `#` and setext underlines; fenced code skipped). */
export function markdownHeadings(source: string): Heading[] {
  const headings: Heading[] = [];
  const lines = source.split('\n');
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark) {
      if (fence === null) fence = fenceMark[0];
      else if (fenceMark[0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const atx = ATX.exec(line);
    if (atx) {
      headings.push({ level: atx[1].length, text: plainText(atx[2]), line: i });
      continue;
    }
    const next = lines[i + 1]?.replace(/\r$/, '');
    if (next !== undefined && line.trim() && SETEXT.test(next) && !/^ {0,3}[-*_>]/.test(line)) {
      headings.push({ level: next.trim().startsWith('=') ? 1 : 2, text: plainText(line), line: i });
      i++;
    }
  }
  return headings;
}

/** The heading a cell starts a section with, as JupyterLab's collapsible headings read it: its first heading. */
export function cellHeading(cell: Pick<NotebookCell, 'cell_type' | 'source'>): Heading | null {
  if (cell.cell_type !== 'markdown') return null;
  return markdownHeadings(cell.source)[0] ?? null;
}

/** Every heading in the notebook (all of each markdown cell's), for the outline. */
export function notebookHeadings(
  cells: readonly Pick<NotebookCell, 'id' | 'cell_type' | 'source'>[],
): NotebookHeading[] {
  const result: NotebookHeading[] = [];
  cells.forEach((cell, cellIndex) => {
    if (cell.cell_type !== 'markdown') return;
    for (const h of markdownHeadings(cell.source)) result.push({ ...h, cellId: cell.id, cellIndex });
  });
  return result;
}

/** JupyterLab's cell metadata for a collapsed heading. */
export function isHeadingCollapsed(cell: Pick<NotebookCell, 'metadata'>): boolean {
  return cell.metadata.heading_collapsed === true;
}

/**
 * The cells hidden by collapsed headings: everything after a collapsed heading cell up to the next heading
 * of the same or a higher level (JupyterLab's rule). A collapsed heading inside a collapsed one stays hidden too.
 */
export function hiddenBySections(
  cells: readonly Pick<NotebookCell, 'id' | 'cell_type' | 'source' | 'metadata'>[],
): Set<string> {
  const hidden = new Set<string>();
  let collapsedLevel: number | null = null;
  for (const cell of cells) {
    const heading = cellHeading(cell);
    if (heading && collapsedLevel !== null && heading.level <= collapsedLevel) collapsedLevel = null;
    if (collapsedLevel !== null) {
      hidden.add(cell.id);
      continue;
    }
    if (heading && isHeadingCollapsed(cell)) collapsedLevel = heading.level;
  }
  return hidden;
}

/** The heading cells to expand so that a cell shows (the collapsed headings whose sections hold it). */
export function headingsHiding(
  cells: readonly Pick<NotebookCell, 'id' | 'cell_type' | 'source' | 'metadata'>[],
  cellIndex: number,
): string[] {
  const result: string[] = [];
  let level = Infinity;
  for (let i = cellIndex - 1; i >= 0 && level > 1; i--) {
    const heading = cellHeading(cells[i]);
    if (!heading || heading.level >= level) continue;
    level = heading.level;
    if (isHeadingCollapsed(cells[i])) result.push(cells[i].id);
  }
  return result;
}

/** How many cells a heading's section holds after the heading (shown on a collapsed heading). */
export function sectionSize(
  cells: readonly Pick<NotebookCell, 'id' | 'cell_type' | 'source' | 'metadata'>[],
  cellIndex: number,
): number {
  const heading = cellHeading(cells[cellIndex]);
  if (!heading) return 0;
  let n = 0;
  for (let i = cellIndex + 1; i < cells.length; i++) {
    const h = cellHeading(cells[i]);
    if (h && h.level <= heading.level) break;
    n++;
  }
  return n;
}

/** The outline entry whose section holds the cell: the last heading at or before it. */
export function currentHeading(headings: readonly NotebookHeading[], cellIndex: number): number | null {
  let found: number | null = null;
  for (let i = 0; i < headings.length && headings[i].cellIndex <= cellIndex; i++) found = i;
  return found;
}

/** The metadata after collapsing or expanding a heading's section (`heading_collapsed`, removed when expanded). */
export function withHeadingCollapsed(metadata: Record<string, unknown>, collapsed: boolean): Record<string, unknown> {
  const next: Record<string, unknown> = { ...metadata };
  if (collapsed) next.heading_collapsed = true;
  else delete next.heading_collapsed;
  return next;
}
