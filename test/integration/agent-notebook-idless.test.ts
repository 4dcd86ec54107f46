/**
 * An Agent turn on a notebook without cell ids (nbformat 4.4), end to end in main (a real Agent turn over real HTTP
 * to the scripted model, real files): the agent's write changes the cells it changed and nothing else (the file
 * stays 4.4, no ids written, every other byte nbformat's); its cells are listed by position; undoing one cell
 * gives nbformat's own write of the expected 4.4 notebook; the operator's own save upgrades to 4.5 as JupyterLab.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply } from '../../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';

let workspace: ScriptedAgentWorkspace;

const cells: CellSpec[] = [
  { source: 'a = 1' },
  { source: 'b = 2', execution_count: 1, outputs: [{ output_type: 'stream', name: 'stdout', text: '2\n' }] },
  { type: 'markdown', source: '# Notes' },
];
const [NOTEBOOK, AFTER_TURN, EDIT_UNDONE] = nbformatWrites([
  { minor: 4, cells },
  // The agent edits cell 2 (outputs kept) and appends a cell.
  { minor: 4, cells: [cells[0], { ...cells[1], source: 'b = 20' }, cells[2], { source: 'd = 4' }] },
  { minor: 4, cells: [...cells, { source: 'd = 4' }] },
]);

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);
const read = (rel: string) => fs.readFile(path.join(workspace.root, rel), 'utf8');

beforeEach(async () => {
  workspace = await ScriptedAgentWorkspace.start({ 'old.ipynb': NOTEBOOK });
});

afterEach(() => workspace.close());

/**
 * The turn of every test here: the agent edits cell 2 ("b = 20") and appends "d = 4", addressing cells by the ids
 * Kiln gave them in memory (what its notebook listing shows). Returns those ids and the turn.
 */
async function editSecondAndAppend(): Promise<{ ids: string[]; turn: string }> {
  const ids = (await call('notebook.open', { path: 'old.ipynb' })).cells.map((cell) => cell.id);
  workspace.server.setReplies([
    reply.tool('edit-notebook-cell', { notebook: 'old.ipynb', cell_id: ids[1], source: 'b = 20' }),
    reply.tool('append-notebook-cell', { notebook_name: 'old.ipynb', source: 'd = 4' }),
    reply.text('Done.'),
  ]);
  return { ids, turn: (await call('agent.send', { text: 'Twenty, and d.' })).runId };
}

describe('an Agent turn on a notebook without cell ids (nbformat 4.4)', () => {
  it('writes only the cells it changed, lists them by position, and undoes one cell byte-exact', async () => {
    const { turn } = await editSecondAndAppend();
    expect(await read('old.ipynb')).toBe(AFTER_TURN);

    const { notebooks } = await call('history.turnNotebooks', { turn });
    expect(notebooks.map((nb) => [nb.notebookChanged, nb.cells.map((c) => [c.cellId, c.number, c.actions])])).toEqual([
      [
        false,
        [
          [null, 2, ['edited']],
          [null, 4, ['added']],
        ],
      ],
    ]);
    const [edited, added] = notebooks[0].cells;

    const after = await call('history.decideTurnCells', {
      turn,
      path: 'old.ipynb',
      changeIds: [edited.changeId],
      decision: 'undone',
      write: true,
    });
    expect(await read('old.ipynb')).toBe(EDIT_UNDONE);
    await call('history.decideTurnCells', { turn, path: 'old.ipynb', changeIds: [added.changeId], decision: 'kept' });
    expect(after.cells.map((c) => c.number)).toEqual([4]);
    expect(await read('old.ipynb')).toBe(EDIT_UNDONE);

    // The operator's own save still writes 4.5 with the ids (as JupyterLab saves); main's write was re-read, so the
    // open notebook's ids are new ones.
    const idsNow = (await call('notebook.open', { path: 'old.ipynb' })).cells.map((cell) => cell.id);
    await call('notebook.editCell', { path: 'old.ipynb', cellId: idsNow[0], source: 'a = 10' });
    await call('notebook.save', { path: 'old.ipynb', force: false });
    const saved = JSON.parse(await read('old.ipynb')) as { nbformat_minor: number; cells: { id: string }[] };
    expect([saved.nbformat_minor, saved.cells.map((cell) => cell.id)]).toEqual([5, idsNow]);
  });

  it("lists the turn's cells the same over the operator's unsaved edits, none of them refused", async () => {
    const { ids, turn } = await editSecondAndAppend();
    const listed = async () =>
      (await call('history.turnNotebooks', { turn })).notebooks[0].cells.map((c) => [c.changeId, c.undoRefused]);
    const clean = await listed();
    // Unsaved in the open notebook (whose cells have ids in memory): the same changes, the added cell not "edited".
    await call('notebook.editCell', { path: 'old.ipynb', cellId: ids[0], source: 'a = 10' });
    expect(await listed()).toEqual(clean);
    expect(clean.map(([, refused]) => refused)).toEqual([undefined, undefined]);
  });
});

describe("Keep decisions on a 4.4 notebook's cells", () => {
  it('survive the operator saving it as 4.5 (ids written): a kept added cell is not offered again', async () => {
    const { turn } = await editSecondAndAppend();
    const [edited, added] = (await call('history.turnNotebooks', { turn })).notebooks[0].cells;
    expect(added.changeId).toBe('added:n3');
    for (const cell of [edited, added])
      await call('history.decideTurnCells', { turn, path: 'old.ipynb', changeIds: [cell.changeId], decision: 'kept' });
    expect((await call('history.notebookTurnsToReview', { path: 'old.ipynb' })).turns).toEqual([]);

    // The operator edits cell 1 and saves: the file is 4.5 now, every cell with an id.
    const idsNow = (await call('notebook.open', { path: 'old.ipynb' })).cells.map((cell) => cell.id);
    await call('notebook.editCell', { path: 'old.ipynb', cellId: idsNow[0], source: 'a = 10' });
    await call('notebook.save', { path: 'old.ipynb', force: false });
    expect((JSON.parse(await read('old.ipynb')) as { nbformat_minor: number }).nbformat_minor).toBe(5);

    const [notebook] = (await call('history.turnNotebooks', { turn })).notebooks;
    // The added cell's change has its id now; both decisions still hold, and nothing is offered for review again.
    expect(notebook.cells.map((cell) => [cell.changeId, notebook.decided[cell.changeId]])).toEqual([
      [edited.changeId, 'kept'],
      [`added:${idsNow[3]}`, 'kept'],
    ]);
    expect((await call('history.notebookTurnsToReview', { path: 'old.ipynb' })).turns).toEqual([]);
  });
});
