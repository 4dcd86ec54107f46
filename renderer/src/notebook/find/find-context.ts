import { createContext, useContext } from 'react';
import { useStore, type Readable } from '../../base';
import type { FindState } from './find-controller';
import type { FindMatch } from './find-model';

/**
 * The notebook's find, for the parts of a cell that show it. Each part subscribes for its own cell, so a new
 * query repaints the highlights of the cells it touches and nothing else of them (not their markdown, not their outputs).
 */
export const FindContext = createContext<{ now: Readable<FindState>; later: Readable<FindState> } | null>(null);

const NONE: Readable<FindState | null> = { subscribe: () => () => undefined, getState: () => null };
const NO_MATCHES: readonly FindMatch[] = [];

export interface CellFind {
  matches: readonly FindMatch[];
  /** The current match, when it is in this cell. */
  current: FindMatch | null;
}

const sameCellFind = (a: CellFind, b: CellFind) => a.matches === b.matches && a.current === b.current;

/** This cell's matches and, when it is here, the current one; `later` for a part that is off screen. */
export function useCellFind(cellId: string, when: 'now' | 'later' = 'now'): CellFind {
  const find = useContext(FindContext);
  return useStore(
    find?.[when] ?? NONE,
    (s) => {
      if (!s?.open) return { matches: NO_MATCHES, current: null };
      const current = s.current === null ? null : s.matches[s.current];
      return { matches: s.byCell.get(cellId) ?? NO_MATCHES, current: current?.cellId === cellId ? current : null };
    },
    sameCellFind,
  );
}

/** Where the current match is when it is in this cell (its source or its outputs), else null. */
export function useCurrentMatchArea(cellId: string): FindMatch['area'] | null {
  const find = useContext(FindContext);
  return useStore(find?.now ?? NONE, (s) => {
    const current = s?.open && s.current !== null ? s.matches[s.current] : null;
    return current?.cellId === cellId ? current.area : null;
  });
}

/** How many matches these cells hold (in `area`, or anywhere), for a folded part's label. */
export function useMatchCount(cellIds: readonly string[], area?: FindMatch['area']): number {
  const find = useContext(FindContext);
  return useStore(find?.later ?? NONE, (s) => {
    if (!s?.open) return 0;
    let n = 0;
    for (const id of cellIds) for (const m of s.byCell.get(id) ?? NO_MATCHES) if (!area || m.area === area) n++;
    return n;
  });
}
