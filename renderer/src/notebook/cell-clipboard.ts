import type { MultilineString, NotebookCell } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';

/** JupyterLab's MIME type for cells (its drag data); the system clipboard carries it as a web custom format. */
export const CELLS_MIME = 'application/vnd.jupyter.cells';
const WEB_CELLS_MIME = `web ${CELLS_MIME}`;

/** Cells as nbformat JSON, as JupyterLab puts them on its clipboard and in its drags. */
export function cellsToJson(cells: readonly NotebookCell[]): string {
  return JSON.stringify(
    cells.map((cell) => {
      const json: Record<string, unknown> = {
        cell_type: cell.cell_type,
        id: cell.id,
        metadata: cell.metadata,
        source: cell.source,
      };
      if (cell.cell_type === 'code') {
        json.outputs = cell.outputs;
        json.execution_count = cell.execution_count;
      }
      if (cell.attachments) json.attachments = cell.attachments;
      return json;
    }),
  );
}

/** Cells from nbformat JSON (Kiln's or JupyterLab's); null when the text is not a list of cells. */
export function cellsFromJson(text: string): NotebookCell[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || !parsed.length) return null;
  const cells: NotebookCell[] = [];
  for (const item of parsed as Record<string, unknown>[]) {
    if (!item || typeof item !== 'object' || typeof item.cell_type !== 'string') return null;
    const source = item.source;
    if (typeof source !== 'string' && !Array.isArray(source)) return null;
    const isCode = item.cell_type === 'code';
    cells.push({
      id: typeof item.id === 'string' ? item.id : '',
      cell_type: item.cell_type,
      source: joinMultiline(source as MultilineString),
      metadata: isObject(item.metadata) ? item.metadata : {},
      outputs: isCode && Array.isArray(item.outputs) ? (item.outputs as NotebookCell['outputs']) : [],
      execution_count: isCode && typeof item.execution_count === 'number' ? item.execution_count : null,
      ...(isObject(item.attachments) ? { attachments: item.attachments as NotebookCell['attachments'] } : {}),
    });
  }
  return cells;
}

/** What a paste into a text editor gets: the cells' sources, a blank line apart. */
export function cellsAsText(cells: readonly NotebookCell[]): string {
  return cells.map((c) => c.source).join('\n\n');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The cell clipboard (C, X, V): the system clipboard gets the cells as JSON under JupyterLab's MIME (a web custom
 * format, through the async Clipboard API) and their sources as plain text, so cells travel between notebooks and
 * windows and a text editor gets the code. The window also keeps the last copy, for where the system clipboard
 * can't be read (no permission) or drops custom formats.
 */
export class CellClipboard {
  private last: { cells: NotebookCell[]; text: string } | null = null;

  async copy(cells: readonly NotebookCell[]): Promise<void> {
    const text = cellsAsText(cells);
    this.last = { cells: structuredClone([...cells]), text };
    const clipboard = globalThis.navigator?.clipboard;
    if (!clipboard) return;
    try {
      await clipboard.write([
        new ClipboardItem({
          'text/plain': new Blob([text], { type: 'text/plain' }),
          [WEB_CELLS_MIME]: new Blob([cellsToJson(cells)], { type: WEB_CELLS_MIME }),
        }),
      ]);
    } catch {
      // No custom formats here: the text at least, and the window's copy for the cells.
      await clipboard.writeText(text).catch(() => undefined);
    }
  }

  /** The cells to paste: the system clipboard's if it holds cells, else the window's copy if the clipboard still holds its text. */
  async cells(): Promise<NotebookCell[] | null> {
    const clipboard = globalThis.navigator?.clipboard;
    let items: ClipboardItems;
    try {
      if (!clipboard) throw new Error('no clipboard');
      items = await clipboard.read();
    } catch {
      return this.last ? structuredClone(this.last.cells) : null;
    }
    for (const item of items) {
      if (item.types.includes(WEB_CELLS_MIME)) {
        const cells = cellsFromJson(await (await item.getType(WEB_CELLS_MIME)).text());
        if (cells) return cells;
      }
    }
    for (const item of items) {
      if (this.last && item.types.includes('text/plain')) {
        const text = await (await item.getType('text/plain')).text();
        if (text === this.last.text) return structuredClone(this.last.cells);
      }
    }
    return null;
  }
}

/** One clipboard per window: what one notebook copies, another pastes. */
export const cellClipboard = new CellClipboard();
