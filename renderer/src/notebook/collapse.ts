import type { NotebookSession } from './notebook-session';
import { outputsHidden, sourceHidden, withOutputsHidden, withSourceHidden } from './cell-metadata';
import { cellHeading, headingsHiding, isHeadingCollapsed, withHeadingCollapsed } from './sections';

/**
 * Collapsing, written to cell metadata as JupyterLab writes it: a heading's section (`heading_collapsed`),
 * a cell's input (`jupyter.source_hidden`) and its outputs (`jupyter.outputs_hidden`, with `collapsed`).
 */
export class CollapseActions {
  constructor(
    private readonly session: NotebookSession,
    private readonly onError: (err: unknown) => void,
  ) {}

  setHeadingCollapsed = (cellId: string, collapsed: boolean): Promise<void> => {
    const view = this.session.cell(cellId);
    if (!view || !cellHeading(view.cell) || isHeadingCollapsed(view.cell) === collapsed) return Promise.resolve();
    return this.write(cellId, withHeadingCollapsed(view.cell.metadata, collapsed));
  };

  toggleHeading = (cellId: string): void => {
    const view = this.session.cell(cellId);
    if (view) void this.setHeadingCollapsed(cellId, !isHeadingCollapsed(view.cell));
  };

  /** JupyterLab's Left in command mode: collapse the cell's heading, or the heading of the section it is in. */
  collapseSectionOf = (cellId: string): string | null => {
    const { cells } = this.session.getState();
    const index = this.session.indexOf(cellId);
    for (let i = index; i >= 0; i--) {
      if (!cellHeading(cells[i].cell)) continue;
      void this.setHeadingCollapsed(cells[i].cell.id, true);
      return cells[i].cell.id;
    }
    return null;
  };

  /** Every heading collapsed or expanded at once. */
  setAllHeadings = (collapsed: boolean): void => {
    for (const view of this.session.getState().cells) void this.setHeadingCollapsed(view.cell.id, collapsed);
  };

  /** Expands the collapsed headings a cell is hidden under, so it can be shown. */
  reveal = async (cellIndex: number): Promise<void> => {
    const cells = this.session.getState().cells.map((v) => v.cell);
    await Promise.all(headingsHiding(cells, cellIndex).map((id) => this.setHeadingCollapsed(id, false)));
  };

  toggleSource = (cellId: string): void => {
    const view = this.session.cell(cellId);
    if (view) void this.write(cellId, withSourceHidden(view.cell.metadata, !sourceHidden(view.cell.metadata)));
  };

  toggleOutputs = (cellId: string): void => {
    const view = this.session.cell(cellId);
    if (view) void this.write(cellId, withOutputsHidden(view.cell.metadata, !outputsHidden(view.cell.metadata)));
  };

  private write(cellId: string, metadata: Record<string, unknown>): Promise<void> {
    return this.session.setCellMetadata(cellId, metadata).catch(this.onError);
  }
}
