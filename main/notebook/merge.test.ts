import { beforeAll, describe, expect, it } from 'vitest';
import type { KilnError } from '../../shared/errors';
import type { CellConflictItem, NotebookMerge } from '../../shared/notebook-diff';
import {
  nbformatProblems,
  nbformatWrites,
  type CellSpec,
  type NotebookSpec,
  type OutputSpec,
} from '../../test-support/nbformat-build';
import { mergeNotebookTexts, resolveNotebookMerge } from './merge';

/*
 * The three-way merge on notebooks nbformat wrote, and its results byte for byte against nbformat.writes of the
 * notebook expected. One Python run builds every fixture.
 */

const printed = (text: string): OutputSpec => ({ output_type: 'stream', name: 'stdout', text });
const meta = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };

const intro: CellSpec = { id: 'intro', type: 'markdown', source: '# Run\nThe steps.' };
const load: CellSpec = { id: 'load', source: 'import json\ncfg = json.load(open("c.json"))', execution_count: 1 };
const train: CellSpec = {
  id: 'train',
  source: 'for step in range(3):\n    print(step)',
  execution_count: 2,
  outputs: [printed('0\n1\n2\n')],
};
const plot: CellSpec = { id: 'plot', source: 'score', execution_count: 3, metadata: { scale: 2.5 } };
const notes: CellSpec = { id: 'notes', type: 'markdown', source: 'Ünïcode notes ✓' };

const loadD: CellSpec = { ...load, source: 'import json\ncfg = json.load(open("d.json"))' };
const loadE: CellSpec = { ...load, source: 'import json\ncfg = json.load(open("e.json"))' };
const trainRerun3: CellSpec = { ...train, execution_count: 7, outputs: [printed('0\n1\n2\n3\n')] };
const trainRerun4: CellSpec = { ...train, execution_count: 9, outputs: [printed('zero\n')] };
const plotTagged: CellSpec = { ...plot, metadata: { scale: 2.5, tags: ['slow'] } };
const plotTaggedOther: CellSpec = { ...plot, metadata: { scale: 2.5, tags: ['skip'] } };
const plotSource: CellSpec = { ...plot, source: 'score * 2' };
const extra: CellSpec = { id: 'extra', source: 'print("ours")' };
const other: CellSpec = { id: 'other', source: 'print("theirs")' };

const nb = (cells: CellSpec[], metadata: Record<string, unknown> = meta): NotebookSpec => ({ metadata, cells });
const old = (cells: CellSpec[]): NotebookSpec => ({ minor: 4, metadata: meta, cells });

const SPECS = {
  base: nb([intro, load, train, plot, notes]),
  // One side each: ours edits load and adds a cell after train; theirs re-runs train, tags plot, deletes notes.
  oursApart: nb([intro, loadD, train, extra, plot, notes], { ...meta, title: 'Run' }),
  theirsApart: nb([intro, load, trainRerun3, plotTagged], { ...meta, authors: ['t'] }),
  apartExpected: nb([intro, loadD, trainRerun3, extra, plotTagged], { ...meta, authors: ['t'], title: 'Run' }),
  // Both sides: load edited alike (no conflict), load edited differently (source), train re-run differently
  // (outputs), plot tagged differently (metadata) and the source of plot and its tags on different sides (merged).
  oursLoadD: nb([intro, loadD, train, plot, notes]),
  oursLoadE: nb([intro, loadE, train, plot, notes]),
  oursRerun3: nb([intro, load, trainRerun3, plot, notes]),
  theirsRerun4: nb([intro, load, trainRerun4, plot, notes]),
  oursTagged: nb([intro, load, train, plotTagged, notes]),
  theirsTaggedOther: nb([intro, load, train, plotTaggedOther, notes]),
  oursPlotSource: nb([intro, load, train, plotSource, notes]),
  plotMerged: nb([intro, load, train, { ...plotSource, metadata: plotTagged.metadata }, notes]),
  // Delete against edit, and cells added at the same place.
  oursNoPlot: nb([intro, load, train, notes]),
  oursAddsExtra: nb([intro, load, extra, train, plot, notes]),
  theirsAddsOther: nb([intro, load, other, train, plot, notes]),
  bothAdded: nb([intro, load, extra, other, train, plot, notes]),
  theirsAddsExtraAgain: nb([intro, load, { ...extra, id: 'extra2' }, train, plot, notes]),
  // A move on one side, an edit on the other.
  oursMovesPlot: nb([plot, intro, load, train, notes]),
  movedEdited: nb([plotSource, intro, load, train, notes]),
  // Cells added around a moved one stay in their order.
  oursAddsAroundMove: nb([extra, plot, other, intro, load, train, notes]),
  // Notebook metadata: the same key set differently.
  oursTitled: nb([intro, load, train, plot, notes], { ...meta, title: 'Ours' }),
  theirsTitled: nb([intro, load, train, plot, notes], { ...meta, title: 'Theirs' }),
  // nbformat 4.4, no cell ids: each side edits a cell of its own, and both edit load differently.
  oldBase: old([intro, load, train, plot, notes]),
  oldOurs: old([{ ...intro, source: '# Run it\nThe steps.' }, loadD, train, plot, notes]),
  oldTheirs: old([intro, loadE, train, plotTagged, notes]),
  oldOursWins: old([{ ...intro, source: '# Run it\nThe steps.' }, loadD, train, plotTagged, notes]),
  oldTheirsWins: old([{ ...intro, source: '# Run it\nThe steps.' }, loadE, train, plotTagged, notes]),
} satisfies Record<string, NotebookSpec>;

let text: Record<keyof typeof SPECS, string>;
beforeAll(() => {
  const names = Object.keys(SPECS) as (keyof typeof SPECS)[];
  const written = nbformatWrites(names.map((name) => SPECS[name]));
  text = Object.fromEntries(names.map((name, k) => [name, written[k]])) as typeof text;
});

const merge = (ours: keyof typeof SPECS, theirs: keyof typeof SPECS, base: keyof typeof SPECS = 'base') =>
  mergeNotebookTexts({ base: text[base], ours: text[ours], theirs: text[theirs] });
const resolve = (
  ours: keyof typeof SPECS,
  theirs: keyof typeof SPECS,
  resolutions: Record<string, 'ours' | 'theirs' | 'both'> = {},
  base: keyof typeof SPECS = 'base',
) => resolveNotebookMerge({ base: text[base], ours: text[ours], theirs: text[theirs] }, resolutions);
const conflicts = (merged: NotebookMerge) =>
  merged.items.filter((item): item is CellConflictItem => item.kind === 'conflict');
const sources = (notebook: string) =>
  (JSON.parse(notebook) as { cells: { source: string[] }[] }).cells.map((cell) => cell.source.join(''));

describe('three-way notebook merge', () => {
  it('merges changes made on one side each, cells and notebook metadata, without a conflict', () => {
    const merged = merge('oursApart', 'theirsApart');
    expect(merged.conflictIds).toEqual([]);
    expect(merged.items.map((item) => item.kind === 'cell' && item.origin)).toEqual([
      'unchanged',
      'ours',
      'theirs',
      'ours',
      'theirs',
    ]);
    expect(resolve('oursApart', 'theirsApart')).toBe(text.apartExpected);
  });

  it('takes a change both sides made alike once', () => {
    expect(merge('oursLoadD', 'oursLoadD').conflictIds).toEqual([]);
    expect(resolve('oursLoadD', 'oursLoadD')).toBe(text.oursLoadD);
  });

  it('is a source conflict when both edit a cell differently; ours, theirs or both cells', () => {
    const merged = merge('oursLoadD', 'oursLoadE');
    expect(merged.conflictIds).toEqual(['cell:o1']);
    expect(conflicts(merged)[0]).toMatchObject({
      reason: 'both-modified',
      parts: ['source'],
      base: { index: 1, id: 'load', source: load.source },
      ours: [{ index: 1, source: loadD.source }],
      theirs: [{ index: 1, source: loadE.source }],
    });
    expect(resolve('oursLoadD', 'oursLoadE', { 'cell:o1': 'ours' })).toBe(text.oursLoadD);
    expect(resolve('oursLoadD', 'oursLoadE', { 'cell:o1': 'theirs' })).toBe(text.oursLoadE);
    const both = resolve('oursLoadD', 'oursLoadE', { 'cell:o1': 'both' });
    expect(sources(both)).toEqual([intro.source, loadD.source, loadE.source, train.source, plot.source, notes.source]);
    const ids = (JSON.parse(both) as { cells: { id: string }[] }).cells.map((cell) => cell.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[1]).toBe('load');
    expect(nbformatProblems([both])).toEqual([null]);
  });

  it('is an outputs conflict when both re-run a cell with other results', () => {
    const merged = merge('oursRerun3', 'theirsRerun4');
    expect(conflicts(merged)).toMatchObject([{ conflictId: 'cell:o2', parts: ['outputs'] }]);
    expect(resolve('oursRerun3', 'theirsRerun4', { 'cell:o2': 'theirs' })).toBe(text.theirsRerun4);
  });

  it('merges metadata key by key: a key both set differently conflicts, parts on different sides merge', () => {
    const merged = merge('oursTagged', 'theirsTaggedOther');
    expect(conflicts(merged)).toMatchObject([{ conflictId: 'cell:o3', parts: ['metadata'], metadataKeys: ['tags'] }]);
    expect(resolve('oursTagged', 'theirsTaggedOther', { 'cell:o3': 'ours' })).toBe(text.oursTagged);
    const apart = merge('oursPlotSource', 'oursTagged');
    expect(apart.conflictIds).toEqual([]);
    expect(apart.items[3]).toMatchObject({ kind: 'cell', origin: 'merged', source: 'score * 2' });
    expect(resolve('oursPlotSource', 'oursTagged')).toBe(text.plotMerged);
  });

  it('is a conflict when one side deletes a cell the other edited', () => {
    const merged = merge('oursNoPlot', 'oursTagged');
    expect(conflicts(merged)).toMatchObject([
      { conflictId: 'cell:o3', reason: 'delete-modified', ours: [], theirs: [{ index: 3, id: 'plot' }] },
    ]);
    expect(resolve('oursNoPlot', 'oursTagged', { 'cell:o3': 'ours' })).toBe(text.oursNoPlot);
    expect(resolve('oursNoPlot', 'oursTagged', { 'cell:o3': 'theirs' })).toBe(text.oursTagged);
    // Deleted on one side and untouched on the other: simply gone.
    expect(resolve('oursNoPlot', 'base')).toBe(text.oursNoPlot);
  });

  it('is a conflict when both add different cells at the same place, none when they add the same', () => {
    const merged = merge('oursAddsExtra', 'theirsAddsOther');
    expect(conflicts(merged)).toMatchObject([
      { conflictId: 'added:o1', reason: 'both-added', base: null, ours: [{ id: 'extra' }], theirs: [{ id: 'other' }] },
    ]);
    expect(resolve('oursAddsExtra', 'theirsAddsOther', { 'added:o1': 'both' })).toBe(text.bothAdded);
    expect(resolve('oursAddsExtra', 'theirsAddsOther', { 'added:o1': 'theirs' })).toBe(text.theirsAddsOther);
    expect(merge('oursAddsExtra', 'theirsAddsExtraAgain').conflictIds).toEqual([]);
    expect(resolve('oursAddsExtra', 'theirsAddsExtraAgain')).toBe(text.oursAddsExtra);
  });

  it('keeps a move from one side with an edit from the other, and cells added around a move in order', () => {
    expect(merge('oursMovesPlot', 'oursPlotSource').conflictIds).toEqual([]);
    expect(resolve('oursMovesPlot', 'oursPlotSource')).toBe(text.movedEdited);
    expect(resolve('oursAddsAroundMove', 'base')).toBe(text.oursAddsAroundMove);
    expect(resolve('base', 'oursAddsAroundMove')).toBe(text.oursAddsAroundMove);
  });

  it('gives notebook metadata keys set differently as conflicts taking one side, never both', () => {
    const merged = merge('oursTitled', 'theirsTitled');
    expect(merged.notebookConflicts).toEqual([
      { conflictId: 'metadata:title', scope: 'metadata', key: 'title', ours: 'Ours', theirs: 'Theirs' },
    ]);
    expect(resolve('oursTitled', 'theirsTitled', { 'metadata:title': 'theirs' })).toBe(text.theirsTitled);
    expect(() => resolve('oursTitled', 'theirsTitled', { 'metadata:title': 'both' })).toThrow(
      expect.objectContaining({ code: 'E_BAD_REQUEST' }) as KilnError,
    );
  });

  it('merges notebooks without cell ids (nbformat 4.4) and writes them as 4.4', () => {
    const merged = merge('oldOurs', 'oldTheirs', 'oldBase');
    expect(merged.conflictIds).toEqual(['cell:o1']);
    expect(conflicts(merged)[0]).toMatchObject({ base: { id: null }, ours: [{ id: null }], theirs: [{ id: null }] });
    expect(resolve('oldOurs', 'oldTheirs', { 'cell:o1': 'ours' }, 'oldBase')).toBe(text.oldOursWins);
    expect(resolve('oldOurs', 'oldTheirs', { 'cell:o1': 'theirs' }, 'oldBase')).toBe(text.oldTheirsWins);
  });

  it('merges a notebook both sides added against what they have in common', () => {
    const merged = mergeNotebookTexts({ base: null, ours: text.oursLoadD, theirs: text.oursTagged });
    // The common cells (intro, train, notes) are the base: only load and plot, which differ, conflict.
    expect(merged.items.map((item) => item.kind)).toEqual(['cell', 'conflict', 'cell', 'conflict', 'cell']);
    expect(merged.conflictIds).toEqual(['added:o0', 'added:o1']);
  });

  it('keeps number literals as written in cells and metadata it merges from both sides', () => {
    const exact = (t: string) => t.replace('"scale": 2.5', '"scale": 2.0');
    const titled = (t: string) =>
      t.replace('"metadata": {\n  "kernelspec"', '"metadata": {\n  "count": 1e+20,\n  "kernelspec"');
    const texts = { base: exact(text.base), ours: exact(text.oursPlotSource), theirs: titled(exact(text.oursTagged)) };
    expect(texts.theirs).toContain('"count": 1e+20');
    const merged = resolveNotebookMerge(texts, {});
    expect(merged).toBe(titled(exact(text.plotMerged)));
    expect(merged).toContain('"scale": 2.0');
  });

  it('refuses unresolved, unknown or impossible resolutions and versions that are not notebooks', () => {
    const bad = (fn: () => unknown, code: string) => expect(fn).toThrow(expect.objectContaining({ code }) as KilnError);
    bad(() => resolve('oursLoadD', 'oursLoadE'), 'E_BAD_REQUEST');
    bad(() => resolve('oursLoadD', 'oursLoadE', { 'cell:o1': 'ours', 'cell:o9': 'ours' }), 'E_BAD_REQUEST');
    bad(
      () => mergeNotebookTexts({ base: text.base, ours: '<<<<<<< HEAD\n{', theirs: text.base }),
      'E_INVALID_NOTEBOOK',
    );
  });
});
