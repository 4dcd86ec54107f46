import type { DragEvent as ReactDragEvent } from 'react';
import { Emitter } from '../../../shared/base/event';
import type { NotebookCell } from '../../../shared/contract';
import { perBridge } from '../base';
import type { TabDrop } from '../editor';
import { CELLS_MIME, cellsAsText, cellsFromJson, cellsToJson } from './cell-clipboard';
import type { NotebookController } from './notebook-controller';
import type { CellDragSource } from './types';

/**
 * Dragging cells by their handle: within a notebook a drop moves them; dropped on another notebook it copies
 * them there. The drag carries the cells as JupyterLab's MIME (and their text), so any notebook view can take it.
 */

/**
 * A window's cell drags: the drag it started (so a drop can tell a move within its notebook from a copy) and the
 * cells dropped on its notebooks' tabs. One per bridge: a drag or a tab drop in one window is not another's.
 */
export class CellDrags {
  private current: { notebook: CellDragSource; ids: string[] } | null = null;
  /** Cells dropped on a notebook's tab, waiting for its view (which may not exist until the tab shows). */
  private readonly tabDrops = new Map<string, NotebookCell[][]>();
  private readonly tabDropped = new Emitter<string>();

  /** The cell's handle started a drag (of the cell, or of the selection it is in). */
  start(notebook: CellDragSource, cellId: string, event: ReactDragEvent): void {
    const ids = notebook.selection().includes(cellId) ? notebook.selection() : [cellId];
    const cells = ids.map((id) => notebook.session.cell(id)?.cell).filter((c) => c !== undefined);
    this.current = { notebook, ids };
    event.dataTransfer.setData(CELLS_MIME, cellsToJson(cells));
    event.dataTransfer.setData('text/plain', cellsAsText(cells));
    event.dataTransfer.effectAllowed = 'copyMove';
    setDragLabel(event, cells.length === 1 ? firstLine(cells[0]?.source ?? '') : `${cells.length} cells`);
    if (!ids.includes(notebook.getState().activeId ?? '')) notebook.focus(cellId, 'command');
  }

  end = (): void => {
    this.current = null;
  };

  /** Drops the dragged cells at `index`: a move within the notebook they came from, else a copy. */
  drop(notebook: NotebookController, event: CellDragEvent, index: number): void {
    const current = this.current;
    if (current?.notebook === notebook) {
      const moving = new Set(current.ids);
      const { cells } = notebook.session.getState();
      // The index among the cells that stay: only the moved cells above the drop point shift it.
      let before = index;
      for (const id of current.ids) if (notebook.session.indexOf(id) < index) before--;
      void notebook.moveTo(current.ids, Math.min(Math.max(0, before), cells.length - moving.size));
    } else {
      const cells = cellsFromJson(event.dataTransfer?.getData(CELLS_MIME) ?? '');
      if (cells) void notebook.pasteAt(index, cells);
    }
    this.current = null;
  }

  /** A drop here copies (from elsewhere) or moves (within this notebook). */
  dropEffect(notebook: NotebookController): 'move' | 'copy' {
    return this.current?.notebook === notebook ? 'move' : 'copy';
  }

  /** Cells dropped on another notebook's tab are copied to its end (VS Code-style tab drops). */
  dropOnTab(path: string, data: Pick<DataTransfer, 'getData'>): void {
    const from = this.current?.notebook.session.path;
    this.current = null;
    // On its own notebook's tab a drag is no copy.
    if (from === path) return;
    const cells = cellsFromJson(data.getData(CELLS_MIME));
    if (!cells) return;
    this.tabDrops.set(path, [...(this.tabDrops.get(path) ?? []), cells]);
    this.tabDropped.fire(path);
  }

  /** The view of `path` takes the cells dropped on its tab (now and whenever more come), pasting them at its end. */
  takeTabDrops(path: () => string, paste: (cells: NotebookCell[]) => void): () => void {
    const take = () => {
      const drops = this.tabDrops.get(path());
      this.tabDrops.delete(path());
      for (const cells of drops ?? []) paste(cells);
    };
    take();
    const subscription = this.tabDropped.event((dropped) => dropped === path() && take());
    return () => subscription.dispose();
  }
}

/** The window's cell drags (a hook; `useCellDrags.of(bridge)` outside React). */
export const useCellDrags = perBridge(() => new CellDrags());

/**
 * A small drag image naming what moves (the cell's first line, or "3 cells"): the browser paints it once, where
 * painting the cell itself (an editor and its outputs) can hold the page for a long frame.
 */
function setDragLabel(event: ReactDragEvent, text: string): void {
  const label = document.createElement('div');
  label.className = 'nb-drag-label';
  label.textContent = text;
  document.body.appendChild(label);
  event.dataTransfer.setDragImage(label, 8, 8);
  requestAnimationFrame(() => label.remove());
}

function firstLine(source: string): string {
  const line = source.split('\n', 1)[0].trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || 'Empty cell';
}

/** What the drop side reads of a drag event (the DOM's, or React's). */
interface CellDragEvent {
  target: EventTarget | null;
  clientY: number;
  dataTransfer: DataTransfer | null;
}

export function carriesCells(event: CellDragEvent): boolean {
  return Boolean(event.dataTransfer?.types.includes(CELLS_MIME));
}

/** Where cells dropped here would go: before or after the cell under the pointer, by its middle. Null off the cells. */
export function dropTarget(
  notebook: NotebookController,
  event: CellDragEvent,
): { index: number; element: HTMLElement; after: boolean } | null {
  const element = (event.target as Element | null)?.closest?.<HTMLElement>('[data-cell-id]');
  const index = element ? notebook.session.indexOf(element.dataset.cellId ?? '') : -1;
  if (!element || index < 0) return null;
  const box = element.getBoundingClientRect();
  const after = event.clientY > box.top + box.height / 2;
  return { index: after ? index + 1 : index, element, after };
}

/**
 * Takes cell drags over a notebook's list of cells before anything in it sees them (capture phase), showing
 * `line` where they would land and dropping them there. A cell's Monaco editor would otherwise take the drag
 * for text: hit-test its caret on every dragover (a forced layout each time) and, on the drop, insert the
 * dragged cells' text where they were dropped. Other drags (text, files) reach the editors as before.
 */
export function takeCellDrops(
  drags: CellDrags,
  list: HTMLElement,
  line: HTMLElement,
  notebook: NotebookController,
): () => void {
  let lineTop: number | null = null;
  let lastIndex: number | null = null;
  const hide = () => {
    lineTop = null;
    lastIndex = null;
    line.hidden = true;
  };
  const onDragOver = (event: DragEvent) => {
    if (!carriesCells(event)) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer!.dropEffect = drags.dropEffect(notebook);
    const target = dropTarget(notebook, event);
    if (!target) return;
    lastIndex = target.index;
    // The line moves only when its place changes: most dragovers (every 50 ms or so) write nothing.
    const top = target.element.offsetTop + (target.after ? target.element.offsetHeight : 0) - 1;
    if (top === lineTop) return;
    lineTop = top;
    line.style.transform = `translateY(${top}px)`;
    line.hidden = false;
  };
  const onDrop = (event: DragEvent) => {
    if (!carriesCells(event)) return;
    event.preventDefault();
    event.stopPropagation();
    const index = dropTarget(notebook, event)?.index ?? lastIndex ?? notebook.session.getState().cells.length;
    hide();
    drags.drop(notebook, event, index);
  };
  const onDragLeave = (event: DragEvent) => {
    if (!list.contains(event.relatedTarget as Node | null)) hide();
  };
  list.addEventListener('dragover', onDragOver, true);
  list.addEventListener('drop', onDrop, true);
  list.addEventListener('dragleave', onDragLeave);
  list.addEventListener('dragend', hide);
  return () => {
    list.removeEventListener('dragover', onDragOver, true);
    list.removeEventListener('drop', onDrop, true);
    list.removeEventListener('dragleave', onDragLeave);
    list.removeEventListener('dragend', hide);
  };
}

/** Cells dropped on another notebook's tab are copied to its end, as the issue asks (VS Code-style tab drops). */
export const notebookTabDrop: TabDrop = {
  accepts: (types) => types.includes(CELLS_MIME),
  drop: (path, data, bridge) => useCellDrags.of(bridge).dropOnTab(path, data),
};
