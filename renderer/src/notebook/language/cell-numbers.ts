import type { NotebookSession } from '../notebook-session';

/*
 * The cell numbers the notebooks show ("Cell 3"), for places outside the notebook that name a cell by its id
 * (the Problems panel). Read from the open notebooks' sessions when asked, so inserted, moved and deleted cells
 * are counted as the notebook shows them now.
 */

const sessions = new Set<Pick<NotebookSession, 'path' | 'getState'>>();

/** Counts a notebook's cells while its view is open. Returns what stops it. */
export function trackCellNumbers(session: Pick<NotebookSession, 'path' | 'getState'>): () => void {
  sessions.add(session);
  return () => void sessions.delete(session);
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
