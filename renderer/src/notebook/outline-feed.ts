import { useMemo, useSyncExternalStore } from 'react';
import { Emitter } from '../../../shared/base/event';
import type { KilnBridge } from '../../../shared/contract';
import { perBridge, useStore, type Readable } from '../base';
import type { NotebookSessionState } from './notebook-session';
import { currentHeading, notebookHeadings, type NotebookHeading } from './sections';

/** What a shown notebook tells the outline: its cells, and which cell is selected. */
interface ShownNotebook {
  session: Readable<NotebookSessionState>;
  selection: Readable<{ activeId: string | null }>;
}

/** The notebooks a window shows, by path: one feed per bridge, so one window's outline never lists another's notebook. */
export class OutlineFeed {
  private readonly shown = new Map<string, ShownNotebook>();
  private readonly changed = new Emitter<void>();

  subscribe = (listener: () => void): (() => void) => {
    const sub = this.changed.event(listener);
    return () => sub.dispose();
  };

  get(path: string): ShownNotebook | undefined {
    return this.shown.get(path);
  }

  /** A notebook view says it is showing `path` (until the returned function is called). */
  show(path: string, notebook: ShownNotebook): () => void {
    this.shown.set(path, notebook);
    this.changed.fire();
    return () => {
      if (this.shown.get(path) !== notebook) return;
      this.shown.delete(path);
      this.changed.fire();
    };
  }
}

export const useOutlineFeed = perBridge(() => new OutlineFeed());

/** A notebook view of the window of `bridge` says it is showing `path` (until the returned function is called). */
export function showNotebookOutline(bridge: KilnBridge, path: string, notebook: ShownNotebook): () => void {
  return useOutlineFeed.of(bridge).show(path, notebook);
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

/** The headings of the notebook the window shows at `path` (null when none is shown there), kept current as it changes. */
export function useNotebookOutline(path: string | null): NotebookOutline | null {
  const feed = useOutlineFeed();
  const notebook = useSyncExternalStore(feed.subscribe, () => (path ? feed.get(path) : undefined));
  const cells = useStore(notebook?.session ?? NOTHING, (s) => s?.cells ?? null);
  const activeId = useStore(notebook?.selection ?? NO_SELECTION, (s) => s.activeId);
  const headings = useMemo(() => (cells ? notebookHeadings(cells.map((c) => c.cell)) : null), [cells]);
  if (!headings || !cells) return null;
  const index = cells.findIndex((c) => c.cell.id === activeId);
  return { headings, current: index < 0 ? null : currentHeading(headings, index) };
}
