import { KilnError } from '../../shared/errors';
import {
  planNotebookDiff,
  type NotebookDiff,
  type NotebookDiffOptions,
  type NotebookDiffPlan,
} from '../../shared/notebook-diff';
import { carryExactNumbers, exactNumberText, parsePythonJson } from './exact-json';
import { newCellId, serializeNotebook, validateNotebook, type CellJson, type NotebookJson } from './format';

/*
 * Partial apply of a notebook diff: from the base notebook's bytes, the new one's and the change ids the operator
 * accepted, the bytes of the notebook that results, as Jupyter writes them. Cells are taken whole from one side
 * (an accepted change: the new cell at its new place; anything else: the base cell at its place), so an untouched
 * cell keeps its outputs and its number literals (exact-json carries them), and accepting nothing gives the base
 * file as it was, accepting everything the new file as it is.
 */

/** What the diff compares, without exactNumberText: main always tells 2.0 from 2 as the files do. */
export type NotebookCompareOptions = Omit<NotebookDiffOptions, 'exactNumberText'>;

export interface ParsedPair {
  base: NotebookJson;
  next: NotebookJson;
}

/** One notebook parsed as Jupyter reads it; E_INVALID_NOTEBOOK names the side at fault. */
export function parseNotebookSide(text: string, side: 'base' | 'new'): NotebookJson {
  // An empty file is a notebook with no cells yet (a file just created), as the editor opens it.
  if (text.trim() === '') return { cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 };
  let data: unknown;
  try {
    data = parsePythonJson(text);
  } catch (err) {
    const reason = `the ${side} notebook is not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
    throw new KilnError('E_INVALID_NOTEBOOK', `Cannot compare: ${reason}`, { reason });
  }
  const nb = data as Partial<NotebookJson> | null;
  if (!nb || typeof nb !== 'object' || Array.isArray(nb) || !Array.isArray(nb.cells)) {
    const reason = `the ${side} notebook has no "cells" list`;
    throw new KilnError('E_INVALID_NOTEBOOK', `Cannot compare: ${reason}`, { reason });
  }
  if (nb.cells.some((cell) => typeof cell !== 'object' || cell === null || Array.isArray(cell))) {
    const reason = `a cell of the ${side} notebook is not an object`;
    throw new KilnError('E_INVALID_NOTEBOOK', `Cannot compare: ${reason}`, { reason });
  }
  return nb as NotebookJson;
}

/** Both notebooks parsed as Jupyter reads them (numbers as written), ids as the files have them (none added). */
export function parseNotebookPair(baseText: string, nextText: string): ParsedPair {
  return { base: parseNotebookSide(baseText, 'base'), next: parseNotebookSide(nextText, 'new') };
}

function planOf(pair: ParsedPair, options: NotebookCompareOptions): NotebookDiffPlan {
  return planNotebookDiff(pair.base, pair.next, { ...options, exactNumberText });
}

/** The diff of two notebook files (what main sends the view), and the parsed notebooks it indexes into. */
export function diffNotebookTexts(
  baseText: string,
  nextText: string,
  options: NotebookCompareOptions = {},
): ParsedPair & { diff: NotebookDiff } {
  return diffParsedPair(parseNotebookPair(baseText, nextText), options);
}

/** diffNotebookTexts of notebooks already parsed. */
export function diffParsedPair(
  pair: ParsedPair,
  options: NotebookCompareOptions = {},
): ParsedPair & { diff: NotebookDiff } {
  return { ...pair, diff: planOf(pair, options).diff };
}

/**
 * Ids nbformat requires from 4.5 (a base cell from a 4.4 file takes its new twin's id, else a fresh one) and
 * refuses before it (ids from a 4.5 new side are dropped when the result stays a 4.4 file without them).
 */
function fixIds(result: NotebookJson, base: NotebookJson, plan: NotebookDiffPlan, origin: Map<CellJson, number>) {
  if (result.nbformat !== 4) return;
  const minor = typeof result.nbformat_minor === 'number' ? result.nbformat_minor : 0;
  if (minor < 5) {
    if (base.cells.some((cell) => 'id' in cell)) return;
    result.cells = result.cells.map((cell) => {
      if (!('id' in cell)) return cell;
      const { id: _id, ...rest } = cell;
      return carryExactNumbers(cell, rest) as CellJson;
    });
    return;
  }
  const taken = new Set<string>();
  const keep = result.cells.map((cell) => {
    if (typeof cell.id !== 'string' || taken.has(cell.id)) return false;
    taken.add(cell.id);
    return true;
  });
  result.cells = result.cells.map((cell, k) => {
    if (keep[k]) return cell;
    const oldIndex = origin.get(cell);
    const twin = oldIndex === undefined ? undefined : plan.byOldIndex[oldIndex]?.newCellId;
    const id = twin && !taken.has(twin) ? (taken.add(twin), twin) : newCellId(taken);
    return carryExactNumbers(cell, { ...cell, id });
  });
}

/** The accepted set checked against the diff: an id it does not have means the review is of other notebooks. */
function checkAccepted(diff: NotebookDiff, accepted: ReadonlySet<string>): void {
  const known = new Set(diff.changeIds);
  const stale = [...accepted].filter((id) => !known.has(id));
  if (stale.length)
    throw new KilnError(
      'E_BAD_REQUEST',
      `No change ${stale.map((id) => `"${id}"`).join(', ')} between these notebooks: review against the current notebook`,
    );
}

/** The merged notebook (JSON) for an accepted set; the bytes are serializeNotebook's. */
export function mergeAccepted(pair: ParsedPair, plan: NotebookDiffPlan, accepted: ReadonlySet<string>): NotebookJson {
  const { base, next } = pair;
  const isAccepted = (changeId: string | undefined) => changeId !== undefined && accepted.has(changeId);
  const cells: CellJson[] = [];
  // Base cells in the result, by their old index (a 4.4 cell may need its new twin's id).
  const origin = new Map<CellJson, number>();
  const fromBase = (i: number) => {
    cells.push(base.cells[i]);
    origin.set(base.cells[i], i);
  };
  for (const stretch of plan.stretches) {
    // Deleted or moved away: stays at its old place unless the change is accepted.
    for (const i of stretch.oldCells) if (!isAccepted(plan.byOldIndex[i]?.changeId)) fromBase(i);
    // Added or moved here: comes in only when accepted.
    for (const j of stretch.newCells) if (isAccepted(plan.byNewIndex[j]?.changeId)) cells.push(next.cells[j]);
    if (stretch.anchor) {
      const change = plan.byNewIndex[stretch.anchor.newIndex];
      if (change?.status === 'modified' && isAccepted(change.changeId)) cells.push(next.cells[stretch.anchor.newIndex]);
      else fromBase(stretch.anchor.oldIndex);
    }
  }
  const top = accepted.has('notebook') ? next : base;
  const result = carryExactNumbers(top, { ...top, cells }) as NotebookJson;
  fixIds(result, base, plan, origin);
  return result;
}

/**
 * The bytes of the base notebook with the accepted changes (ids from the diff's `changeIds`) applied. Throws
 * E_BAD_REQUEST for an id the two notebooks' diff does not have, E_INVALID_NOTEBOOK when either side is not a
 * notebook or the result would not validate. With every change accepted (and nothing ignored) the result is the
 * new file's bytes, with none the base file's, as they are; otherwise Jupyter's formatting of the merged notebook.
 * `nextCellsInstead`: new cells (by index) taken in place of the new notebook's own when their change is accepted.
 */
export function applyNotebookChanges(
  baseText: string,
  nextText: string,
  accepted: Iterable<string>,
  options: NotebookCompareOptions = {},
  nextCellsInstead?: ReadonlyMap<number, CellJson>,
): string {
  const pair = parseNotebookPair(baseText, nextText);
  const plan = planOf(pair, options);
  const chosen = new Set(accepted);
  checkAccepted(plan.diff, chosen);
  if (chosen.size === 0) return baseText;
  const ignoring = options.ignoreOutputs || options.ignoreMetadata || options.ignoreExecutionCounts;
  const instead = nextCellsInstead?.size ? nextCellsInstead : null;
  if (!ignoring && !instead && chosen.size === plan.diff.changeIds.length) return nextText;
  // An accepted new cell taken as given instead (a three-way undo's cell): the diff's places stay the same.
  const next = instead ? { ...pair.next, cells: pair.next.cells.map((cell, j) => instead.get(j) ?? cell) } : pair.next;
  const result = mergeAccepted({ base: pair.base, next: carryExactNumbers(pair.next, next) }, plan, chosen);
  const minor = typeof result.nbformat_minor === 'number' ? result.nbformat_minor : 0;
  const reason = validateNotebook(result, minor);
  if (reason)
    throw new KilnError('E_INVALID_NOTEBOOK', `The accepted changes would make an invalid notebook: ${reason}`, {
      reason,
    });
  return serializeNotebook(result);
}

/**
 * The bytes of `currentText` with one cell of an older version put back ("Restore this cell"): the partial apply of
 * the diff from now to that version with only that cell's change taken, so the cell comes back whole (source,
 * outputs, metadata) at its old place, and every other cell stays as it is now. `versionIndex` is the cell's
 * index in the version. E_BAD_REQUEST when the version has no such cell or it is in the notebook as it was.
 */
export function restoreCellText(currentText: string, versionText: string, versionIndex: number): string {
  const pair = parseNotebookPair(currentText, versionText);
  if (!Number.isInteger(versionIndex) || versionIndex < 0 || versionIndex >= pair.next.cells.length)
    throw new KilnError('E_BAD_REQUEST', `That version has no cell ${versionIndex + 1}`);
  const change = planOf(pair, {}).byNewIndex[versionIndex];
  if (!change || change.status === 'unchanged')
    throw new KilnError(
      'E_BAD_REQUEST',
      `Cell ${versionIndex + 1} of that version is in the notebook as it was: there is nothing to restore`,
    );
  return applyNotebookChanges(currentText, versionText, [change.changeId]);
}
