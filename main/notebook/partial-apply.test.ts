import { beforeAll, describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import {
  nbformatProblems,
  nbformatWrites,
  type CellSpec,
  type NotebookSpec,
  type OutputSpec,
} from '../../test-support/nbformat-build';
import { planNotebookDiff } from '../../shared/notebook-diff';
import { exactNumberText } from './exact-json';
import { serializeNotebook } from './format';
import { applyNotebookChanges, diffNotebookTexts, mergeAccepted, parseNotebookPair } from './partial-apply';

/*
 * Partial apply, byte for byte against what Python's nbformat writes for the expected notebook (nbformat.writes
 * plus the newline nbformat.write adds). Every fixture is built by nbformat in one Python run.
 */

const printed = (text: string): OutputSpec => ({ output_type: 'stream', name: 'stdout', text });
const result = (value: unknown, n: number): OutputSpec => ({
  output_type: 'execute_result',
  data: { 'application/json': { value }, 'text/plain': String(value) },
  metadata: {},
  execution_count: n,
});

const intro: CellSpec = { id: 'intro', type: 'markdown', source: '# Run\nThe steps.' };
const load: CellSpec = { id: 'load', source: 'import json\ncfg = json.load(open("c.json"))', execution_count: 1 };
const train: CellSpec = {
  id: 'train',
  source: 'for step in range(3):\n    print(step)',
  execution_count: 2,
  outputs: [printed('0\n1\n2\n')],
};
const trainEdited: CellSpec = { ...train, source: 'for step in range(5):\n    print(step)', outputs: [] };
const plot: CellSpec = {
  id: 'plot',
  source: 'score',
  execution_count: 3,
  metadata: { scale: 2.5 },
  outputs: [result(2.5, 3)],
};
const check: CellSpec = { id: 'check', source: 'assert cfg' };
const notes: CellSpec = { id: 'notes', type: 'markdown', source: 'Ünïcode notes ✓' };
const meta = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };

const noIds = (cells: CellSpec[]): NotebookSpec => ({ minor: 4, metadata: meta, cells });

const SPECS = {
  base: { metadata: meta, cells: [intro, load, train, plot, notes] },
  next: { metadata: { ...meta, title: 'Run' }, cells: [plot, intro, trainEdited, check, notes] },
  // Accept the source edit and the new cell; reject the deletion, the move and the notebook metadata.
  expectedEditAndAdd: { metadata: meta, cells: [intro, load, trainEdited, plot, check, notes] },
  // Accept the deletion, the move and the notebook metadata; reject the rest.
  expectedDeleteAndMove: { metadata: { ...meta, title: 'Run' }, cells: [plot, intro, train, notes] },
  // Outputs ignored: the source edit is the one change; its cell comes whole (new outputs), plot keeps its own.
  rerun: { metadata: meta, cells: [intro, load, trainEdited, { ...plot, outputs: [result(3.5, 3)] }, notes] },
  expectedRerun: { metadata: meta, cells: [intro, load, trainEdited, plot, notes] },
  oldBase: noIds([intro, load, train, plot, notes]),
  oldNext: noIds([intro, { ...load, source: 'import json\ncfg = json.load(open("d.json"))' }, plot, train, check]),
  // Accept the edit of `load` and the new cell; reject the move of `train` and the deletion of `notes`.
  oldExpected: noIds([
    intro,
    { ...load, source: 'import json\ncfg = json.load(open("d.json"))' },
    train,
    plot,
    notes,
    check,
  ]),
} satisfies Record<string, NotebookSpec>;

let text: Record<keyof typeof SPECS, string>;
beforeAll(() => {
  const names = Object.keys(SPECS) as (keyof typeof SPECS)[];
  const written = nbformatWrites(names.map((name) => SPECS[name]));
  text = Object.fromEntries(names.map((name, k) => [name, written[k]])) as typeof text;
});

/** Through the merge and the writer, never the shortcut that hands back a side's own bytes. */
function merged(base: string, next: string, accepted: string[]): string {
  const pair = parseNotebookPair(base, next);
  const plan = planNotebookDiff(pair.base, pair.next, { exactNumberText });
  return serializeNotebook(mergeAccepted(pair, plan, new Set(accepted)));
}

describe('applyNotebookChanges', () => {
  it('lists the changes the review decides on', () => {
    const { diff } = diffNotebookTexts(text.base, text.next);
    expect(diff.changeIds).toEqual(['cell:plot', 'deleted:load', 'cell:train', 'added:check', 'notebook']);
  });

  it('gives the new notebook for every change and the base for none, byte for byte', () => {
    const { diff } = diffNotebookTexts(text.base, text.next);
    expect(applyNotebookChanges(text.base, text.next, diff.changeIds)).toBe(text.next);
    expect(applyNotebookChanges(text.base, text.next, [])).toBe(text.base);
    expect(merged(text.base, text.next, diff.changeIds)).toBe(text.next);
    expect(merged(text.base, text.next, [])).toBe(text.base);
  });

  it("writes a partial accept as nbformat writes the same notebook, untouched cells' outputs kept", () => {
    expect(applyNotebookChanges(text.base, text.next, ['cell:train', 'added:check'])).toBe(text.expectedEditAndAdd);
    expect(applyNotebookChanges(text.base, text.next, ['deleted:load', 'cell:plot', 'notebook'])).toBe(
      text.expectedDeleteAndMove,
    );
  });

  it('with outputs ignored, takes an accepted cell whole and leaves the others as they were', () => {
    const options = { ignoreOutputs: true };
    const { diff } = diffNotebookTexts(text.base, text.rerun, options);
    expect(diff.changeIds).toEqual(['cell:train']);
    expect(applyNotebookChanges(text.base, text.rerun, ['cell:train'], options)).toBe(text.expectedRerun);
    expect(applyNotebookChanges(text.base, text.rerun, [], options)).toBe(text.base);
  });

  it('applies part of a diff between notebooks without cell ids (nbformat 4.4)', () => {
    const { diff } = diffNotebookTexts(text.oldBase, text.oldNext);
    expect(diff.changeIds).toEqual(['cell:o1-n1', 'cell:o3-n2', 'deleted:o4', 'added:n4']);
    expect(applyNotebookChanges(text.oldBase, text.oldNext, ['cell:o1-n1', 'added:n4'])).toBe(text.oldExpected);
    expect(merged(text.oldBase, text.oldNext, diff.changeIds)).toBe(text.oldNext);
  });

  it('keeps a 4.4 file 4.4 when its upgrade is rejected, and gives every cell an id when it is accepted', () => {
    const { diff } = diffNotebookTexts(text.oldBase, text.next);
    const cellsOnly = diff.changeIds.filter((id) => id !== 'notebook');
    const stays = applyNotebookChanges(text.oldBase, text.next, cellsOnly);
    const upgraded = applyNotebookChanges(text.oldBase, text.next, ['notebook']);
    expect(nbformatProblems([stays, upgraded])).toEqual([null, null]);
    expect(JSON.parse(stays)).toMatchObject({ nbformat_minor: 4 });
    const cells = (JSON.parse(upgraded) as { cells: { id: string }[] }).cells;
    // The base's cells, each under the id its twin has in the new notebook (load has none there: a fresh one).
    expect(cells.map((cell) => cell.id)).toEqual([
      'intro',
      expect.stringMatching(/^[0-9a-f]{8}$/),
      'train',
      'plot',
      'notes',
    ]);
  });

  it('keeps number literals as written in untouched cells, and tells 2.0 from 2', () => {
    const base = text.base.replace('"scale": 2.5', '"scale": 2.0');
    const next = text.next
      .replace('"scale": 2.5', '"scale": 2.0')
      .replace('"title": "Run"', '"title": "Run",\n  "version": 1e+20');
    expect(applyNotebookChanges(base, next, ['deleted:load'])).toContain('"scale": 2.0');
    expect(applyNotebookChanges(base, next, ['notebook'])).toContain('"version": 1e+20');
    const integral = next.replace('"scale": 2.0', '"scale": 2');
    const { diff } = diffNotebookTexts(base, integral);
    expect(diff.cells.find((c) => c.changeId === 'cell:plot')?.metadata).toEqual([
      { key: 'scale', status: 'changed', old: 2, new: 2 },
    ]);
  });

  it('refuses a change id the two notebooks do not have, and input that is not a notebook', () => {
    expect(() => applyNotebookChanges(text.base, text.next, ['cell:nope'])).toThrow(
      expect.objectContaining({ code: 'E_BAD_REQUEST' }) as KilnError,
    );
    expect(() => applyNotebookChanges('{"cells": [', text.next, [])).toThrow(
      expect.objectContaining({ code: 'E_INVALID_NOTEBOOK' }) as KilnError,
    );
    expect(() => diffNotebookTexts(text.base, '{"metadata": {}}')).toThrow(
      expect.objectContaining({ code: 'E_INVALID_NOTEBOOK' }) as KilnError,
    );
  });
});
