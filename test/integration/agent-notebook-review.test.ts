/**
 * An Agent turn's notebook edits reviewed cell by cell, end to end in main: a real Agent turn (the AI SDK over real
 * HTTP to the scripted model) edits two cells of a notebook and re-runs one on a real kernel; the operator edits
 * another cell afterwards; undoing one of the agent's cells gives back that cell with its old outputs and leaves
 * the other agent cell and the operator's edit exact; "Undo this turn" then undoes the rest and keeps the
 * operator's edit. Each file is compared with what nbformat itself writes for the expected notebook.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply, type ModelServer } from '../../test-support/model-server';
import { AGENT_TURN_NOTEBOOK, ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';
import { nbformatWithCellsFrom, nbformatWrites } from '../../test-support/nbformat-build';

let root: string;
let server: ModelServer;
let workspace: ScriptedAgentWorkspace;

const [NOTEBOOK] = nbformatWrites([AGENT_TURN_NOTEBOOK]);

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);

const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');

beforeEach(async () => {
  workspace = await ScriptedAgentWorkspace.start({ 'analysis.ipynb': NOTEBOOK });
  ({ root, server } = workspace);
});

afterEach(() => workspace.close());

describe("an Agent turn's notebook edits, cell by cell", () => {
  it('lists the cells, undoes one with its old outputs, keeps the rest exact; Undo this turn keeps later edits', async () => {
    server.setReplies([
      reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'a = 5' }),
      reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c2', source: 'print(a * 2)' }),
      reply.tool('rerun-notebook-cell', { notebook_name: 'analysis.ipynb', cell_id: 'c1' }),
      reply.tool('rerun-notebook-cell', { notebook_name: 'analysis.ipynb', cell_id: 'c2' }),
      reply.text('Done.'),
    ]);
    const outcome = await call('agent.send', { text: 'Double it.' });
    expect(outcome.status).toBe('completed');
    const turn = outcome.runId;
    const afterTurn = await read('analysis.ipynb');
    // The kernel really ran the agent's cell.
    expect(afterTurn).toContain('"10\\n"');

    const { notebooks } = await call('history.turnNotebooks', { turn });
    expect(notebooks.map((nb) => [nb.path, nb.cells.map((c) => [c.cellId, c.number, c.actions])])).toEqual([
      [
        'analysis.ipynb',
        [
          ['c1', 1, ['edited', 'ran']],
          ['c2', 2, ['edited', 'ran']],
        ],
      ],
    ]);

    // The operator edits the markdown cell afterwards and saves.
    await call('notebook.editCell', { path: 'analysis.ipynb', cellId: 'c3', source: '# Notes, by me' });
    await call('notebook.save', { path: 'analysis.ipynb', force: false });
    const withOperatorEdit = await read('analysis.ipynb');

    // The review shows only the turn's cells as changes, the operator's as unchanged.
    const { review } = await call('history.turnNotebookReview', { turn, path: 'analysis.ipynb' });
    expect(review.diff.changeIds.filter((id) => id !== 'notebook')).toEqual(['cell:c1', 'cell:c2']);
    expect(review.diff.cells.find((c) => c.changeId === 'cell:c3')?.status).toBe('unchanged');

    // Undo c2: its source and its old outputs come back; c1 stays the agent's, c3 the operator's.
    const after = await call('history.decideTurnCells', {
      turn,
      path: 'analysis.ipynb',
      changeIds: ['cell:c2'],
      decision: 'undone',
      write: true,
    });
    expect(after.cells.map((c) => c.cellId)).toEqual(['c1']);
    expect(after.decided).toEqual({ 'cell:c2': 'undone' });
    const undoneOne = await read('analysis.ipynb');
    expect(undoneOne).toBe(nbformatWithCellsFrom(withOperatorEdit, NOTEBOOK, ['c2']));
    expect(undoneOne).toContain('"print(a)"');
    expect(undoneOne).toContain('"1\\n"');
    expect(undoneOne).toContain('"a = 5"');
    // The cell undo is itself in local history: the Timeline can put the agent's cell back.
    const entries = (await call('history.list', { path: 'analysis.ipynb' })).entries;
    expect((await call('history.read', { path: 'analysis.ipynb', id: entries[0].id })).text).toBe(withOperatorEdit);

    // Keep c1: recorded, nothing written.
    const kept = await call('history.decideTurnCells', {
      turn,
      path: 'analysis.ipynb',
      changeIds: ['cell:c1'],
      decision: 'kept',
    });
    expect(kept.decided).toEqual({ 'cell:c1': 'kept', 'cell:c2': 'undone' });
    expect(await read('analysis.ipynb')).toBe(undoneOne);

    // Decisions outlive a restart: the reviewed cells are not offered again.
    await workspace.restart();
    const again = (await call('history.turnNotebooks', { turn })).notebooks;
    expect(again.map((nb) => nb.decided)).toEqual([{ 'cell:c1': 'kept', 'cell:c2': 'undone' }]);

    // Undo this turn: the file changed since the turn, yet the notebook is undone cell by cell, not left as a
    // conflict: c1 back as before the turn, the operator's c3 kept.
    const undone = await call('history.undoTurn', { turn });
    expect(undone.conflicts).toEqual([]);
    expect(undone.restored).toEqual(['analysis.ipynb']);
    const expected = nbformatWithCellsFrom(NOTEBOOK, withOperatorEdit, ['c3']);
    expect(await read('analysis.ipynb')).toBe(expected);
  }, 120_000);
});
