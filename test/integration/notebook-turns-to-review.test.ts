/**
 * The marks of a notebook without the Agent panel: real Agent turns (the AI SDK over real HTTP to the scripted
 * model) edit cells of a notebook; main answers, from local history alone, which turns' cell changes to that
 * notebook are still to review, across a restart, leaving out what the operator kept or undid.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply, type ModelServer } from '../../test-support/model-server';
import { AGENT_TURN_NOTEBOOK, ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';
import { nbformatWrites } from '../../test-support/nbformat-build';

let root: string;
let server: ModelServer;
let workspace: ScriptedAgentWorkspace;

const [NOTEBOOK] = nbformatWrites([AGENT_TURN_NOTEBOOK]);

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);

beforeEach(async () => {
  workspace = await ScriptedAgentWorkspace.start({ 'analysis.ipynb': NOTEBOOK });
  ({ root, server } = workspace);
});

afterEach(() => workspace.close());

describe("a notebook's Agent changes still to review", () => {
  it('lists each unreviewed turn with its cells, none for a notebook no agent wrote, decisions left out after a restart', async () => {
    await fs.writeFile(path.join(root, 'plain.ipynb'), NOTEBOOK);
    server.setReplies([
      reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'a = 5' }),
      reply.text('Done.'),
    ]);
    const first = await call('agent.send', { text: 'Five.' });
    expect(first.status).toBe('completed');
    server.setReplies([
      reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c2', source: 'print(a * 2)' }),
      reply.text('Done.'),
    ]);
    const second = await call('agent.send', { text: 'Double it.' });
    expect(second.status).toBe('completed');

    const marks = async (rel: string) =>
      (await call('history.notebookTurnsToReview', { path: rel })).turns.map(({ turn, notebook }) => [
        turn,
        notebook.path,
        notebook.cells.map((c) => [c.cellId, c.actions]),
      ]);
    // Newest turn first; each lists only its own cells.
    expect(await marks('analysis.ipynb')).toEqual([
      [second.runId, 'analysis.ipynb', [['c2', ['edited']]]],
      [first.runId, 'analysis.ipynb', [['c1', ['edited']]]],
    ]);
    expect(await marks('plain.ipynb')).toEqual([]);
    expect(await marks('missing.ipynb')).toEqual([]);

    // The operator keeps the first turn's cell; after a restart only the second turn is still to review.
    await call('history.decideTurnCells', {
      turn: first.runId,
      path: 'analysis.ipynb',
      changeIds: ['cell:c1'],
      decision: 'kept',
    });
    await workspace.restart();
    expect(await marks('analysis.ipynb')).toEqual([[second.runId, 'analysis.ipynb', [['c2', ['edited']]]]]);

    // Another program puts the notebook back as before both turns: nothing of them stands, nothing is marked (not
    // the program's change counted as the second turn's, whose own version that write did not keep).
    await fs.writeFile(path.join(root, 'analysis.ipynb'), await fs.readFile(path.join(root, 'plain.ipynb'), 'utf8'));
    await expect.poll(() => marks('analysis.ipynb')).toEqual([]);
  }, 120_000);
});
