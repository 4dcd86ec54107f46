import type { CellMatching } from './types';

/*
 * The anchors (matched cells that kept their order) cut both notebooks into stretches; every other cell of the old
 * notebook (deleted, or moved away) and of the new one (added, or moved here) falls in one stretch. Display order
 * and partial apply both walk the stretches, so a cell shows where an accept would put it.
 */

export interface Stretch {
  /** Old cells in this stretch that are not anchors, in old order. */
  oldCells: number[];
  /** New cells in this stretch that are not anchors, in new order. */
  newCells: number[];
  /** The anchor that closes the stretch (the last stretch has none). */
  anchor: { oldIndex: number; newIndex: number } | null;
}

export function stretchesOf(matching: CellMatching): Stretch[] {
  const { oldToNew, newToOld, anchored } = matching;
  const stretches: Stretch[] = [{ oldCells: [], newCells: [], anchor: null }];
  // Old cells walk in step with the anchors, which are in the same order on both sides.
  let i = 0;
  for (let j = 0; j < newToOld.length; j++) {
    const current = stretches[stretches.length - 1];
    if (!anchored[j]) {
      current.newCells.push(j);
      continue;
    }
    const anchorOld = newToOld[j];
    for (; i < anchorOld; i++) if (!(oldToNew[i] >= 0 && anchored[oldToNew[i]])) current.oldCells.push(i);
    i = anchorOld + 1;
    current.anchor = { oldIndex: anchorOld, newIndex: j };
    stretches.push({ oldCells: [], newCells: [], anchor: null });
  }
  const last = stretches[stretches.length - 1];
  for (; i < oldToNew.length; i++) if (!(oldToNew[i] >= 0 && anchored[oldToNew[i]])) last.oldCells.push(i);
  return stretches;
}
