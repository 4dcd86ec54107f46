import { Store } from '../../base';
import type { NotebookSession } from '../notebook-session';

/*
 * The cell numbers the notebooks show ("Cell 3"), for places outside the notebook that name a cell by its id
 * (the Problems panel, a rename's preview). Read from the open notebooks' sessions when asked, so inserted,
 * moved and deleted cells are counted as the notebook shows them now; `cellNumbers` tells its readers when
 * any open notebook's order of cells changed, so they re-read (diagnostics need not change for that).
 */

type TrackedSession = Pick<NotebookSession, 'path' | 'getState' | 'subscribe'>;

const sessions = new Set<TrackedSession>();

class CellNumbers extends Store<{ version: number }> {
  renumbered(): void {
    this.set({ version: this.state.version + 1 });
  }
}

/** Its version moves whenever an open notebook's cells are inserted, moved or deleted. */
export const cellNumbers = new CellNumbers({ version: 0 });

function orderOf(session: TrackedSession): string {
  return session
    .getState()
    .cells.map((c) => c.cell.id)
    .join('\n');
}

/** Counts a notebook's cells while its view is open. Returns what stops it. */
export function trackCellNumbers(session: TrackedSession): () => void {
  sessions.add(session);
  let cells = session.getState().cells;
  let order = orderOf(session);
  const unsubscribe = session.subscribe(() => {
    // Typing replaces the cells array too: only a new order of ids is news.
    if (session.getState().cells === cells) return;
    cells = session.getState().cells;
    const next = orderOf(session);
    if (next === order) return;
    order = next;
    cellNumbers.renumbered();
  });
  cellNumbers.renumbered();
  return () => {
    unsubscribe();
    sessions.delete(session);
    cellNumbers.renumbered();
  };
}

/** The 1-based number of a cell of an open notebook, as its view labels it; null when the notebook or cell is not open. */
export function cellNumberOf(path: string, cellId: string): number | null {
  for (const session of sessions) {
    if (session.path !== path) continue;
    const index = session.getState().cells.findIndex((c) => c.cell.id === cellId);
    if (index >= 0) return index + 1;
  }
  return null;
}
