import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planNotebookDiff } from '../../shared/notebook-diff';
import { nbformatRewrites } from '../../test-support/nbformat-build';
import { exactNumberText } from './exact-json';
import { serializeNotebook, validateNotebook, type CellJson, type NotebookJson, type OutputJson } from './format';
import { applyNotebookChanges, mergeAccepted, parseNotebookPair } from './partial-apply';

/*
 * Random edit scripts over a random notebook (insert, delete, move, edit a source, change outputs, re-run): applying
 * every change gives the new notebook and applying none the base, byte for byte, both through the shortcut and
 * through the merge and the writer; any subset gives a notebook that validates. nbformat then reads, validates
 * and rewrites every notebook seen (bases, new ones, subsets): each must come back byte for byte, which holds the
 * generated fixtures and every result to what Jupyter writes.
 */

const LINES = ['x = 1', 'print(x)', 'import os', '# a note', 'y = x * 2', 'for i in range(3):', '    pass', 'ü ✓ 数'];
const PNGS = ['iVBORw0KGgoAAAANSUhEUg==', 'R0lGODlhAQABAIAAAP///w=='];

const source = fc.array(fc.constantFrom(...LINES), { maxLength: 4 }).map((lines) => lines.join('\n'));
const output: fc.Arbitrary<OutputJson> = fc.oneof(
  fc.array(fc.constantFrom('0\n', '1\n', 'done\n'), { minLength: 1, maxLength: 3 }).map((text) => ({
    output_type: 'stream',
    name: 'stdout',
    text,
  })),
  fc.tuple(fc.nat(20), fc.constantFrom('1', '2.0', "'x'")).map(([n, plain]) => ({
    output_type: 'execute_result',
    execution_count: n,
    data: { 'text/plain': [plain] },
    metadata: {},
  })),
  fc.constantFrom(...PNGS).map((png) => ({
    output_type: 'display_data',
    data: { 'image/png': png, 'text/plain': ['<Figure>'] },
    metadata: {},
  })),
);
const outputs = fc.array(output, { maxLength: 3 });

interface CellDraft {
  markdown: boolean;
  source: string;
  outputs: OutputJson[];
  count: number | null;
}
const cellDraft: fc.Arbitrary<CellDraft> = fc.record({
  markdown: fc.boolean(),
  source,
  outputs,
  count: fc.option(fc.nat(30), { nil: null }),
});

type Edit =
  | { op: 'insert'; at: number; cell: CellDraft }
  | { op: 'delete'; at: number }
  | { op: 'move'; at: number; to: number }
  | { op: 'source'; at: number; source: string }
  | { op: 'outputs'; at: number; outputs: OutputJson[]; count: number }
  | { op: 'tag'; at: number; tag: string }
  | { op: 'title'; title: string };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), cell: cellDraft }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('source' as const), at: fc.nat(), source }),
  fc.record({ op: fc.constant('outputs' as const), at: fc.nat(), outputs, count: fc.nat(30) }),
  fc.record({ op: fc.constant('tag' as const), at: fc.nat(), tag: fc.constantFrom('slow', 'skip') }),
  fc.record({ op: fc.constant('title' as const), title: fc.constantFrom('Run', 'Études') }),
);

function makeCell(draft: CellDraft, id: string | null): CellJson {
  const cell = (
    draft.markdown
      ? { cell_type: 'markdown', metadata: {}, source: draft.source }
      : { cell_type: 'code', metadata: {}, source: draft.source, outputs: draft.outputs, execution_count: draft.count }
  ) as CellJson;
  if (id !== null) cell.id = id;
  return cell;
}

function notebook(cells: CellJson[], minor: number, title?: string): NotebookJson {
  const metadata: NotebookJson['metadata'] = { kernelspec: { name: 'python3', display_name: 'Python 3' } };
  if (title !== undefined) metadata.title = title;
  return { cells, metadata, nbformat: 4, nbformat_minor: minor };
}

/** The new notebook: the edits applied in turn to a copy of the base's cells (new cells get fresh ids in 4.5). */
function edited(base: CellJson[], edits: Edit[], withIds: boolean): { cells: CellJson[]; title?: string } {
  const cells = base.map((cell) => structuredClone(cell));
  let title: string | undefined;
  let fresh = 0;
  for (const e of edits) {
    if (e.op === 'title') {
      title = e.title;
      continue;
    }
    if (e.op === 'insert') {
      cells.splice(e.at % (cells.length + 1), 0, makeCell(e.cell, withIds ? `new${fresh++}` : null));
      continue;
    }
    if (cells.length === 0) continue;
    const at = e.at % cells.length;
    if (e.op === 'delete') cells.splice(at, 1);
    else if (e.op === 'move') cells.splice(e.to % cells.length, 0, ...cells.splice(at, 1));
    else if (e.op === 'source') cells[at] = { ...cells[at], source: e.source };
    else if (e.op === 'tag') cells[at] = { ...cells[at], metadata: { tags: [e.tag] } };
    else if (cells[at].cell_type === 'code') cells[at] = { ...cells[at], outputs: e.outputs, execution_count: e.count };
  }
  return { cells, title };
}

const scenario = fc.record({
  withIds: fc.boolean(),
  drafts: fc.array(cellDraft, { maxLength: 8 }),
  edits: fc.array(edit, { minLength: 1, maxLength: 6 }),
  picks: fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
});

/** Every notebook the property saw, for nbformat to judge at the end (one Python run). */
const seen = new Set<string>();

describe('partial apply, property', () => {
  it('all changes give the new notebook, none the base, any subset a valid notebook', () => {
    fc.assert(
      fc.property(scenario, ({ withIds, drafts, edits, picks }) => {
        const minor = withIds ? 5 : 4;
        const baseCells = drafts.map((draft, k) => makeCell(draft, withIds ? `cell${k}` : null));
        const baseText = serializeNotebook(notebook(baseCells, minor));
        const next = edited(baseCells, edits, withIds);
        const nextText = serializeNotebook(notebook(next.cells, minor, next.title));

        const pair = parseNotebookPair(baseText, nextText);
        const plan = planNotebookDiff(pair.base, pair.next, { exactNumberText });
        const all = plan.diff.changeIds;
        expect(serializeNotebook(mergeAccepted(pair, plan, new Set(all)))).toBe(nextText);
        expect(serializeNotebook(mergeAccepted(pair, plan, new Set()))).toBe(baseText);
        expect(applyNotebookChanges(baseText, nextText, all)).toBe(nextText);
        expect(applyNotebookChanges(baseText, nextText, [])).toBe(baseText);

        if (withIds) {
          // A cell on both sides (same id) is never reported as a deletion plus an addition.
          const kept = new Set(
            pair.base.cells.map((c) => c.id).filter((id) => pair.next.cells.some((c) => c.id === id)),
          );
          for (const cell of plan.diff.cells)
            if (cell.status === 'added' || cell.status === 'deleted')
              expect(kept.has((cell.newCellId ?? cell.oldCellId)!)).toBe(false);
        }

        const subset = all.filter((_, k) => picks[k % picks.length] !== picks[(k * 7 + 3) % picks.length]);
        const partial = applyNotebookChanges(baseText, nextText, subset);
        expect(validateNotebook(JSON.parse(partial), minor)).toBeNull();
        seen.add(baseText).add(nextText).add(partial);
      }),
      { numRuns: 200 },
    );
  });

  it('nbformat reads, validates and writes every notebook seen byte for byte', () => {
    const texts = [...seen];
    expect(texts.length).toBeGreaterThan(200);
    const rewritten = nbformatRewrites(texts);
    const differing = texts.filter((text, k) => rewritten[k] !== text);
    expect(differing.slice(0, 1)).toEqual([]);
    // One Python run over some 600 notebooks: seconds alone, more on a loaded machine.
  }, 120_000);
});
