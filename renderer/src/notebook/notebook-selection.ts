import type { NotebookSession } from './notebook-session';
import type { NotebookMode, ViewState } from './notebook-view-state';

/**
 * The notebook view's selection: the active cell and its mode, the multi-selection and its anchor, where focus goes,
 * and which markdown cells show their source. Every action asks it which cells it applies to.
 */
export class NotebookSelection {
  constructor(
    private readonly view: ViewState,
    private readonly session: NotebookSession,
  ) {}

  /** The first cell is selected once the notebook is there, and selection never points at a deleted cell. */
  keepSelection = (): void => {
    const { status, cells } = this.session.getState();
    const { activeId, selected } = this.view.state;
    if (status !== 'ready') return;
    const present = new Set(cells.map((c) => c.cell.id));
    if ([...selected].some((id) => !present.has(id)))
      this.view.set({ selected: new Set([...selected].filter((id) => present.has(id))) });
    if (activeId && present.has(activeId)) return;
    this.view.set({ activeId: cells[0]?.cell.id ?? null, selected: new Set(), anchorId: null });
  };

  /** The cells an action applies to, in document order: the selection, or the active cell. */
  selection = (): string[] => {
    const { selected, activeId } = this.view.state;
    const ids = this.session
      .getState()
      .cells.filter((c) => selected.has(c.cell.id))
      .map((c) => c.cell.id);
    if (ids.length) return ids;
    return activeId && this.session.cell(activeId) ? [activeId] : [];
  };

  isSelected = (cellId: string): boolean => {
    const { selected, activeId } = this.view.state;
    return selected.has(cellId) || (selected.size === 0 && activeId === cellId);
  };

  /** The cells between two cells, both included, in document order. */
  private range(fromId: string, toId: string): string[] {
    const a = this.session.indexOf(fromId);
    const b = this.session.indexOf(toId);
    if (a < 0 || b < 0) return [toId];
    const cells = this.session.getState().cells;
    return cells.slice(Math.min(a, b), Math.max(a, b) + 1).map((c) => c.cell.id);
  }

  /** Shift+J/K, Shift+Up/Down: the selection grows (or shrinks back) from its anchor, command mode. */
  extendBy = (by: -1 | 1): void => {
    const { activeId } = this.view.state;
    if (!activeId) return;
    const anchor = this.view.state.anchorId ?? activeId;
    const next = this.cellAt(this.session.indexOf(activeId) + by);
    if (!next) return;
    this.selectCells(this.range(anchor, next), next, anchor);
  };

  /** Ctrl/Cmd+A in command mode. */
  selectAll = (): void => {
    const ids = this.session.getState().cells.map((c) => c.cell.id);
    if (ids.length) this.selectCells(ids, this.view.state.activeId ?? ids[0], ids[0]);
  };

  /** A click on a cell's chrome: Shift extends from the anchor, Ctrl/Cmd toggles, a plain click selects it alone. */
  pointerSelect = (cellId: string, how: { extend: boolean; toggle: boolean }): void => {
    const { activeId } = this.view.state;
    if (how.extend && activeId) {
      const anchor = this.view.state.anchorId ?? activeId;
      this.selectCells(this.range(anchor, cellId), cellId, anchor);
    } else if (how.toggle && activeId) {
      const selected = new Set(this.selection());
      if (selected.has(cellId) && selected.size > 1) {
        selected.delete(cellId);
        const ids = this.selection().filter((id) => selected.has(id));
        this.selectCells(ids, cellId === activeId ? ids[ids.length - 1] : activeId, this.view.state.anchorId);
      } else {
        selected.add(cellId);
        this.selectCells([...selected], cellId, cellId);
      }
    } else if (activeId !== cellId || this.view.state.selected.size > 1) {
      this.focus(cellId, 'command');
    }
  };

  /** Selects `ids` with `activeId` the active one, in command mode, focus on it. */
  selectCells = (ids: readonly string[], activeId: string, anchorId: string | null = activeId): void => {
    this.view.set({
      selected: ids.length > 1 ? new Set(ids) : new Set(),
      activeId,
      anchorId,
      mode: 'command',
      focusTick: this.view.state.focusTick + 1,
    });
  };

  /** The id of the cell at `index`, or null past either end. */
  cellAt(index: number): string | null {
    return this.session.getState().cells[index]?.cell.id ?? null;
  }

  /** A markdown cell shows its source (to be edited). */
  unrender(cellId: string): void {
    const { unrendered } = this.view.state;
    if (!unrendered.has(cellId)) this.view.set({ unrendered: new Set(unrendered).add(cellId) });
  }

  /** A markdown cell shows rendered again. */
  render(cellId: string): void {
    if (!this.view.state.unrendered.has(cellId)) return;
    const unrendered = new Set(this.view.state.unrendered);
    unrendered.delete(cellId);
    this.view.set({ unrendered });
  }

  /** Selects a cell and moves focus to it (command mode) or into its editor (edit mode). */
  focus = (cellId: string | null, mode: NotebookMode): void => {
    if (!cellId) return;
    if (mode === 'edit' && this.session.cell(cellId)?.cell.cell_type === 'markdown') this.unrender(cellId);
    this.view.set({
      activeId: cellId,
      mode,
      focusTick: this.view.state.focusTick + 1,
      selected: new Set(),
      anchorId: null,
    });
  };

  /** A click or focus inside a cell: it becomes the active one without stealing focus back. */
  select = (cellId: string, mode: NotebookMode): void => {
    if (this.view.state.activeId === cellId && this.view.state.mode === mode) return;
    if (mode !== 'edit') return this.focus(cellId, 'command');
    this.view.set({ activeId: cellId, mode: 'edit', selected: new Set(), anchorId: null });
    if (this.session.cell(cellId)?.cell.cell_type === 'markdown') {
      this.unrender(cellId);
      this.view.set({ focusTick: this.view.state.focusTick + 1 });
    }
  };

  /** Command mode's arrows and j/k: the cell above or below becomes the selected one. */
  selectBy = (by: -1 | 1): void => {
    const { cells } = this.session.getState();
    const index = this.session.indexOf(this.view.state.activeId ?? '');
    this.focus(cells[Math.min(cells.length - 1, Math.max(0, index + by))]?.cell.id ?? null, 'command');
  };

  /** The selection when `cellId` is part of it, else that cell alone (a cell's own button or menu). */
  targets(cellId: string): string[] {
    const selection = this.selection();
    return selection.includes(cellId) ? selection : [cellId];
  }

  /** Selects the cell now at `index` (or the last), after the cells there went away. */
  focusNear(index: number): void {
    const { cells } = this.session.getState();
    this.focus(cells[Math.min(index, cells.length - 1)]?.cell.id ?? null, 'command');
  }
}
