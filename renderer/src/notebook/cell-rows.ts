import { longestIncreasing } from '../../../shared/base/longest-increasing';

/**
 * The order of the notebook's rows on the page, kept here rather than by React. React orders keyed children by
 * moving every child a move displaces: a cell dragged up past nine cells moved those nine (each with its editor),
 * and the frame after the drop re-styled and re-laid out all of them. Here React renders the rows in an order
 * that never changes for the rows that stay (a new row goes last), so it moves none; `arrange` then puts them in
 * the notebook's order with the fewest DOM moves: one per cell moved.
 */
export class CellRows {
  private readonly rows = new Map<string, HTMLElement>();
  private readonly refs = new Map<string, (el: HTMLElement | null) => void>();
  private renderOrder: string[] = [];

  /** The order to render the rows of these cells in: the last one's, less the cells gone, then the new cells. */
  renderOrderFor(shown: readonly string[]): string[] {
    const wanted = new Set(shown);
    const order = this.renderOrder.filter((id) => wanted.has(id));
    const known = new Set(order);
    for (const id of shown) if (!known.has(id)) order.push(id);
    this.renderOrder = order;
    return order;
  }

  /** The ref of a cell's row element (one function per cell, so React does not call it on every render). */
  refFor(cellId: string): (el: HTMLElement | null) => void {
    let ref = this.refs.get(cellId);
    if (!ref) {
      ref = (el) => {
        if (el) this.rows.set(cellId, el);
        else if (this.rows.has(cellId)) {
          this.rows.delete(cellId);
          this.refs.delete(cellId);
        }
      };
      this.refs.set(cellId, ref);
    }
    return ref;
  }

  /** Puts the rows of `grid` in the notebook's order (`shown`), moving as few as it can. */
  arrange(grid: HTMLElement, shown: readonly string[]): void {
    const order = shown.map((id) => this.rows.get(id)).filter((row) => row !== undefined);
    // Most renders change no order (typing, running, cells mounting at the end): one walk tells, nothing moves.
    let child = grid.firstElementChild;
    let inPlace = 0;
    while (inPlace < order.length && child === order[inPlace]) {
      child = child.nextElementSibling;
      inPlace++;
    }
    if (inPlace === order.length && !child) return;
    const now = new Map<Element, number>();
    for (const [i, child] of [...grid.children].entries()) now.set(child, i);
    const stay = new Set(longestIncreasing(order.map((row) => now.get(row) ?? -1)));
    // From the end: every row after the one placed is already where it belongs.
    for (let i = order.length - 1; i >= 0; i--) {
      if (stay.has(i)) continue;
      grid.insertBefore(order[i], order[i + 1] ?? null);
    }
  }
}
