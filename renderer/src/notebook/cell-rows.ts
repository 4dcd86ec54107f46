/**
 * The notebook's rows as DOM nodes owned here, each filled by React through a portal, and put in order here.
 * React orders keyed children by moving every child a move displaces: a cell dragged up past nine cells moved
 * those nine (each with its editor), and the frame after the drop re-styled and re-laid out all of them. Here a
 * move costs one DOM move per cell moved (the fewest moves that give the new order).
 */

export interface RowPlace {
  cellId: string;
  /** The row's accessible name ("Cell 3"). */
  label: string;
  selected: boolean;
}

export class CellRows {
  private readonly rows = new Map<string, HTMLDivElement>();

  /** The row of a cell, made on first ask (React renders the cell into it). */
  rowFor(cellId: string): HTMLDivElement {
    let row = this.rows.get(cellId);
    if (!row) {
      row = document.createElement('div');
      row.setAttribute('role', 'row');
      this.rows.set(cellId, row);
    }
    return row;
  }

  /** Puts `grid`'s rows in this order with their names and selection; rows of cells not listed leave. */
  arrange(grid: HTMLElement, places: readonly RowPlace[]): void {
    const wanted = new Set(places.map((p) => p.cellId));
    for (const [cellId, row] of this.rows) {
      if (wanted.has(cellId)) continue;
      row.remove();
      this.rows.delete(cellId);
    }
    const order = places.map((p) => this.rowFor(p.cellId));
    for (const [i, place] of places.entries()) {
      const row = order[i];
      if (row.getAttribute('aria-label') !== place.label) row.setAttribute('aria-label', place.label);
      const selected = String(place.selected);
      if (row.getAttribute('aria-selected') !== selected) row.setAttribute('aria-selected', selected);
    }
    const now = new Map<Element, number>();
    for (const [i, child] of [...grid.children].entries()) now.set(child, i);
    const stay = longestIncreasing(order.map((row) => now.get(row) ?? -1));
    // From the end: every row after the one placed is already where it belongs.
    for (let i = order.length - 1; i >= 0; i--) {
      if (stay.has(i)) continue;
      grid.insertBefore(order[i], order[i + 1] ?? null);
    }
  }
}

/** The indexes of a longest strictly increasing run of the non-negative values (-1: not there yet, never kept). */
export function longestIncreasing(values: readonly number[]): Set<number> {
  const tails: number[] = []; // tails[k]: index of the smallest last value of an increasing run of length k + 1
  const previous = new Array<number>(values.length).fill(-1);
  for (const [i, value] of values.entries()) {
    if (value < 0) continue;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const kept = new Set<number>();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) kept.add(i);
  return kept;
}
