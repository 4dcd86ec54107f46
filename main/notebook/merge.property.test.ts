import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nbformatRewrites } from '../../test-support/nbformat-build';
import { serializeNotebook, validateNotebook, type CellJson, type NotebookJson, type OutputJson } from './format';
import { mergeNotebookTexts, resolveNotebookMerge } from './merge';

/*
 * Random edit scripts (insert, delete, move, edit a source, re-run, tag, retitle) over a random notebook, applied
 * on one side, on both alike, or differently on each: one side's edits alone merge to that side byte for byte and
 * so do the same edits on both sides, without a conflict; two different scripts, resolved all ours, all theirs or
 * all both, give a notebook that validates. nbformat then reads and rewrites every result byte for byte.
 */

const LINES = ['x = 1', 'print(x)', 'import os', '# a note', 'y = x * 2', 'ü ✓ 数'];
const source = fc.array(fc.constantFrom(...LINES), { maxLength: 3 }).map((lines) => lines.join('\n'));
const output: fc.Arbitrary<OutputJson> = fc.oneof(
  fc.array(fc.constantFrom('0\n', '1\n', 'done\n'), { minLength: 1, maxLength: 2 }).map((text) => ({
    output_type: 'stream',
    name: 'stdout',
    text,
  })),
  fc.tuple(fc.nat(20), fc.constantFrom('1', "'x'")).map(([n, plain]) => ({
    output_type: 'execute_result',
    execution_count: n,
    data: { 'text/plain': [plain] },
    metadata: {},
  })),
);
const outputs = fc.array(output, { maxLength: 2 });

interface CellDraft {
  markdown: boolean;
  source: string;
  outputs: OutputJson[];
}
const cellDraft: fc.Arbitrary<CellDraft> = fc.record({ markdown: fc.boolean(), source, outputs });

type Edit =
  | { op: 'insert'; at: number; cell: CellDraft }
  | { op: 'delete'; at: number }
  | { op: 'move'; at: number; to: number }
  | { op: 'source'; at: number; source: string }
  | { op: 'outputs'; at: number; outputs: OutputJson[] }
  | { op: 'tag'; at: number; tag: string }
  | { op: 'title'; title: string };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), cell: cellDraft }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('source' as const), at: fc.nat(), source }),
  fc.record({ op: fc.constant('outputs' as const), at: fc.nat(), outputs }),
  fc.record({ op: fc.constant('tag' as const), at: fc.nat(), tag: fc.constantFrom('slow', 'skip') }),
  fc.record({ op: fc.constant('title' as const), title: fc.constantFrom('Run', 'Études') }),
);

function makeCell(draft: CellDraft, id: string | null): CellJson {
  const cell = (
    draft.markdown
      ? { cell_type: 'markdown', metadata: {}, source: draft.source }
      : { cell_type: 'code', metadata: {}, source: draft.source, outputs: draft.outputs, execution_count: null }
  ) as CellJson;
  if (id !== null) cell.id = id;
  return cell;
}

/** The notebook after the edits, as its file (new cells get ids unique to this side in 4.5). */
function editedText(base: CellJson[], edits: Edit[], minor: number, side: string): string {
  const cells = base.map((cell) => structuredClone(cell));
  let title: string | undefined;
  let fresh = 0;
  for (const e of edits) {
    if (e.op === 'title') {
      title = e.title;
      continue;
    }
    if (e.op === 'insert') {
      cells.splice(e.at % (cells.length + 1), 0, makeCell(e.cell, minor >= 5 ? `${side}${fresh++}` : null));
      continue;
    }
    if (cells.length === 0) continue;
    const at = e.at % cells.length;
    if (e.op === 'delete') cells.splice(at, 1);
    else if (e.op === 'move') cells.splice(e.to % cells.length, 0, ...cells.splice(at, 1));
    else if (e.op === 'source') cells[at] = { ...cells[at], source: e.source };
    else if (e.op === 'tag') cells[at] = { ...cells[at], metadata: { tags: [e.tag] } };
    else if (cells[at].cell_type === 'code') cells[at] = { ...cells[at], outputs: e.outputs };
  }
  return text(cells, minor, title);
}

function text(cells: CellJson[], minor: number, title?: string): string {
  const metadata: NotebookJson['metadata'] = { kernelspec: { name: 'python3', display_name: 'Python 3' } };
  if (title !== undefined) metadata.title = title;
  return serializeNotebook({ cells, metadata, nbformat: 4, nbformat_minor: minor });
}

const scenario = fc.record({
  withIds: fc.boolean(),
  drafts: fc.array(cellDraft, { maxLength: 7 }),
  ours: fc.array(edit, { minLength: 1, maxLength: 5 }),
  theirs: fc.array(edit, { minLength: 1, maxLength: 5 }),
});

const seen = new Set<string>();

describe('three-way merge, property', () => {
  it("one side's edits, or the same edits on both, merge to that notebook; any two resolve to a valid one", () => {
    fc.assert(
      fc.property(scenario, ({ withIds, drafts, ours, theirs }) => {
        const minor = withIds ? 5 : 4;
        const baseCells = drafts.map((draft, k) => makeCell(draft, withIds ? `cell${k}` : null));
        const base = text(baseCells, minor);
        const oursText = editedText(baseCells, ours, minor, 'o');
        const theirsText = editedText(baseCells, theirs, minor, 't');

        for (const [o, t, expected] of [
          [oursText, base, oursText],
          [base, theirsText, theirsText],
          [oursText, oursText, oursText],
        ]) {
          const texts = { base, ours: o, theirs: t };
          expect(mergeNotebookTexts(texts).conflictIds).toEqual([]);
          expect(resolveNotebookMerge(texts, {})).toBe(expected);
        }

        const texts = { base, ours: oursText, theirs: theirsText };
        const { conflictIds } = mergeNotebookTexts(texts);
        for (const choice of ['ours', 'theirs', 'both'] as const) {
          const resolutions = Object.fromEntries(
            conflictIds.map((id) => [id, choice === 'both' && /^(metadata|field):/.test(id) ? 'ours' : choice]),
          );
          const merged = resolveNotebookMerge(texts, resolutions);
          expect(validateNotebook(JSON.parse(merged), minor)).toBeNull();
          seen.add(merged);
        }
        seen.add(base).add(oursText).add(theirsText);
      }),
      { numRuns: 300 },
    );
  });

  it('nbformat reads, validates and writes every notebook seen byte for byte', () => {
    const texts = [...seen];
    expect(texts.length).toBeGreaterThan(200);
    const rewritten = nbformatRewrites(texts);
    expect(texts.filter((one, k) => rewritten[k] !== one).slice(0, 1)).toEqual([]);
  }, 120_000);
});
