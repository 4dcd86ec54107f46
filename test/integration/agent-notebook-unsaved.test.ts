/**
 * An Agent turn that edits a notebook open with the operator's unsaved edits, end to end in main (a real Agent turn
 * over real HTTP to the scripted model, a real NotebookService, real files): the verbs leave the change unsaved in
 * the open notebook, and the turn still lists the notebook with the agent's cell, marks it, reviews it against the
 * open notebook, and follows the operator's save (on disk: the turn's as any other) or discard (said to be gone).
 * Files are compared with what nbformat itself writes.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply } from '../../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';

let workspace: ScriptedAgentWorkspace;

const PATH = 'analysis.ipynb';
const c1: CellSpec = { id: 'c1', source: 'a = 1' };
const c2: CellSpec = { id: 'c2', type: 'markdown', source: '# Notes' };
const c3: CellSpec = { id: 'c3', source: 'b = 2' };
const [NOTEBOOK, MINE, MINE_AND_AGENT] = nbformatWrites([
  { cells: [c1, c2, c3] },
  // The operator's unsaved edit of cell 1 alone.
  { cells: [{ ...c1, source: 'a = 100' }, c2, c3] },
  { cells: [{ ...c1, source: 'a = 100' }, c2, { ...c3, source: 'b = 3' }] },
]);

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);
const read = () => fs.readFile(path.join(workspace.root, PATH), 'utf8');
/** The open notebook's cell sources and whether it has unsaved changes. */
const openNotebook = async () => {
  const document = await call('notebook.open', { path: PATH });
  return { sources: document.cells.map((cell) => cell.source), dirty: document.dirty };
};

beforeEach(async () => {
  workspace = await ScriptedAgentWorkspace.start({ [PATH]: NOTEBOOK });
  workspace.server.setReplies([
    reply.tool('edit-notebook-cell', { notebook: PATH, cell_id: 'c3', source: 'b = 3' }),
    reply.text('Done.'),
  ]);
});

afterEach(() => workspace.close());

/** The operator opens the notebook and edits cell 1 without saving; then the Agent edits cell 3 in its turn. */
async function agentEditsOverUnsavedEdit(): Promise<string> {
  await call('notebook.open', { path: PATH });
  await call('notebook.editCell', { path: PATH, cellId: 'c1', source: 'a = 100' });
  const turn = (await call('agent.send', { text: 'Three.' })).runId;
  // The verbs saved nothing: the operator's edit and the agent's are both only in the open notebook.
  expect(await read()).toBe(NOTEBOOK);
  expect(await openNotebook()).toEqual({ sources: ['a = 100', '# Notes', 'b = 3'], dirty: true });
  return turn;
}

describe('an Agent turn over a notebook with unsaved edits', () => {
  it("lists and marks the agent's cell, not the operator's, and reviews it against the open notebook", async () => {
    const turn = await agentEditsOverUnsavedEdit();
    expect((await call('history.turn', { turn })).files).toEqual([{ path: PATH, change: 'changed' }]);
    const cells = [{ changeId: 'cell:c3', cellId: 'c3', number: 3, actions: ['edited'] }];
    expect((await call('history.turnNotebooks', { turn })).notebooks).toEqual([
      { path: PATH, cells, notebookChanged: false, decided: {}, unsaved: 'open' },
    ]);
    const marks = await call('history.notebookTurnsToReview', { path: PATH });
    expect(marks.turns.map((t) => [t.turn, t.notebook.cells.map((c) => c.cellId)])).toEqual([[turn, ['c3']]]);
    const { review } = await call('history.turnNotebookReview', { turn, path: PATH });
    expect(review.unsaved.next).toBe(true);
    expect(review.diff.changeIds).toEqual(['cell:c3']);
    // The base side is the open notebook before the turn: the operator's unsaved edit is in it, not a change.
    expect(review.base[0]?.source).toBe('a = 100');
    // Main does not write over unsaved edits: the window undoes the cell in the open notebook.
    await expect(
      call('history.decideTurnCells', { turn, path: PATH, changeIds: ['cell:c3'], decision: 'undone', write: true }),
    ).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
  }, 60_000);

  it("undone in the open notebook: the operator's unsaved edit stays exact and the turn has nothing left", async () => {
    const turn = await agentEditsOverUnsavedEdit();
    // What the window's Undo does: the cell back as before the turn, as a notebook edit, then the decision.
    await call('notebook.editCell', { path: PATH, cellId: 'c3', source: 'b = 2' });
    const after = await call('history.decideTurnCells', {
      turn,
      path: PATH,
      changeIds: ['cell:c3'],
      decision: 'undone',
    });
    expect(after).toMatchObject({ cells: [], decided: { 'cell:c3': 'undone' }, unsaved: 'open' });
    expect((await call('history.notebookTurnsToReview', { path: PATH })).turns).toEqual([]);
    // "Undo this turn" then has nothing to write: the notebook counts as put back.
    const undone = await call('history.undoTurn', { turn });
    expect(undone).toMatchObject({ restored: [PATH], conflicts: [] });
    expect(await read()).toBe(NOTEBOOK);
    // Its redo has nothing in local history to put back: said so (the notebook's own undo brings the cell back).
    await expect(call('history.undoTurn', { turn: undone.undo })).rejects.toThrow(/undone in the open notebook/);
    // Saved now: the operator's edit exactly, the agent's cell as before the turn.
    await call('notebook.save', { path: PATH, force: false });
    expect(await read()).toBe(MINE);
  }, 60_000);

  it('"Undo this turn" leaves an open notebook\'s unsaved cells to the window, saying so', async () => {
    const turn = await agentEditsOverUnsavedEdit();
    const undone = await call('history.undoTurn', { turn });
    expect(undone.restored).toEqual([]);
    expect(undone.notUndone).toEqual([{ path: PATH, why: expect.stringMatching(/in the open notebook, unsaved/) }]);
    expect(await openNotebook()).toEqual({ sources: ['a = 100', '# Notes', 'b = 3'], dirty: true });
  }, 60_000);

  it("saved: the turn's cell is listed once, as on disk, and undone on disk with the operator's edit kept", async () => {
    const turn = await agentEditsOverUnsavedEdit();
    await call('notebook.save', { path: PATH, force: false });
    expect(await read()).toBe(MINE_AND_AGENT);
    const { notebooks } = await call('history.turnNotebooks', { turn });
    expect(notebooks).toEqual([
      {
        path: PATH,
        cells: [{ changeId: 'cell:c3', cellId: 'c3', number: 3, actions: ['edited'] }],
        notebookChanged: false,
        decided: {},
      },
    ]);
    expect((await call('history.turn', { turn })).files).toEqual([{ path: PATH, change: 'changed' }]);
    const undone = await call('history.undoTurn', { turn });
    expect(undone).toMatchObject({ restored: [PATH], conflicts: [] });
    expect(await read()).toBe(MINE);
  }, 60_000);

  it("discarded: the turn says the notebook's changes are gone, with no cells, marks or review", async () => {
    const turn = await agentEditsOverUnsavedEdit();
    await call('notebook.revert', { path: PATH });
    expect((await call('history.turnNotebooks', { turn })).notebooks).toEqual([
      { path: PATH, cells: [], notebookChanged: false, decided: {}, unsaved: 'discarded' },
    ]);
    expect((await call('history.notebookTurnsToReview', { path: PATH })).turns).toEqual([]);
    await expect(call('history.turnNotebookReview', { turn, path: PATH })).rejects.toThrow(/were discarded/);
    const undone = await call('history.undoTurn', { turn });
    expect(undone).toMatchObject({ restored: [PATH], conflicts: [] });
    expect(await read()).toBe(NOTEBOOK);
  }, 60_000);
});
