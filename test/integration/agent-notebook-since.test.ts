/**
 * An Agent turn's notebook edits reviewed after someone else changed the notebook, end to end in main (a real
 * Agent turn over real HTTP to the scripted model, real files, the real watcher): the operator's later edit of
 * the agent's cell is kept by a cell undo (three-way) or the undo is refused for that cell when both touched the
 * same lines; a notebook another program replaced after the turn is said to be so, not compared with the wrong
 * version. Files are compared with what nbformat itself writes.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply } from '../../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';

let workspace: ScriptedAgentWorkspace;

const c1: CellSpec = { id: 'c1', source: 'x = 1\ny = 2\nz = 3' };
const c2: CellSpec = { id: 'c2', type: 'markdown', source: '# Notes' };
const [NOTEBOOK, OPERATOR_UNDONE, BY_PROGRAM] = nbformatWrites([
  { cells: [c1, c2] },
  // The agent's first line back, the operator's last line kept.
  { cells: [{ ...c1, source: 'x = 1\ny = 2\nz = 30' }, c2] },
  {
    cells: [
      { ...c1, source: 'x = 10\ny = 2\nz = 3' },
      { ...c2, source: '# Notes, by a formatter' },
    ],
  },
]);

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);
const read = (rel: string) => fs.readFile(path.join(workspace.root, rel), 'utf8');

beforeEach(async () => {
  workspace = await ScriptedAgentWorkspace.start({ 'analysis.ipynb': NOTEBOOK });
  // The agent changes the cell's first line.
  workspace.server.setReplies([
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'x = 10\ny = 2\nz = 3' }),
    reply.text('Done.'),
  ]);
});

afterEach(() => workspace.close());

async function operatorEdits(source: string): Promise<string> {
  await call('notebook.editCell', { path: 'analysis.ipynb', cellId: 'c1', source });
  await call('notebook.save', { path: 'analysis.ipynb', force: false });
  return read('analysis.ipynb');
}

describe('an Agent turn reviewed after the notebook changed', () => {
  it("undoes the agent's lines of a cell the operator edited since and keeps the operator's", async () => {
    const turn = (await call('agent.send', { text: 'Ten.' })).runId;
    await operatorEdits('x = 10\ny = 2\nz = 30');
    const { notebook, undoAs } = await call('history.turnNotebookReview', { turn, path: 'analysis.ipynb' });
    expect(notebook.cells.map((c) => [c.changeId, c.undoRefused])).toEqual([['cell:c1', undefined]]);
    // The cell Undo puts back in an open notebook: the same three-way cell.
    expect(undoAs['cell:c1']?.source).toBe('x = 1\ny = 2\nz = 30');
    const after = await call('history.decideTurnCells', {
      turn,
      path: 'analysis.ipynb',
      changeIds: ['cell:c1'],
      decision: 'undone',
      write: true,
    });
    expect(after.decided).toEqual({ 'cell:c1': 'undone' });
    expect(await read('analysis.ipynb')).toBe(OPERATOR_UNDONE);
  }, 60_000);

  it('refuses to undo a cell whose lines the operator changed too, and loses nothing', async () => {
    const turn = (await call('agent.send', { text: 'Ten.' })).runId;
    const mine = await operatorEdits('x = 11\ny = 2\nz = 3');
    const { notebooks } = await call('history.turnNotebooks', { turn });
    expect(notebooks[0].cells[0].undoRefused).toBe('you edited lines the agent changed');
    const refused = call('history.decideTurnCells', {
      turn,
      path: 'analysis.ipynb',
      changeIds: ['cell:c1'],
      decision: 'undone',
      write: true,
    });
    await expect(refused).rejects.toMatchObject({ code: 'E_EDITED_SINCE' });
    await expect(refused).rejects.toThrow(/cell 1: you edited lines the agent changed/);
    expect(await read('analysis.ipynb')).toBe(mine);
    // Undo this turn leaves it to the operator too: a conflict, the file as it is.
    const undone = await call('history.undoTurn', { turn });
    expect(undone.conflicts.map((c) => c.path)).toEqual(['analysis.ipynb']);
    expect(await read('analysis.ipynb')).toBe(mine);
  }, 60_000);

  it('says a notebook another program replaced since cannot be compared, rather than taking its changes as the turn’s', async () => {
    const turn = (await call('agent.send', { text: 'Ten.' })).runId;
    await fs.writeFile(path.join(workspace.root, 'analysis.ipynb'), BY_PROGRAM);
    const { notebooks } = await call('history.turnNotebooks', { turn });
    expect(notebooks).toEqual([
      { path: 'analysis.ipynb', cells: [], notebookChanged: false, decided: {}, changedElsewhere: true },
    ]);
    await expect(call('history.turnNotebookReview', { turn, path: 'analysis.ipynb' })).rejects.toThrow(
      /changed since by another program/,
    );
  }, 60_000);
});
