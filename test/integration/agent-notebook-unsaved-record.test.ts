/**
 * The record of an Agent turn's unsaved notebook changes, end to end in main (a real Agent turn over real HTTP to the
 * scripted model, real NotebookService, real files, a real restart on the same data folder): kept across a restart
 * beside the hot-exit backup and dropped with it; a discard said to the window; the operator's edits between two
 * verbs not counted as the agent's; a clean notebook's unsaved change recorded under autosave `never`. Files are
 * compared with what nbformat itself writes.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload, RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply } from '../../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';
import { until } from '../../test-support/until';

let workspace: ScriptedAgentWorkspace;

const PATH = 'analysis.ipynb';
const c1: CellSpec = { id: 'c1', source: 'a = 1' };
const c2: CellSpec = { id: 'c2', type: 'markdown', source: '# Notes' };
const c3: CellSpec = { id: 'c3', source: 'b = 2' };
const [NOTEBOOK, MINE, AGENT] = nbformatWrites([
  { cells: [c1, c2, c3] },
  // The operator's edit of cell 1 alone.
  { cells: [{ ...c1, source: 'a = 100' }, c2, c3] },
  // The agent's edit of cell 3 alone.
  { cells: [c1, c2, { ...c3, source: 'b = 3' }] },
]);

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);
const read = () => fs.readFile(path.join(workspace.root, PATH), 'utf8');
const cellsOf = async (turn: string) =>
  (await call('history.turnNotebooks', { turn })).notebooks.map((nb) => ({
    path: nb.path,
    cells: nb.cells.map((cell) => [cell.cellId, cell.actions.join()]),
    unsaved: nb.unsaved,
  }));
const editThird = reply.tool('edit-notebook-cell', { notebook: PATH, cell_id: 'c3', source: 'b = 3' });

afterEach(() => workspace.close());

/** The operator edits cell 1 without saving; then the Agent edits cell 3 in its turn (unsaved, over the edit). */
async function agentEditsOverUnsavedEdit(): Promise<string> {
  workspace = await ScriptedAgentWorkspace.start({ [PATH]: NOTEBOOK });
  workspace.server.setReplies([editThird, reply.text('Done.')]);
  await call('notebook.open', { path: PATH });
  await call('notebook.editCell', { path: PATH, cellId: 'c1', source: 'a = 100' });
  const turn = (await call('agent.send', { text: 'Three.' })).runId;
  expect(await read()).toBe(NOTEBOOK);
  return turn;
}

describe("an Agent turn's unsaved notebook changes across a restart", () => {
  it('are listed, marked and undone after a restart that restores the notebook, and go with its backup', async () => {
    const turn = await agentEditsOverUnsavedEdit();
    await until(
      async () => (await call('backup.list', {})).backups.some((b) => b.path === PATH && b.text.includes('b = 3')),
      "the notebook's hot-exit backup",
    );
    await workspace.restart();

    // Hot exit restores the notebook's text, and the turn's record with it.
    const document = await call('notebook.open', { path: PATH });
    expect([document.dirty, document.cells.map((cell) => cell.source)]).toEqual([
      true,
      ['a = 100', '# Notes', 'b = 3'],
    ]);
    expect((await call('history.turn', { turn })).files).toEqual([{ path: PATH, change: 'changed' }]);
    expect(await cellsOf(turn)).toEqual([{ path: PATH, cells: [['c3', 'edited']], unsaved: 'open' }]);
    const marks = await call('history.notebookTurnsToReview', { path: PATH });
    expect(marks.turns.map((t) => [t.turn, t.notebook.cells.map((c) => c.cellId)])).toEqual([[turn, ['c3']]]);
    const { review } = await call('history.turnNotebookReview', { turn, path: PATH });
    expect([review.diff.changeIds, review.base[0]?.source]).toEqual([['cell:c3'], 'a = 100']);
    // Kept in Kiln's data folder, never in the workspace.
    const dataFiles = await fs.readdir(path.join(workspace.dataDir, 'backups'), { recursive: true });
    expect(dataFiles.filter((name) => name.endsWith('.agent-edits'))).toHaveLength(1);
    expect((await fs.readdir(workspace.root)).sort()).toEqual(['.kiln', PATH]);

    // Undone in the open notebook (what the window's Undo does), then saved: the operator's edit alone, exactly.
    await call('notebook.editCell', { path: PATH, cellId: 'c3', source: 'b = 2' });
    await call('history.decideTurnCells', { turn, path: PATH, changeIds: ['cell:c3'], decision: 'undone' });
    await call('notebook.save', { path: PATH, force: false });
    expect(await read()).toBe(MINE);

    // Saved: the backup went, and the record kept with it.
    await until(async () => (await call('backup.list', {})).backups.length === 0, 'the backup dropped by the save');
    const after = await fs.readdir(path.join(workspace.dataDir, 'backups'), { recursive: true });
    expect(after.filter((name) => name.endsWith('.agent-edits'))).toEqual([]);
  }, 120_000);

  it("Don't Save drops the record with the backup and tells the window the turn changed", async () => {
    const turn = await agentEditsOverUnsavedEdit();
    const said: Array<EventPayload<'history.turnNotebook'>> = [];
    workspace.services.hub.onEvent((event) => {
      if (event.channel === 'history.turnNotebook') said.push(event.payload);
    });
    await call('notebook.close', { path: PATH });
    await until(() => said.length > 0, 'the turn-change event');
    expect(said).toEqual([{ turn, path: PATH }]);
    expect(await cellsOf(turn)).toEqual([{ path: PATH, cells: [], unsaved: 'discarded' }]);
    await workspace.restart();
    expect(await cellsOf(turn)).toEqual([]);
  }, 120_000);
});

describe("an Agent turn's own changes, verb by verb", () => {
  it("does not count the operator's edit between a saved verb and an unsaved one as the agent's", async () => {
    workspace = await ScriptedAgentWorkspace.start({ [PATH]: NOTEBOOK });
    await call('notebook.open', { path: PATH });
    workspace.server.setResponder((_request, index) => {
      if (index === 0) return editThird;
      if (index > 1) return reply.text('Done.');
      // After the first verb (saved: the notebook was clean), the operator edits cell 1 and does not save.
      const operatorEdit = call('notebook.editCell', { path: PATH, cellId: 'c1', source: 'a = 100' });
      return {
        ...reply.tool('edit-notebook-cell', { notebook: PATH, cell_id: 'c2', source: '# Results' }),
        pause: { afterChunks: 1, until: operatorEdit },
      };
    });
    const turn = (await call('agent.send', { text: 'Three, and results.' })).runId;
    expect(await read()).toBe(AGENT);
    expect(await cellsOf(turn)).toEqual([
      {
        path: PATH,
        cells: [
          ['c2', 'edited'],
          ['c3', 'edited'],
        ],
        unsaved: 'open',
      },
    ]);
    // Saved by the operator, then the whole turn undone on disk: the operator's edit alone, as nbformat writes it.
    await call('notebook.save', { path: PATH, force: false });
    expect(await call('history.undoTurn', { turn })).toMatchObject({ restored: [PATH], conflicts: [] });
    expect(await read()).toBe(MINE);
  }, 120_000);

  it("records a clean notebook's change the verbs never save (autosave never)", async () => {
    workspace = await ScriptedAgentWorkspace.start({ [PATH]: NOTEBOOK }, { notebookVerbs: { autosave: 'never' } });
    workspace.server.setReplies([editThird, reply.text('Done.')]);
    await call('notebook.open', { path: PATH });
    const turn = (await call('agent.send', { text: 'Three.' })).runId;
    expect(await read()).toBe(NOTEBOOK);
    expect(await cellsOf(turn)).toEqual([{ path: PATH, cells: [['c3', 'edited']], unsaved: 'open' }]);
    expect((await call('history.turn', { turn })).files).toEqual([{ path: PATH, change: 'changed' }]);
    // The operator saves it; the turn's change is on disk now, and its undo gives the file back byte for byte.
    await call('notebook.save', { path: PATH, force: false });
    expect(await read()).toBe(AGENT);
    expect(await cellsOf(turn)).toEqual([{ path: PATH, cells: [['c3', 'edited']], unsaved: undefined }]);
    expect(await call('history.undoTurn', { turn })).toMatchObject({ restored: [PATH], conflicts: [] });
    expect(await read()).toBe(NOTEBOOK);
  }, 120_000);
});
