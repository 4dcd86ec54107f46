/**
 * The marks of a notebook without the Agent panel: real Agent turns (the AI SDK over real HTTP to the scripted
 * model) edit cells of a notebook; main answers, from local history alone, which turns' cell changes to that
 * notebook are still to review, across a restart, leaving out what the operator kept or undid.
 */
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { MemoryStore } from '../../main/prefs';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { trustFolder } from '../../main/trust';
import { ModelServer, reply } from '../../test-support/model-server';
import { nbformatWrites } from '../../test-support/nbformat-build';

let root: string;
let dataDir: string;
let server: ModelServer;
let services: Services | null = null;

const [NOTEBOOK] = nbformatWrites([
  {
    metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
    cells: [
      { id: 'c1', source: 'a = 1' },
      {
        id: 'c2',
        source: 'print(a)',
        execution_count: 1,
        outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
      },
      { id: 'c3', type: 'markdown', source: '# Notes' },
    ],
  },
]);

async function call<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
  const envelope = await dispatch(services!.handlers, channel, args);
  if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
  return envelope.value as RequestResult<C>;
}

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-nbmarks-ws-')));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-nbmarks-data-'));
  server = await ModelServer.start({ models: ['scripted-model'] });
  await fs.mkdir(path.join(root, '.kiln'));
  await fs.writeFile(
    path.join(root, '.kiln/config.yaml'),
    `models:\n  scripted:\n    provider: openai-compatible\n    base_url: ${server.url}\n    model: scripted-model\nagent:\n  model: scripted\n`,
  );
  await fs.writeFile(path.join(root, 'analysis.ipynb'), NOTEBOOK);
  await trustFolder(dataDir, root);
  services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  await services.watching();
});

afterEach(async () => {
  await services?.dispose();
  services = null;
  await server.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

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
    await services!.dispose();
    services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
    await services.watching();
    expect(await marks('analysis.ipynb')).toEqual([[second.runId, 'analysis.ipynb', [['c2', ['edited']]]]]);

    // Another program puts the notebook back as before both turns: nothing of them stands, nothing is marked (not
    // the program's change counted as the second turn's, whose own version that write did not keep).
    await fs.writeFile(path.join(root, 'analysis.ipynb'), await fs.readFile(path.join(root, 'plain.ipynb'), 'utf8'));
    await expect.poll(() => marks('analysis.ipynb')).toEqual([]);
  }, 120_000);
});
