import type { DragEvent } from 'react';
import { CELLS_MIME, cellsAsText, cellsFromJson, cellsToJson } from './cell-clipboard';
import type { NotebookController } from './notebook-controller';

/**
 * Dragging cells by their handle: within a notebook a drop moves them; dropped on another notebook it copies
 * them there. The drag carries the cells as JupyterLab's MIME (and their text), so any notebook view can take it.
 */

/** The drag this window started, so a drop can tell a move within its notebook from a copy. */
let current: { notebook: NotebookController; ids: string[] } | null = null;

export function startCellDrag(notebook: NotebookController, cellId: string, event: DragEvent): void {
  const ids = notebook.selection().includes(cellId) ? notebook.selection() : [cellId];
  const cells = ids.map((id) => notebook.session.cell(id)?.cell).filter((c) => c !== undefined);
  current = { notebook, ids };
  event.dataTransfer.setData(CELLS_MIME, cellsToJson(cells));
  event.dataTransfer.setData('text/plain', cellsAsText(cells));
  event.dataTransfer.effectAllowed = 'copyMove';
  const element = notebook.cellElements.get(cellId);
  if (element) event.dataTransfer.setDragImage(element, 12, 12);
  if (!ids.includes(notebook.getState().activeId ?? '')) notebook.focus(cellId, 'command');
}

export function endCellDrag(): void {
  current = null;
}

export function carriesCells(event: DragEvent): boolean {
  return event.dataTransfer.types.includes(CELLS_MIME);
}

/** Where cells dropped here would go: before or after the cell under the pointer, by its middle. Null off the cells. */
export function dropTarget(
  notebook: NotebookController,
  event: DragEvent,
): { index: number; element: HTMLElement; after: boolean } | null {
  const element = (event.target as Element).closest?.<HTMLElement>('[data-cell-id]');
  const index = element ? notebook.session.indexOf(element.dataset.cellId ?? '') : -1;
  if (!element || index < 0) return null;
  const box = element.getBoundingClientRect();
  const after = event.clientY > box.top + box.height / 2;
  return { index: after ? index + 1 : index, element, after };
}

/** Drops the dragged cells at `index`: a move within the notebook they came from, else a copy. */
export function dropCells(notebook: NotebookController, event: DragEvent, index: number): void {
  if (current?.notebook === notebook) {
    const moving = new Set(current.ids);
    const before = notebook.session
      .getState()
      .cells.slice(0, index)
      .filter((c) => !moving.has(c.cell.id)).length;
    void notebook.moveTo(current.ids, before);
  } else {
    const cells = cellsFromJson(event.dataTransfer.getData(CELLS_MIME));
    if (cells) void notebook.pasteAt(index, cells);
  }
  current = null;
}

/** A drop here copies (from elsewhere) or moves (within this notebook). */
export function dropEffect(notebook: NotebookController): 'move' | 'copy' {
  return current?.notebook === notebook ? 'move' : 'copy';
}
