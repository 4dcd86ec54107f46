import { useMemo, useSyncExternalStore } from 'react';
import { Emitter } from '../../../shared/base/event';
import { useStore, type Readable } from '../base';
import type { NotebookSessionState } from './notebook-session';
import { currentHeading, notebookHeadings, type NotebookHeading } from './sections';

/** What a shown notebook tells the outline: its cells, and which cell is selected. */
interface ShownNotebook {
  session: Readable<NotebookSessionState>;
  selection: Readable<{ activeId: string | null }>;
}

const shown = new Map<string, ShownNotebook>();
const changed = new Emitter<void>();
const subscribe = (listener: () => void) => {
  const sub = changed.event(listener);
  return () => sub.dispose();
};

/** A notebook view says it is showing `path` (until the returned function is called). */
export function showNotebookOutline(path: string, notebook: ShownNotebook): () => void {
  shown.set(path, notebook);
  changed.fire();
  return () => {
    if (shown.get(path) !== notebook) return;
    shown.delete(path);
    changed.fire();
  };
}

const NOTHING: Readable<NotebookSessionState | null> = { subscribe: () => () => undefined, getState: () => null };
const NO_SELECTION: Readable<{ activeId: string | null }> = {
  subscribe: () => () => undefined,
  getState: () => ({ activeId: null }),
};

export interface NotebookOutline {
  headings: NotebookHeading[];
  /** The heading whose section holds the selected cell. */
  current: number | null;
}

/** The headings of the notebook shown at `path` (null when none is shown there), kept current as it changes. */
export function useNotebookOutline(path: string | null): NotebookOutline | null {
  const notebook = useSyncExternalStore(subscribe, () => (path ? shown.get(path) : undefined));
  const cells = useStore(notebook?.session ?? NOTHING, (s) => s?.cells ?? null);
  const activeId = useStore(notebook?.selection ?? NO_SELECTION, (s) => s.activeId);
  const headings = useMemo(() => (cells ? notebookHeadings(cells.map((c) => c.cell)) : null), [cells]);
  if (!headings || !cells) return null;
  const index = cells.findIndex((c) => c.cell.id === activeId);
  return { headings, current: index < 0 ? null : currentHeading(headings, index) };
}
