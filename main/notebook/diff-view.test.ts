import { beforeAll, describe, expect, it, vi } from 'vitest';
import { KilnError } from '../../shared/errors';
import { nbformatWrites, type CellSpec, type NotebookSpec } from '../../test-support/nbformat-build';
import { notebookDiffHandlers, notebookDiffView, type NotebookDiffSources } from './diff-view';
import * as partialApply from './partial-apply';

// Which sides were parsed, and when: a side is parsed as soon as it is read.
vi.mock('./partial-apply', async (actual) => {
  const module = await actual<typeof import('./partial-apply')>();
  return { ...module, parseNotebookSide: vi.fn(module.parseNotebookSide) };
});
const parsedSides = () => vi.mocked(partialApply.parseNotebookSide).mock.calls.map(([, side]) => side);

/*
 * The `notebook.diff` channel's answer on notebooks nbformat writes: the diff, and the cells the view draws,
 * with outputs only where they changed; corrupt input on either side is E_INVALID_NOTEBOOK naming that side.
 */

const printed = (text: string) => ({ output_type: 'stream' as const, name: 'stdout', text });
const intro: CellSpec = { id: 'intro', type: 'markdown', source: '# Run' };
const load: CellSpec = { id: 'load', source: 'x = 1', execution_count: 1, outputs: [printed('big\n')] };
const train: CellSpec = { id: 'train', source: 'print(x)', execution_count: 2, outputs: [printed('1\n')] };
const trained: CellSpec = { ...train, source: 'print(x + 1)', outputs: [printed('2\n')] };
const check: CellSpec = { id: 'check', source: 'assert x', metadata: { scale: 2.0 } };
const plot: CellSpec = { id: 'plot', source: 'x', execution_count: 3, outputs: [printed('x\n')] };
const plotted: CellSpec = { ...plot, source: 'x  # same output' };

const SPECS = {
  base: { cells: [intro, load, train, check, plot] },
  next: { cells: [intro, load, trained, { id: 'new', source: 'y = 2' }, plotted] },
} satisfies Record<string, NotebookSpec>;

let base: string;
let next: string;
beforeAll(() => {
  [base, next] = nbformatWrites([SPECS.base, SPECS.next]);
  // A float as Python writes it (a JavaScript spec cannot say 2.0).
  base = base.replace('"scale": 2\n', '"scale": 2.0\n');
  expect(base).toContain('"scale": 2.0');
});

function invalid(run: () => unknown): KilnError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(KilnError);
    return err as KilnError;
  }
  throw new Error('expected E_INVALID_NOTEBOOK');
}

describe('notebook.diff', () => {
  it('answers the diff and both sides’ cells, outputs only where the view draws them', () => {
    const view = notebookDiffView(base, next);
    const changed = view.diff.cells.filter((c) => c.status !== 'unchanged');
    expect(changed.map((c) => [c.changeId, c.status, c.kinds])).toEqual([
      ['cell:train', 'modified', ['source', 'outputs']],
      ['deleted:check', 'deleted', ['deleted']],
      ['added:new', 'added', ['added']],
      ['cell:plot', 'modified', ['source']],
    ]);
    expect(view.base.map((c) => c.source)).toEqual(['# Run', 'x = 1', 'print(x)', 'assert x', 'x']);
    expect(view.next.map((c) => c.id)).toEqual(['intro', 'load', 'train', 'new', 'plot']);
    // Unchanged `load` keeps its outputs in main; the changed `train` brings both sides'.
    expect(view.next[1]).toMatchObject({ outputsSent: false, outputs: [], execution_count: 1 });
    expect(view.base[2]).toMatchObject({ outputsSent: true, outputs: [{ text: ['1\n'] }] });
    expect(view.next[2]).toMatchObject({ outputsSent: true, outputs: [{ text: ['2\n'] }] });
    // Outputs the same on both sides are drawn nowhere; the old cell's still come, as its restore needs them.
    expect(view.next[4]).toMatchObject({ outputsSent: false, outputs: [] });
    expect(view.base[4]).toMatchObject({ outputsSent: true, outputs: [{ text: ['x\n'] }] });
    // A deleted cell comes whole, its number literals as written, so restoring it keeps 2.0.
    expect(view.base[3]).toMatchObject({
      id: 'check',
      metadata: { scale: 2 },
      exactNumbers: { '/metadata/scale': '2.0' },
    });
  });

  it('refuses a corrupt notebook on either side, saying which', () => {
    const broken = invalid(() => notebookDiffView('{"cells": [', next));
    expect(broken.code).toBe('E_INVALID_NOTEBOOK');
    expect(broken.message).toMatch(/^Cannot compare: the base notebook is not valid JSON/);
    const noCells = invalid(() => notebookDiffView(base, '{"metadata": {}}'));
    expect(noCells.code).toBe('E_INVALID_NOTEBOOK');
    expect(noCells.message).toBe('Cannot compare: the new notebook has no "cells" list');
  });

  it('reads a path side from the open notebook’s unsaved state, else the file; a file side from the disk', async () => {
    const read: string[] = [];
    const sources = (unsaved: string | null | undefined): NotebookDiffSources => ({
      unsavedText: () => unsaved,
      readFile: (rel) => (read.push(rel), Promise.resolve(base)),
      readHead: (rel) => Promise.resolve(rel === 'a.ipynb' ? next : null),
    });
    const diff = (unsaved: string | null | undefined) =>
      notebookDiffHandlers(sources(unsaved))['notebook.diff']({ base: { text: base }, next: { path: 'a.ipynb' } });

    const open = await diff(next);
    expect(open.unsaved).toEqual({ base: false, next: true });
    expect(open.diff.changeIds).toHaveLength(4);
    expect(read).toEqual([]);

    for (const clean of [null, undefined]) {
      const fromDisk = await diff(clean);
      expect(fromDisk.unsaved.next).toBe(false);
      expect(fromDisk.diff.changeIds).toEqual([]);
    }
    expect(read).toEqual(['a.ipynb', 'a.ipynb']);

    // A `file` side is the disk's, even while the notebook has unsaved edits.
    const onDisk = await notebookDiffHandlers(sources(next))['notebook.diff']({
      base: { file: 'a.ipynb' },
      next: { path: 'a.ipynb' },
    });
    expect(onDisk.unsaved).toEqual({ base: false, next: true });
    expect(onDisk.diff.changeIds).toHaveLength(4);
    expect(read).toEqual(['a.ipynb', 'a.ipynb', 'a.ipynb']);

    // A `head` side is git's, read in main; a notebook HEAD lacks is an empty one (every cell added).
    const atHead = await notebookDiffHandlers(sources(null))['notebook.diff']({
      base: { head: 'a.ipynb' },
      next: { text: next },
    });
    expect(atHead.diff.changeIds).toEqual([]);
    const notInHead = await notebookDiffHandlers(sources(null))['notebook.diff']({
      base: { head: 'new.ipynb' },
      next: { text: next },
    });
    expect(notInHead.diff.cells.every((cell) => cell.status === 'added')).toBe(true);
  });

  it('parses the side read first while the other is still being read; a corrupt base is said first', async () => {
    let headRead!: (text: string) => void;
    const head = new Promise<string>((resolve) => (headRead = resolve));
    const sources: NotebookDiffSources = {
      unsavedText: () => undefined,
      readFile: () => Promise.resolve('{"cells": ['),
      readHead: () => head,
    };
    vi.mocked(partialApply.parseNotebookSide).mockClear();
    const asked = Promise.resolve(
      notebookDiffHandlers(sources)['notebook.diff']({ base: { head: 'a.ipynb' }, next: { path: 'a.ipynb' } }),
    );
    // The working file is parsed (and found corrupt) before git's HEAD arrives; the answer waits for both sides.
    let settled = false;
    void asked.catch(() => undefined).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(parsedSides()).toEqual(['new']);
    expect(settled).toBe(false);
    headRead('{"metadata": {}}');
    await expect(asked).rejects.toMatchObject({
      code: 'E_INVALID_NOTEBOOK',
      message: 'Cannot compare: the base notebook has no "cells" list',
    });
  });
});
