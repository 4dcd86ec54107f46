/**
 * A notebook tab's session against main's real services and real files, through a bridge that hands
 * main's events to the window as a socket does: in order with the answers, so possibly after main has
 * already acted on them.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { KilnBridge } from '../../shared/contract';
import { NotebookSession } from '../../renderer/src/notebook/notebook-session';
import { startServices, type RunningServices } from '../../test-support/services';

let running: RunningServices;

const notebook = (source: string) =>
  JSON.stringify({
    cells: [{ cell_type: 'code', id: 'cell-1', metadata: {}, source, execution_count: null, outputs: [] }],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  });

/** Events wait until the next answer to a request made through this bridge, and arrive just ahead of it. */
function eventsAheadOfAnswers(inner: KilnBridge): KilnBridge {
  const waiting: (() => void)[] = [];
  return {
    transport: inner.transport,
    async request(channel, args) {
      try {
        return await inner.request(channel, args);
      } finally {
        for (const deliver of waiting.splice(0)) deliver();
      }
    },
    on(channel, listener) {
      return inner.on(channel, (payload) => waiting.push(() => listener(payload)));
    },
  };
}

const cellSources = async (file: string) =>
  (JSON.parse(await readFile(path.join(running.root, file), 'utf8')) as { cells: { source: string[] }[] }).cells.map(
    (c) => c.source.join(''),
  );

beforeEach(async () => {
  // The session paints streamed state once per frame; Node has no frames.
  vi.stubGlobal('requestAnimationFrame', (paint: () => void) => setTimeout(paint, 0));
  vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
  running = await startServices({ 'notes.ipynb': notebook('a = 1') });
});

afterEach(async () => {
  await running.close();
  vi.unstubAllGlobals();
});

it('a typed edit sent just after Kiln renamed the notebook follows it there, and Save writes it', async () => {
  const session = new NotebookSession(eventsAheadOfAnswers(running.bridge), 'notes.ipynb');
  await session.load();
  session.editSource('cell-1', 'a = 2');
  // The rename lands in main while the edit is still waiting to be sent, and before the window hears of it.
  await running.bridge.request('workspace.move', { from: 'notes.ipynb', to: 'renamed.ipynb' });

  await session.save();

  expect(session.path).toBe('renamed.ipynb');
  expect(session.getState()).toMatchObject({ dirty: false, jupyterError: null });
  expect(await cellSources('renamed.ipynb')).toEqual(['a = 2']);
  session.dispose();
});
