import { diffLines } from 'diff';
import { stretchesOf, type Stretch } from './layout';
import { matchCells, sourcesOf, usableIds, type CellMatching } from './match';
import { diffOutputs } from './outputs';
import type {
  CellChangeKind,
  CellDiff,
  CellLike,
  KeyChange,
  LineHunk,
  NotebookDiff,
  NotebookDiffOptions,
  NotebookLevelDiff,
  NotebookLike,
} from './types';
import { isRecord, keyChanges, sameJson } from './values';

/** Keys nbformat drops on write (strip_transient): never a change. */
const TRANSIENT_NOTEBOOK_METADATA = new Set(['orig_nbformat', 'orig_nbformat_minor', 'signature']);
const TRANSIENT_CELL_METADATA = new Set(['trusted']);
/** Cell keys compared on their own; `id` is what matched the cells (or one side lacks it), never a change. */
const OWN_CELL_KEYS = new Set(['id', 'cell_type', 'source', 'outputs', 'execution_count', 'metadata']);
/** Past this many line edits a source diff is one hunk over both texts (the view diffs the texts itself anyway). */
const MAX_LINE_EDITS = 5000;
const DEFAULT_THRESHOLD = 0.6;

/** The matching, the stretches and the diff of two notebooks: what partial apply needs besides the diff. */
export interface NotebookDiffPlan {
  diff: NotebookDiff;
  matching: CellMatching;
  stretches: Stretch[];
  /** The change of each matched or added new cell, and of each matched or deleted old cell. */
  byNewIndex: (CellDiff | undefined)[];
  byOldIndex: (CellDiff | undefined)[];
}

/** Lines of text, counting a last line without a newline. */
export function lineHunks(oldText: string, newText: string): LineHunk[] {
  if (oldText === newText) return [];
  // A last line without its newline is the same line (as an editor shows it); a change of only that newline is
  // then one hunk on the last line.
  const parts = diffLines(oldText, newText, { maxEditLength: MAX_LINE_EDITS, ignoreNewlineAtEof: true });
  const lines = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  if (!parts) return [{ oldStart: 0, oldLines: lines(oldText), newStart: 0, newLines: lines(newText) }];
  const hunks: LineHunk[] = [];
  let oldLine = 0;
  let newLine = 0;
  let open: LineHunk | null = null;
  for (const part of parts) {
    if (!part.added && !part.removed) {
      open = null;
      oldLine += part.count;
      newLine += part.count;
      continue;
    }
    if (!open) hunks.push((open = { oldStart: oldLine, oldLines: 0, newStart: newLine, newLines: 0 }));
    if (part.removed) {
      open.oldLines += part.count;
      oldLine += part.count;
    } else {
      open.newLines += part.count;
      newLine += part.count;
    }
  }
  if (hunks.length === 0) {
    const last = Math.max(lines(oldText), lines(newText)) - 1;
    hunks.push({ oldStart: last, oldLines: 1, newStart: last, newLines: 1 });
  }
  return hunks;
}

function cellTypeOf(cell: CellLike): string {
  return typeof cell.cell_type === 'string' ? cell.cell_type : 'unknown';
}

function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function planNotebookDiff(
  base: NotebookLike,
  next: NotebookLike,
  options: NotebookDiffOptions = {},
): NotebookDiffPlan {
  const exact = options.exactNumberText;
  const baseTexts = sourcesOf(base.cells);
  const nextTexts = sourcesOf(next.cells);
  const matching = matchCells(
    base.cells,
    next.cells,
    baseTexts,
    nextTexts,
    options.similarityThreshold ?? DEFAULT_THRESHOLD,
  );
  const baseIds = usableIds(base.cells);
  const nextIds = usableIds(next.cells);
  const byNewIndex: (CellDiff | undefined)[] = new Array(next.cells.length);
  const byOldIndex: (CellDiff | undefined)[] = new Array(base.cells.length);

  const compared = (i: number, j: number): CellDiff => {
    const a = base.cells[i];
    const b = next.cells[j];
    const kinds: CellChangeKind[] = [];
    const id = baseIds[i] !== null && baseIds[i] === nextIds[j] ? baseIds[i] : null;
    const cell: CellDiff = {
      changeId: id !== null ? `cell:${id}` : `cell:o${i}-n${j}`,
      status: 'unchanged',
      kinds,
      oldIndex: i,
      newIndex: j,
      oldCellId: baseIds[i],
      newCellId: nextIds[j],
      cellType: cellTypeOf(b),
    };
    if (!matching.anchored[j]) kinds.push('moved');
    if (baseTexts[i] !== nextTexts[j]) {
      kinds.push('source');
      cell.source = { old: baseTexts[i], new: nextTexts[j], hunks: lineHunks(baseTexts[i], nextTexts[j]) };
    }
    if (!options.ignoreOutputs && ('outputs' in a || 'outputs' in b)) {
      const outputs = diffOutputs(listOf(a.outputs), listOf(b.outputs), {
        ignoreExecutionCounts: options.ignoreExecutionCounts ?? false,
        exact,
      });
      if (outputs) {
        kinds.push('outputs');
        cell.outputs = outputs;
      }
    }
    if (
      !options.ignoreExecutionCounts &&
      !sameJson(a.execution_count ?? null, b.execution_count ?? null, exact, a, b, 'execution_count')
    ) {
      kinds.push('executionCount');
      cell.executionCount = { old: a.execution_count ?? null, new: b.execution_count ?? null };
    }
    if (!options.ignoreMetadata) {
      const metadata = keyChanges(a.metadata, b.metadata, exact, TRANSIENT_CELL_METADATA);
      if (metadata.length) {
        kinds.push('metadata');
        cell.metadata = metadata;
      }
    }
    const fields = keyChanges(a, b, exact, OWN_CELL_KEYS);
    if (a.cell_type !== b.cell_type) {
      kinds.push('cellType');
      fields.unshift({ key: 'cell_type', status: 'changed', old: a.cell_type, new: b.cell_type });
    }
    if (fields.some((f) => f.key !== 'cell_type')) kinds.push('other');
    if (fields.length) cell.fields = fields;
    if (kinds.length) cell.status = 'modified';
    return cell;
  };

  const added = (j: number): CellDiff => ({
    changeId: nextIds[j] !== null ? `added:${nextIds[j]}` : `added:n${j}`,
    status: 'added',
    kinds: ['added'],
    oldIndex: null,
    newIndex: j,
    oldCellId: null,
    newCellId: nextIds[j],
    cellType: cellTypeOf(next.cells[j]),
    source: { old: '', new: nextTexts[j], hunks: lineHunks('', nextTexts[j]) },
  });
  const deleted = (i: number): CellDiff => ({
    changeId: baseIds[i] !== null ? `deleted:${baseIds[i]}` : `deleted:o${i}`,
    status: 'deleted',
    kinds: ['deleted'],
    oldIndex: i,
    newIndex: null,
    oldCellId: baseIds[i],
    newCellId: null,
    cellType: cellTypeOf(base.cells[i]),
    source: { old: baseTexts[i], new: '', hunks: lineHunks(baseTexts[i], '') },
  });

  const stretches = stretchesOf(matching);
  const cells: CellDiff[] = [];
  const place = (j: number) => {
    const i = matching.newToOld[j];
    const cell = i >= 0 ? compared(i, j) : added(j);
    byNewIndex[j] = cell;
    if (i >= 0) byOldIndex[i] = cell;
    cells.push(cell);
  };
  for (const stretch of stretches) {
    for (const i of stretch.oldCells) {
      if (matching.oldToNew[i] >= 0) continue;
      const cell = deleted(i);
      byOldIndex[i] = cell;
      cells.push(cell);
    }
    for (const j of stretch.newCells) place(j);
    if (stretch.anchor) place(stretch.anchor.newIndex);
  }

  const notebook = notebookLevelDiff(base, next, options);
  const changeIds = cells.filter((cell) => cell.status !== 'unchanged').map((cell) => cell.changeId);
  if (notebook) changeIds.push(notebook.changeId);
  return { diff: { cells, notebook, changeIds }, matching, stretches, byNewIndex, byOldIndex };
}

function notebookLevelDiff(
  base: NotebookLike,
  next: NotebookLike,
  options: NotebookDiffOptions,
): NotebookLevelDiff | null {
  const exact = options.exactNumberText;
  const metadata: KeyChange[] = options.ignoreMetadata
    ? []
    : keyChanges(
        isRecord(base.metadata) ? base.metadata : {},
        isRecord(next.metadata) ? next.metadata : {},
        exact,
        TRANSIENT_NOTEBOOK_METADATA,
      );
  const fields = keyChanges(base, next, exact, new Set(['cells', 'metadata']));
  return metadata.length || fields.length ? { changeId: 'notebook', metadata, fields } : null;
}

/**
 * The cell-level diff of two notebooks (parsed JSON; main's NotebookJson fits). Pure: no I/O, no DOM; main and
 * the renderer can both call it. `options.exactNumberText` (main) tells 2.0 from 2 as the files do.
 */
export function diffNotebooks(base: NotebookLike, next: NotebookLike, options?: NotebookDiffOptions): NotebookDiff {
  return planNotebookDiff(base, next, options).diff;
}
