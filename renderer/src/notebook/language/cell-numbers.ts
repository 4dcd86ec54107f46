import { perBridge, Store } from '../../base';
import type { NotebookSession } from '../notebook-session';

/*
 * The cell numbers a window's notebooks show ("Cell 3"), for places outside the notebook that name a cell by its
 * id (the Problems panel, a rename's preview). Read from the open notebooks' sessions when asked, so inserted,
 * moved and deleted cells are counted as the notebook shows them now; the store tells its readers when any open
 * notebook's order of cells changed, so they re-read (diagnostics need not change for that). One per bridge: a
 * window counts its own notebooks.
 */

type TrackedSession = Pick<NotebookSession, 'path' | 'getState' | 'subscribe'>;

export class CellNumbers extends Store<{ version: number }> {
  private readonly sessions = new Set<TrackedSession>();

  constructor() {
    super({ version: 0 });
  }

  /** Counts a notebook's cells while its view is open. Returns what stops it. */
  track(session: TrackedSession): () => void {
    this.sessions.add(session);
    let cells = session.getState().cells;
    let order = orderOf(session);
    const unsubscribe = session.subscribe(() => {
      // Typing replaces the cells array too: only a new order of ids is news.
      if (session.getState().cells === cells) return;
      cells = session.getState().cells;
      const next = orderOf(session);
      if (next === order) return;
      order = next;
      this.renumbered();
    });
    this.renumbered();
    return () => {
      unsubscribe();
      this.sessions.delete(session);
      this.renumbered();
    };
  }

  /** The 1-based number of a cell of an open notebook, as its view labels it; null when the notebook or cell is not open. */
  numberOf(path: string, cellId: string): number | null {
    for (const session of this.sessions) {
      if (session.path !== path) continue;
      const index = session.getState().cells.findIndex((c) => c.cell.id === cellId);
      if (index >= 0) return index + 1;
    }
    return null;
  }

  /** Its version moves whenever an open notebook's cells are inserted, moved or deleted. */
  private renumbered(): void {
    this.set({ version: this.state.version + 1 });
  }
}

/** The window's cell numbers (a hook; `useCellNumbers.of(bridge)` outside React). */
export const useCellNumbers = perBridge(() => new CellNumbers());

function orderOf(session: TrackedSession): string {
  return session
    .getState()
    .cells.map((c) => c.cell.id)
    .join('\n');
}
