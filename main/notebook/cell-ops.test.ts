import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { NotebookCell } from '../../shared/contract';
import { makeWorkspace } from '../../test-support/event-hub';
import { judgeWithNbformat } from '../../test-support/nbformat';
import type { Workspace } from '../workspace';
import { NotebookService } from './service';

const CONFORMANCE = path.resolve(__dirname, 'conformance');
const SOURCE = 'test4.5.ipynb';
const NB = 'cells.ipynb';
const OTHER = 'other.ipynb';

let root: string;
let workspace: Workspace;
let svc: NotebookService;

async function saveAndJudge(rel: string) {
  expect((await svc.save(rel)).saved).toBe(true);
  const judged = judgeWithNbformat(path.join(root, rel));
  expect(judged.sameBytes).toBe(true);
  return judged;
}

async function cells(rel: string): Promise<NotebookCell[]> {
  return (await svc.get(rel)).cells;
}

beforeEach(async () => {
  if (svc) await svc.dispose();
  if (root) await fs.rm(root, { recursive: true, force: true });
  ({ root, workspace } = await makeWorkspace('kiln-cell-ops-'));
  await fs.copyFile(path.join(CONFORMANCE, SOURCE), path.join(root, NB));
  await fs.copyFile(path.join(CONFORMANCE, SOURCE), path.join(root, OTHER));
  svc = new NotebookService({ workspace, jupyter: null, autoStartKernel: false });
  await svc.open(NB);
  await svc.open(OTHER);
});

afterAll(async () => {
  await svc.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('cell operations stay byte-exact with nbformat', () => {
  it('pastes cells copied from another notebook with new ids and their outputs', async () => {
    const copied = (await cells(OTHER)).slice(3, 6);
    const pasted = await svc.insertCells(NB, { index: 1, cells: copied });
    expect(pasted.index).toBe(1);
    expect(pasted.cells.map((c) => c.source)).toEqual(copied.map((c) => c.source));
    expect(pasted.cells.map((c) => c.id)).not.toContain(copied[0].id);
    const judged = await saveAndJudge(NB);
    expect(judged.sources.slice(1, 4)).toEqual(copied.map((c) => c.source));
    expect(judged.outputs.slice(1, 4).map((o) => o.length)).toEqual(copied.map((c) => c.outputs.length));
    expect(new Set(judged.ids).size).toBe(judged.ids.length);
  });

  it('deletes a selection and puts it back where it was', async () => {
    const before = await cells(NB);
    const { removed } = await svc.deleteCells(NB, [before[5].id, before[1].id, before[3].id]);
    expect(removed.map((r) => r.index)).toEqual([1, 3, 5]);
    await saveAndJudge(NB);
    for (const { cell, index } of removed) await svc.insertCells(NB, { index, cells: [cell], keepIds: true });
    expect((await cells(NB)).map((c) => c.id)).toEqual(before.map((c) => c.id));
    await saveAndJudge(NB);
  });

  it('moves a selection as one block', async () => {
    const ids = (await cells(NB)).map((c) => c.id);
    await svc.moveCells(NB, [ids[0], ids[2]], 4);
    const judged = await saveAndJudge(NB);
    expect(judged.ids).toEqual([ids[1], ids[3], ids[4], ids[5], ids[0], ids[2], ...ids.slice(6)]);
  });

  it('merges cells into the first with a blank line between, clearing a code cell’s outputs', async () => {
    const before = await cells(NB);
    const merged = await svc.mergeCells(NB, [before[3].id, before[4].id, before[5].id]);
    expect(merged.cell.id).toBe(before[3].id);
    expect(merged.cell.source).toBe([before[3].source, before[4].source, before[5].source].join('\n\n'));
    expect(merged.cell.outputs).toEqual([]);
    expect(merged.removed.map((r) => r.index)).toEqual([4, 5]);
    const judged = await saveAndJudge(NB);
    expect(judged.ids.length).toBe(before.length - 2);
    // One cell merges with the one below.
    await svc.mergeCells(NB, [before[0].id]);
    expect((await cells(NB))[0].source).toBe(`${before[0].source}\n\n${before[1].source}`);
    await saveAndJudge(NB);
  });

  it('splits a cell at the cursor; the outputs go with the last part', async () => {
    const cell = (await cells(NB))[3];
    const at = cell.source.indexOf('print');
    const split = await svc.splitCell(NB, cell.id, [at]);
    expect(split.cells.map((c) => c.source)).toEqual([
      cell.source.slice(0, at).replace(/\n+$/, ''),
      cell.source.slice(at),
    ]);
    expect(split.cells[0].id).toBe(cell.id);
    expect(split.cells[0].outputs).toEqual([]);
    expect(split.cells[1].outputs.length).toBe(cell.outputs.length);
    const judged = await saveAndJudge(NB);
    expect(judged.sources.slice(3, 5)).toEqual(split.cells.map((c) => c.source));
  });

  it('toggles outputs and scrolling on a selection in the metadata JupyterLab writes', async () => {
    const before = await cells(NB);
    for (const cell of [before[3], before[5]])
      await svc.setCellMetadata(NB, cell.id, {
        ...cell.metadata,
        collapsed: true,
        scrolled: true,
        jupyter: { outputs_hidden: true },
      });
    await saveAndJudge(NB);
    const written = JSON.parse(await fs.readFile(path.join(root, NB), 'utf8'));
    expect(written.cells[3].metadata).toMatchObject({
      collapsed: true,
      scrolled: true,
      jupyter: { outputs_hidden: true },
    });
  });

  it('changes the type of a selection and back', async () => {
    const before = await cells(NB);
    for (const cell of before.slice(3, 6)) await svc.setCellType(NB, cell.id, 'raw');
    await saveAndJudge(NB);
    await svc.deleteCells(
      NB,
      before.slice(3, 6).map((c) => c.id),
    );
    await svc.insertCells(NB, { index: 3, cells: before.slice(3, 6), keepIds: true });
    const judged = await saveAndJudge(NB);
    expect(judged.outputs.map((o) => o.length)).toEqual(before.map((c) => c.outputs.length));
  });

  it('refuses what it cannot do with a clear code, and changes nothing', async () => {
    const before = (await cells(NB)).map((c) => c.id);
    await expect(svc.deleteCells(NB, [before[0], 'nope'])).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(svc.moveCells(NB, ['nope'], 0)).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(svc.mergeCells(NB, [before[before.length - 1]])).rejects.toMatchObject({
      code: 'E_BAD_REQUEST',
      message: 'The last cell has no cell below to merge with',
    });
    await expect(svc.splitCell(NB, 'nope', [1])).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    expect((await cells(NB)).map((c) => c.id)).toEqual(before);
    expect((await svc.get(NB)).dirty).toBe(false);
  });
});

describe('an open that sends the first cells first', () => {
  it('answers with the first cells and serves the rest by range, the same cells a whole open holds', async () => {
    const whole = await svc.get(NB);
    const first = await svc.open(NB, { firstCells: 4 });
    expect(first.cells).toEqual(whole.cells.slice(0, 4));
    expect(first.pendingCells).toBe(whole.cells.length - 4);
    expect(whole.pendingCells).toBeUndefined();
    const rest = await svc.cells(NB, { from: 4, count: 100, rev: first.rev, diskHash: first.diskHash });
    expect(rest).toEqual({ cells: whole.cells.slice(4), stale: false });
    // Asking for more cells than there are answers with all of them; pendingCells is then 0.
    expect((await svc.open(NB, { firstCells: 1000 })).pendingCells).toBe(0);
  });

  it('says stale once the notebook changed after the document the caller holds', async () => {
    const first = await svc.open(NB, { firstCells: 2 });
    await svc.editCell(NB, first.cells[0].id, 'changed = 1');
    const rest = await svc.cells(NB, { from: 2, count: 3, rev: first.rev, diskHash: first.diskHash });
    expect(rest).toEqual({ cells: [], stale: true });
    const otherDisk = await svc.cells(NB, { from: 2, count: 3, rev: first.rev + 1, diskHash: 'not-the-disk' });
    expect(otherDisk.stale).toBe(true);
  });
});
