/**
 * "Restore this cell" through main: one cell of a notebook's history version put back into the notebook as it is
 * now, into the open text buffer's bytes (nothing written) or into the file (written as a restore, kept in history
 * and published on the change feed), in the bytes Python's nbformat writes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FsChange, KilnBridge } from '../../shared/contract';
import { nbformatWrites, type CellSpec, type NotebookSpec } from '../../test-support/nbformat-build';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

const load: CellSpec = { id: 'load', source: 'cfg = load("c.json")', execution_count: 1, metadata: { scale: 2.5 } };
const loadNow: CellSpec = { ...load, source: 'cfg = load("d.json")', execution_count: 3 };
const plot: CellSpec = {
  id: 'plot',
  source: 'plot()',
  execution_count: 2,
  outputs: [{ output_type: 'stream', name: 'stdout', text: 'drawn\n' }],
};
const check: CellSpec = { id: 'check', source: 'assert cfg' };
const SPECS = {
  version: { cells: [load, plot] },
  now: { cells: [loadNow, plot, check] },
  restored: { cells: [load, plot, check] },
} satisfies Record<string, NotebookSpec>;

let text: Record<keyof typeof SPECS, string>;
beforeAll(() => {
  const names = Object.keys(SPECS) as (keyof typeof SPECS)[];
  const written = nbformatWrites(names.map((name) => SPECS[name]));
  text = Object.fromEntries(names.map((name, k) => [name, written[k]])) as typeof text;
});

let running: RunningServices;
let bridge: KilnBridge;
let published: FsChange[];
beforeEach(async () => {
  running = await startServices({ 'run.ipynb': text.version });
  bridge = running.bridge;
  published = [];
  bridge.on('fs.change', (change) => published.push(change));
  // The operator saves a newer notebook over it: the version goes into history.
  const first = await bridge.request('workspace.read', { path: 'run.ipynb' });
  await bridge.request('workspace.write', { path: 'run.ipynb', text: text.now, expectedHash: first.hash });
});
afterEach(async () => {
  await running.close();
});

const disk = () => readFile(path.join(running.root, 'run.ipynb'), 'utf8');
const versionId = async () => (await bridge.request('history.list', { path: 'run.ipynb' })).entries[0].id;

describe('history.restoreCell', () => {
  it('writes a notebook not open with the cell back, keeping what it replaced and telling the change feed', async () => {
    const id = await versionId();
    const { text: result, written } = await bridge.request('history.restoreCell', {
      path: 'run.ipynb',
      id,
      cellIndex: 0,
    });
    expect(result).toBe(text.restored);
    expect(written).not.toBeNull();
    expect(await disk()).toBe(text.restored);
    const { entries } = await bridge.request('history.list', { path: 'run.ipynb' });
    expect(entries[0].reason).toBe('restore');
    expect((await bridge.request('history.read', { path: 'run.ipynb', id: entries[0].id })).text).toBe(text.now);
    await until(
      () => published.some((change) => change.type === 'updated' && change.path === 'run.ipynb'),
      'the restore on the change feed',
    );
  });

  it('works out the open text buffer with the cell back and writes nothing', async () => {
    const id = await versionId();
    const { text: result, written } = await bridge.request('history.restoreCell', {
      path: 'run.ipynb',
      id,
      cellIndex: 0,
      buffer: text.now,
    });
    expect(result).toBe(text.restored);
    expect(written).toBeNull();
    expect(await disk()).toBe(text.now);
  });

  it('refuses a cell that is as it was, and writes nothing', async () => {
    const id = await versionId();
    await expect(bridge.request('history.restoreCell', { path: 'run.ipynb', id, cellIndex: 1 })).rejects.toMatchObject({
      code: 'E_BAD_REQUEST',
    });
    expect(await disk()).toBe(text.now);
  });
});
