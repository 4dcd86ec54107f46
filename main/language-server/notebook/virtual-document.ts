import { maskCellLines } from './magics';

/*
 * A notebook as the language server sees it: one Python document of its code cells in order (as VS Code
 * and jupyterlab-lsp present notebooks), so a name defined in cell 2 is known in cell 5. Each cell's lines
 * follow the previous cell's after one blank separator line, masked for IPython syntax but never shifted:
 * a cell's line L, column C is the document's line start+L, column C, both ways. Positions are LSP's
 * (0-based lines, UTF-16 columns), which are also JavaScript's string offsets.
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A code cell as the notebook holds it. */
export interface SourceCell {
  id: string;
  source: string;
}

/** A position inside one cell. */
export interface CellPosition extends Position {
  cellId: string;
}

/** A range inside one cell. */
export interface CellRange {
  cellId: string;
  range: Range;
}

/** Where one cell's lines sit in the document. */
interface Placement {
  cellId: string;
  /** The document line of the cell's first line. */
  start: number;
  /** The cell's lines as the operator wrote them (columns are checked against them). */
  lines: string[];
}

/** Lines as Monaco and LSP count them: `\r\n`, `\r` and `\n` each end one; a trailing newline leaves an empty last line. */
function splitCellLines(source: string): string[] {
  return source.split(/\r\n|\r|\n/);
}

export class NotebookVirtualDocument {
  /** The document's text, sent to the server. */
  readonly text: string;
  private readonly placements: Placement[];
  private readonly byId: Map<string, Placement>;

  constructor(cells: readonly SourceCell[]) {
    const placements: Placement[] = [];
    const out: string[] = [];
    for (const cell of cells) {
      const lines = splitCellLines(cell.source);
      // One blank line between cells: a cell never continues the previous one's last line.
      if (placements.length) out.push('');
      placements.push({ cellId: cell.id, start: out.length, lines });
      out.push(...maskCellLines(lines));
    }
    this.text = out.join('\n');
    this.placements = placements;
    this.byId = new Map(placements.map((p) => [p.cellId, p]));
  }

  /** The cells in document order. */
  get cellIds(): string[] {
    return this.placements.map((p) => p.cellId);
  }

  /** The document line of a cell's first line, or null for a cell that is not in it. */
  cellStart(cellId: string): number | null {
    return this.byId.get(cellId)?.start ?? null;
  }

  /** The document position of a position in a cell (clamped into the cell); null for a cell not in the document. */
  toDocument(pos: CellPosition): Position | null {
    const placement = this.byId.get(pos.cellId);
    if (!placement) return null;
    const line = Math.min(Math.max(pos.line, 0), placement.lines.length - 1);
    const character = Math.min(Math.max(pos.character, 0), placement.lines[line].length);
    return { line: placement.start + line, character };
  }

  /** A cell's range in the document (clamped into the cell). */
  rangeToDocument(cellRange: CellRange): Range | null {
    const start = this.toDocument({ cellId: cellRange.cellId, ...cellRange.range.start });
    const end = this.toDocument({ cellId: cellRange.cellId, ...cellRange.range.end });
    return start && end ? { start, end } : null;
  }

  /** The cell position at a document position; null on a separator line or past the end. */
  toCell(pos: Position): CellPosition | null {
    const placement = this.placementAt(pos.line);
    if (!placement || pos.line - placement.start >= placement.lines.length) return null;
    const line = pos.line - placement.start;
    return { cellId: placement.cellId, line, character: Math.min(pos.character, placement.lines[line].length) };
  }

  /**
   * The cell range of a document range. A range that runs past its cell (an unclosed bracket reported up
   * to the end of the document) is cut at the cell's end; one that starts on a separator belongs to the
   * end of the cell before it. Null before the first cell or when there are none.
   */
  rangeToCell(range: Range): CellRange | null {
    const placement = this.placementAt(range.start.line);
    if (!placement) return null;
    const lastLine = placement.lines.length - 1;
    const endOfCell = { line: lastLine, character: placement.lines[lastLine].length };
    const clamp = (pos: Position): Position => {
      const line = pos.line - placement.start;
      if (line > lastLine) return endOfCell;
      return { line, character: Math.min(pos.character, placement.lines[line].length) };
    };
    const start = clamp(range.start);
    const end = range.end.line < range.start.line ? start : clamp(range.end);
    return { cellId: placement.cellId, range: { start, end } };
  }

  /** The last line of a cell that holds code (not blank), or null: where Jupyter shows an expression's value. */
  lastCodeLine(cellId: string): number | null {
    const placement = this.byId.get(cellId);
    if (!placement) return null;
    for (let line = placement.lines.length - 1; line >= 0; line--) {
      if (placement.lines[line].trim() !== '') return line;
    }
    return null;
  }

  /** The placement whose lines start at or before `line` (the last such); null before the first cell. */
  private placementAt(line: number): Placement | null {
    let lo = 0;
    let hi = this.placements.length - 1;
    let found: Placement | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.placements[mid].start <= line) {
        found = this.placements[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}
