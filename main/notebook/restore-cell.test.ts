import { beforeAll, describe, expect, it } from 'vitest';
import type { KilnError } from '../../shared/errors';
import { nbformatWrites, type CellSpec, type NotebookSpec } from '../../test-support/nbformat-build';
import { restoreCellText } from './partial-apply';

/*
 * "Restore this cell" on a notebook's text: one cell of an older version put back into the notebook as it is
 * now, byte for byte what Python's nbformat writes for the expected notebook (fixtures built by nbformat).
 */

const printed = (text: string) => ({ output_type: 'stream' as const, name: 'stdout', text });
const intro: CellSpec = { id: 'intro', type: 'markdown', source: '# Run' };
const load: CellSpec = { id: 'load', source: 'cfg = load("c.json")', execution_count: 1, metadata: { scale: 2.5 } };
const loadNow: CellSpec = { ...load, source: 'cfg = load("d.json")', execution_count: 4 };
const train: CellSpec = { id: 'train', source: 'fit(cfg)', execution_count: 2, outputs: [printed('loss 0.5\n')] };
const plot: CellSpec = { id: 'plot', source: 'plot()', execution_count: 3 };
const check: CellSpec = { id: 'check', source: 'assert cfg' };
const meta = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };

const SPECS = {
  version: { metadata: meta, cells: [intro, load, train, plot] },
  // Since then: load edited, train deleted, check added.
  now: { metadata: meta, cells: [intro, loadNow, plot, check] },
  loadBack: { metadata: meta, cells: [intro, load, plot, check] },
  trainBack: { metadata: meta, cells: [intro, loadNow, train, plot, check] },
} satisfies Record<string, NotebookSpec>;

let text: Record<keyof typeof SPECS, string>;
beforeAll(() => {
  const names = Object.keys(SPECS) as (keyof typeof SPECS)[];
  const written = nbformatWrites(names.map((name) => SPECS[name]));
  text = Object.fromEntries(names.map((name, k) => [name, written[k]])) as typeof text;
});

describe('restoreCellText', () => {
  it('puts an edited cell back as it was, the other cells as they are now, byte for byte', () => {
    expect(restoreCellText(text.now, text.version, 1)).toBe(text.loadBack);
  });

  it('brings a deleted cell back at its old place with its outputs', () => {
    expect(restoreCellText(text.now, text.version, 2)).toBe(text.trainBack);
  });

  it('refuses a cell that is as it was, or one the version does not have', () => {
    const badRequest = expect.objectContaining({ code: 'E_BAD_REQUEST' }) as KilnError;
    expect(() => restoreCellText(text.now, text.version, 0)).toThrow(badRequest);
    expect(() => restoreCellText(text.now, text.version, 9)).toThrow(badRequest);
  });
});
