import { KilnError } from '../errors';
import { planNotebookDiff, type NotebookDiffPlan } from './diff';
import { sameOutputs } from './outputs';
import type {
  MergeCellPart,
  MergeCellText,
  MergedCellItem,
  MergeResolution,
  NotebookKeyConflict,
  NotebookMerge,
  NotebookMergeItem,
  NotebookMergeOptions,
} from './merge-types';
import type { CellDiff, CellLike, NotebookLike } from './types';
import { isRecord, keyChanges, sameJson, textOf } from './values';

/*
 * The three-way notebook merge (git's base, ours and theirs): each side diffed against the base with the two-way
 * engine (cells matched by id, else by source), so "what changed" is the review's own answer. A cell changed on
 * one side (or alike on both) merges by itself; both sides changing the same part differently is a conflict on
 * that cell; cells both sides added at the same place are one conflict unless they are the same cells; notebook
 * metadata merges key by key. Pure: main passes exact-json's hooks so numbers keep their written form.
 */

type Side = 'ours' | 'theirs';

const TRANSIENT_CELL_METADATA = new Set(['trusted']);
const TRANSIENT_NOTEBOOK_METADATA = new Set(['orig_nbformat', 'orig_nbformat_minor', 'signature']);
/** Cell keys merged as parts of their own; the id follows the cell taken. */
const OWN_CELL_KEYS = new Set(['id', 'cell_type', 'source', 'outputs', 'execution_count', 'metadata']);

/** How each key of an object merges: taken from a side, or a conflict. */
type KeyPlan = Map<string, Side | 'conflict'>;

interface Planned {
  view: NotebookMerge;
  /** The merged notebook under complete resolutions (ids unchecked: main fixes them for the file's nbformat). */
  build(resolutions: ReadonlyMap<string, MergeResolution>): NotebookLike;
}

function has(object: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(object, key) && object[key] !== undefined;
}

function idOf(cell: CellLike): string | null {
  return typeof cell.id === 'string' ? cell.id : null;
}

function cellTypeOf(cell: CellLike): string {
  return typeof cell.cell_type === 'string' ? cell.cell_type : 'unknown';
}

function cellText(cell: CellLike, index: number): MergeCellText {
  return { index, id: idOf(cell), cellType: cellTypeOf(cell), source: textOf(cell.source) };
}

function planNotebook(
  base: NotebookLike,
  ours: NotebookLike,
  theirs: NotebookLike,
  options: NotebookMergeOptions,
): Planned {
  const exact = options.exactNumberText;
  const diffOptions = { exactNumberText: exact, similarityThreshold: options.similarityThreshold };
  const plans: Record<Side, NotebookDiffPlan> = {
    ours: planNotebookDiff(base, ours, diffOptions),
    theirs: planNotebookDiff(base, theirs, diffOptions),
  };
  const sides: Record<Side, NotebookLike> = { ours, theirs };

  /** A copy of `from`'s key into `to` (as built), keeping the number's written form. */
  const copyKey = (from: Record<string, unknown>, to: Record<string, unknown>, key: string) => {
    const value = from[key];
    to[key] = value;
    if (typeof value !== 'number') return;
    const text = exact?.(from, key);
    if (text !== undefined) options.keepExactNumber?.(to, key, value, text);
  };

  /** Three-way per key: a side that changed a key wins; both changing it alike is one change; else a conflict. */
  const planKeys = (b: unknown, o: unknown, t: unknown, skip: ReadonlySet<string>): KeyPlan => {
    const ob = keyChanges(b, o, exact, skip);
    const tb = keyChanges(b, t, exact, skip);
    const changedT = new Set(tb.map((change) => change.key));
    const plan: KeyPlan = new Map();
    const x = isRecord(o) ? o : {};
    const y = isRecord(t) ? t : {};
    for (const { key } of ob) {
      if (!changedT.has(key)) plan.set(key, 'ours');
      else if (has(x, key) === has(y, key) && (!has(x, key) || sameJson(x[key], y[key], exact, x, y, key)))
        plan.set(key, 'ours');
      else plan.set(key, 'conflict');
    }
    for (const key of changedT) if (!plan.has(key)) plan.set(key, 'theirs');
    return plan;
  };

  /** The object merged from a plan: ours' keys, with theirs' changes and the chosen side of each conflict. */
  const composeKeys = (
    o: unknown,
    t: unknown,
    plan: KeyPlan,
    choose: Side,
    into: Record<string, unknown> = {},
  ): Record<string, unknown> => {
    const x = isRecord(o) ? o : {};
    const y = isRecord(t) ? t : {};
    for (const key of Object.keys(x)) if (!plan.has(key) || plan.get(key) !== 'theirs') copyKey(x, into, key);
    for (const [key, how] of plan) {
      const side = how === 'conflict' ? choose : how;
      const from = side === 'ours' ? x : y;
      if (has(from, key)) copyKey(from, into, key);
      else delete into[key];
    }
    return into;
  };

  const changeOf = (side: Side, baseIndex: number): CellDiff | undefined => plans[side].byOldIndex[baseIndex];
  const changedParts = (change: CellDiff | undefined): Set<MergeCellPart> => {
    const parts = new Set<MergeCellPart>();
    for (const kind of change?.kinds ?? []) {
      if (kind === 'source' || kind === 'metadata' || kind === 'cellType' || kind === 'other') parts.add(kind);
      else if (kind === 'outputs' || kind === 'executionCount') parts.add('outputs');
    }
    return parts;
  };

  const items: NotebookMergeItem[] = [];
  /** Per item, the cells it gives under the resolutions. */
  const builders: ((resolutions: ReadonlyMap<string, MergeResolution>) => CellLike[])[] = [];
  const push = (item: NotebookMergeItem, cells: (resolutions: ReadonlyMap<string, MergeResolution>) => CellLike[]) => {
    items.push(item);
    builders.push(cells);
  };
  const sideCell = (side: Side, index: number) => sides[side].cells[index];
  const cellItem = (
    origin: MergedCellItem['origin'],
    cell: CellLike,
    b: number | null,
    o: number | null,
    t: number | null,
  ) =>
    push(
      { kind: 'cell', origin, cellType: cellTypeOf(cell), source: textOf(cell.source), base: b, ours: o, theirs: t },
      () => [cell],
    );

  /** A base cell as the merge has it: gone, one side's, merged, or a conflict. */
  const placeBaseCell = (i: number) => {
    const o = plans.ours.matching.oldToNew[i];
    const t = plans.theirs.matching.oldToNew[i];
    const partsO = changedParts(changeOf('ours', i));
    const partsT = changedParts(changeOf('theirs', i));
    const baseCell = base.cells[i];
    const conflictId = `cell:o${i}`;
    if (o < 0 && t < 0) return;
    if (o < 0 || t < 0) {
      const kept: Side = o < 0 ? 'theirs' : 'ours';
      const index = o < 0 ? t : o;
      if ((kept === 'ours' ? partsO : partsT).size === 0) return; // deleted on one side, untouched on the other
      const cell = sideCell(kept, index);
      push(
        {
          kind: 'conflict',
          conflictId,
          reason: 'delete-modified',
          parts: [],
          metadataKeys: [],
          base: cellText(baseCell, i),
          ours: kept === 'ours' ? [cellText(cell, index)] : [],
          theirs: kept === 'theirs' ? [cellText(cell, index)] : [],
        },
        (resolutions) => (resolutions.get(conflictId) === (kept === 'ours' ? 'theirs' : 'ours') ? [] : [cell]),
      );
      return;
    }
    const oursCell = sideCell('ours', o);
    const theirsCell = sideCell('theirs', t);
    if (partsT.size === 0) return cellItem(partsO.size ? 'ours' : 'unchanged', oursCell, i, o, t);
    if (partsO.size === 0) return cellItem('theirs', theirsCell, i, o, t);

    // Both changed the cell: part by part.
    const conflicts: MergeCellPart[] = [];
    const from = new Map<MergeCellPart, Side | 'conflict'>();
    const whole = (part: MergeCellPart, same: () => boolean) => {
      if (!partsT.has(part)) from.set(part, 'ours');
      else if (!partsO.has(part)) from.set(part, 'theirs');
      else if (same()) from.set(part, 'ours');
      else {
        from.set(part, 'conflict');
        conflicts.push(part);
      }
    };
    whole('source', () => textOf(oursCell.source) === textOf(theirsCell.source));
    whole('cellType', () => oursCell.cell_type === theirsCell.cell_type);
    whole(
      'outputs',
      () =>
        sameOutputs(
          Array.isArray(oursCell.outputs) ? oursCell.outputs : [],
          Array.isArray(theirsCell.outputs) ? theirsCell.outputs : [],
          { ignoreExecutionCounts: false, exact },
        ) &&
        sameJson(
          oursCell.execution_count ?? null,
          theirsCell.execution_count ?? null,
          exact,
          oursCell,
          theirsCell,
          'execution_count',
        ),
    );
    const metadataPlan = planKeys(baseCell.metadata, oursCell.metadata, theirsCell.metadata, TRANSIENT_CELL_METADATA);
    const metadataKeys = [...metadataPlan].filter(([, how]) => how === 'conflict').map(([key]) => key);
    if (metadataKeys.length) conflicts.push('metadata');
    const fieldPlan = planKeys(baseCell, oursCell, theirsCell, OWN_CELL_KEYS);
    if ([...fieldPlan.values()].includes('conflict')) conflicts.push('other');

    const merged = (choose: Side): CellLike => {
      const pick = (part: MergeCellPart) => {
        const how = from.get(part);
        return (how === 'conflict' ? choose : how) === 'theirs' ? theirsCell : oursCell;
      };
      // Ours' cell (its id) with each part from the side it merges from.
      const cell = composeKeys(oursCell, theirsCell, fieldPlan, choose) as CellLike;
      if (has(oursCell, 'id')) copyKey(oursCell, cell, 'id');
      copyKey(pick('source'), cell, 'source');
      copyKey(pick('cellType'), cell, 'cell_type');
      cell.metadata = composeKeys(oursCell.metadata, theirsCell.metadata, metadataPlan, choose);
      const outputsFrom = pick('outputs');
      if (cell.cell_type === 'code') {
        cell.outputs = Array.isArray(outputsFrom.outputs) ? outputsFrom.outputs : [];
        if (has(outputsFrom, 'execution_count')) copyKey(outputsFrom, cell, 'execution_count');
        else cell.execution_count = null;
      } else {
        delete cell.outputs;
        delete cell.execution_count;
      }
      return cell;
    };
    if (conflicts.length === 0) {
      const cell = merged('ours');
      return push(
        {
          kind: 'cell',
          origin: 'merged',
          cellType: cellTypeOf(cell),
          source: textOf(cell.source),
          base: i,
          ours: o,
          theirs: t,
        },
        () => [cell],
      );
    }
    push(
      {
        kind: 'conflict',
        conflictId,
        reason: 'both-modified',
        parts: conflicts,
        metadataKeys,
        base: cellText(baseCell, i),
        ours: [cellText(oursCell, o)],
        theirs: [cellText(theirsCell, t)],
      },
      (resolutions) => {
        const resolution = resolutions.get(conflictId);
        if (resolution === 'both') return [merged('ours'), merged('theirs')];
        return [merged(resolution === 'theirs' ? 'theirs' : 'ours')];
      },
    );
  };

  // Where each side put its added and moved cells: after the base cell of its last anchor (-1: at the top).
  const slots: Record<Side, Map<number, number[]>> = { ours: new Map(), theirs: new Map() };
  const movedBy: Record<Side, Set<number>> = { ours: new Set(), theirs: new Set() };
  for (const side of ['ours', 'theirs'] as const) {
    const { newToOld, anchored } = plans[side].matching;
    let after = -1;
    for (let j = 0; j < newToOld.length; j++) {
      if (newToOld[j] >= 0 && anchored[j]) {
        after = newToOld[j];
        continue;
      }
      if (newToOld[j] >= 0) movedBy[side].add(newToOld[j]);
      const list = slots[side].get(after);
      if (list) list.push(j);
      else slots[side].set(after, [j]);
    }
  }
  const sameCell = (a: CellLike, b: CellLike) =>
    a.cell_type === b.cell_type &&
    textOf(a.source) === textOf(b.source) &&
    sameOutputs(Array.isArray(a.outputs) ? a.outputs : [], Array.isArray(b.outputs) ? b.outputs : [], {
      ignoreExecutionCounts: false,
      exact,
    }) &&
    keyChanges(a, b, exact, new Set(['id', 'source', 'outputs'])).length === 0;

  const placeSlot = (after: number) => {
    const mine = slots.ours.get(after) ?? [];
    const yours = slots.theirs.get(after) ?? [];
    const added = (side: Side, list: number[]) => list.filter((j) => plans[side].matching.newToOld[j] < 0);
    const oursAdded = added('ours', mine);
    const theirsAdded = added('theirs', yours);
    const same =
      oursAdded.length === theirsAdded.length &&
      oursAdded.every((j, k) => sameCell(sideCell('ours', j), sideCell('theirs', theirsAdded[k])));
    const conflicting = oursAdded.length > 0 && theirsAdded.length > 0 && !same;
    let groupPlaced = false;
    /** Both sides added different cells here: one conflict, where ours' first added cell stood. */
    const placeConflict = () => {
      if (groupPlaced) return;
      groupPlaced = true;
      const conflictId = after < 0 ? 'added:start' : `added:o${after}`;
      const oursCells = oursAdded.map((j) => sideCell('ours', j));
      const theirsCells = theirsAdded.map((j) => sideCell('theirs', j));
      push(
        {
          kind: 'conflict',
          conflictId,
          reason: 'both-added',
          parts: [],
          metadataKeys: [],
          base: null,
          ours: oursAdded.map((j) => cellText(sideCell('ours', j), j)),
          theirs: theirsAdded.map((j) => cellText(sideCell('theirs', j), j)),
        },
        (resolutions) => {
          const resolution = resolutions.get(conflictId);
          if (resolution === 'both') return [...oursCells, ...theirsCells];
          return resolution === 'theirs' ? theirsCells : oursCells;
        },
      );
    };
    // Ours' cells in ours' order (moves, and added cells, each where it stands unless they conflict); then theirs'
    // in theirs' order: moves ours did not make too, and added cells when ours added none here (or the same).
    for (const j of mine) {
      const i = plans.ours.matching.newToOld[j];
      if (i >= 0) placeBaseCell(i);
      else if (conflicting) placeConflict();
      else cellItem('ours', sideCell('ours', j), null, j, same ? theirsAdded[oursAdded.indexOf(j)] : null);
    }
    for (const j of yours) {
      const i = plans.theirs.matching.newToOld[j];
      if (i >= 0) {
        if (!movedBy.ours.has(i)) placeBaseCell(i);
      } else if (conflicting) placeConflict();
      else if (oursAdded.length === 0) cellItem('theirs', sideCell('theirs', j), null, null, j);
    }
  };

  placeSlot(-1);
  for (let i = 0; i < base.cells.length; i++) {
    if (!movedBy.ours.has(i) && !movedBy.theirs.has(i)) placeBaseCell(i);
    placeSlot(i);
  }

  // The notebook: metadata and top-level fields key by key; the format version is the newer side's.
  const baseMeta = isRecord(base.metadata) ? base.metadata : {};
  const metadataPlan = planKeys(baseMeta, ours.metadata, theirs.metadata, TRANSIENT_NOTEBOOK_METADATA);
  const fieldPlan = planKeys(base, ours, theirs, new Set(['cells', 'metadata', 'nbformat', 'nbformat_minor']));
  const notebookConflicts: NotebookKeyConflict[] = [];
  const describe = (scope: 'metadata' | 'field', plan: KeyPlan, b: unknown, o: unknown, t: unknown) => {
    for (const [key, how] of plan) {
      if (how !== 'conflict') continue;
      const conflict: NotebookKeyConflict = { conflictId: `${scope}:${key}`, scope, key };
      for (const [name, holder] of [
        ['base', b],
        ['ours', o],
        ['theirs', t],
      ] as const)
        if (isRecord(holder) && has(holder, key)) conflict[name] = holder[key];
      notebookConflicts.push(conflict);
    }
  };
  describe('metadata', metadataPlan, baseMeta, ours.metadata, theirs.metadata);
  describe('field', fieldPlan, base, ours, theirs);

  const conflictIds = [
    ...items.flatMap((item) => (item.kind === 'conflict' ? [item.conflictId] : [])),
    ...notebookConflicts.map((conflict) => conflict.conflictId),
  ];

  const build = (resolutions: ReadonlyMap<string, MergeResolution>): NotebookLike => {
    const chosen = (prefix: string) => (key: string) => resolutions.get(`${prefix}:${key}`) === 'theirs';
    const top = composeKeysChosen(ours, theirs, fieldPlan, chosen('field'));
    top.metadata = composeKeysChosen(ours.metadata, theirs.metadata, metadataPlan, chosen('metadata'));
    const newer = (key: 'nbformat' | 'nbformat_minor') => {
      const a = ours[key];
      const b = theirs[key];
      return typeof b === 'number' && (typeof a !== 'number' || b > a) ? theirs : ours;
    };
    copyKey(newer('nbformat'), top, 'nbformat');
    copyKey(newer('nbformat_minor'), top, 'nbformat_minor');
    top.cells = builders.flatMap((cells) => cells(resolutions));
    return top as NotebookLike;
  };
  /** composeKeys with a per-key choice of side for conflicts. */
  const composeKeysChosen = (o: unknown, t: unknown, plan: KeyPlan, theirsWins: (key: string) => boolean) => {
    const perKey: KeyPlan = new Map(
      [...plan].map(([key, how]) => [key, how === 'conflict' ? (theirsWins(key) ? 'theirs' : 'ours') : how]),
    );
    return composeKeys(o, t, perKey, 'ours');
  };

  return { view: { items, notebookConflicts, conflictIds }, build };
}

/** The three-way merge of three notebooks (parsed JSON), as the resolver shows it. */
export function mergeNotebooks(
  base: NotebookLike,
  ours: NotebookLike,
  theirs: NotebookLike,
  options: NotebookMergeOptions = {},
): NotebookMerge {
  return planNotebook(base, ours, theirs, options).view;
}

/**
 * The merged notebook under `resolutions` (conflict id → choice), one for each conflict of the merge. A cell
 * conflict takes ours', theirs' or both (ours' cell then theirs'; for a deletion against an edit, the edited
 * cell); a notebook key takes ours' or theirs'. Throws E_BAD_REQUEST for a missing, unknown or impossible
 * resolution. Cell ids are left as the sides have them: the caller makes them fit the result's nbformat.
 */
export function buildMergedNotebook(
  base: NotebookLike,
  ours: NotebookLike,
  theirs: NotebookLike,
  resolutions: Readonly<Record<string, MergeResolution>>,
  options: NotebookMergeOptions = {},
): NotebookLike {
  const planned = planNotebook(base, ours, theirs, options);
  const known = new Set(planned.view.conflictIds);
  const unknown = Object.keys(resolutions).filter((id) => !known.has(id));
  if (unknown.length)
    throw new KilnError(
      'E_BAD_REQUEST',
      `No conflict ${unknown.map((id) => `"${id}"`).join(', ')} in this merge: resolve against the current merge`,
    );
  const missing = planned.view.conflictIds.filter((id) => !Object.hasOwn(resolutions, id));
  if (missing.length)
    throw new KilnError('E_BAD_REQUEST', `Unresolved conflicts: ${missing.map((id) => `"${id}"`).join(', ')}`);
  const both = planned.view.notebookConflicts.filter((c) => resolutions[c.conflictId] === 'both');
  if (both.length)
    throw new KilnError(
      'E_BAD_REQUEST',
      `A notebook key takes one side's value, not both: ${both.map((c) => `"${c.conflictId}"`).join(', ')}`,
    );
  return planned.build(new Map(Object.entries(resolutions)));
}
