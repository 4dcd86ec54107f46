import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MemoryStore } from './prefs';
import { findExecutable } from './process';
import { createServices } from './services';
import { makeTempTree } from '../test-support/temp-workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('shutdown stops every part, and a request that still arrives is told Kiln is shutting down', async () => {
  const { root, cleanup } = await makeTempTree({ 'a.txt': 'a\n' });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-services-data-'));
  cleanups.push(cleanup, () => rm(dataDir, { recursive: true, force: true }));
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  await services.watching();
  const { id } = await services.handlers['terminal.create']({ cols: 80, rows: 24 });
  expect(id).toBeTruthy();

  const first = services.dispose();
  // A second shutdown (a second signal, a window closing during quit) waits for the same one.
  expect(services.dispose()).toBe(first);
  await first;

  // Made last, gone first; made first (the verb stack), gone last: both answer as shut down.
  expect(() => services.handlers['terminal.create']({ cols: 80, rows: 24 })).toThrow(
    expect.objectContaining({ code: 'E_SHUTTING_DOWN' }),
  );
  await expect(services.handlers['verbs.call']({ verb: 'list-files', args: { path: '' } })).rejects.toMatchObject({
    code: 'E_SHUTTING_DOWN',
  });
});

it('reports the end of the watcher walk as an event, and watch.status says it is done', async () => {
  const { root, cleanup } = await makeTempTree({ 'a/b/c.txt': 'c\n', 'd/e.txt': 'e\n' });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-services-data-'));
  cleanups.push(cleanup, () => rm(dataDir, { recursive: true, force: true }));
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  cleanups.push(() => services.dispose());
  const walked = new Promise<unknown>((resolve) =>
    services.hub.onEvent((event) => {
      if (event.channel === 'watch.walked') resolve(event.payload);
    }),
  );
  // The walk may have ended while the services were being made; then the status says so, else the event does.
  if (!(await services.handlers['watch.status']({})).walked) {
    // Every folder, the root included, is watched by the time the walk is reported done.
    expect(await walked).toEqual({ watchedFolders: 4 });
  }
  expect(await services.handlers['watch.status']({})).toMatchObject({ walked: true, watchedFolders: 4 });
});

it.skipIf(!(await findExecutable('rg', process.env.PATH)))(
  'Find in Files finds a notebook another program wrote after the last search (its notebook list follows the feed)',
  async () => {
    const { root, cleanup } = await makeTempTree({ 'a.txt': 'needle\n', 'sub/keep.txt': 'x\n' });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-services-data-'));
    cleanups.push(cleanup, () => rm(dataDir, { recursive: true, force: true }));
    const services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
    cleanups.push(() => services.dispose());
    await services.watching();
    let n = 0;
    const searchFiles = async () => {
      const searchId = `s${++n}`;
      const files: string[] = [];
      const done = new Promise<void>((resolve) =>
        services.hub.onEvent((event) => {
          const payload = event.payload as { searchId?: string; files?: { path: string }[] };
          if (payload.searchId !== searchId) return;
          if (event.channel === 'search.results') files.push(...payload.files!.map((f) => f.path));
          if (event.channel === 'search.done') resolve();
        }),
      );
      await services.handlers['search.start']({
        searchId,
        pattern: 'needle',
        isRegex: false,
        matchCase: false,
        wholeWord: false,
        include: '',
        exclude: '',
        maxMatches: 100,
      });
      await done;
      return files.sort();
    };
    const seen = (type: string, rel: string) =>
      new Promise<void>((resolve) =>
        services.hub.onEvent((event) => {
          const change = event.payload as { type?: string; path?: string };
          if (event.channel === 'fs.change' && change.type === type && change.path === rel) resolve();
        }),
      );
    expect(await searchFiles()).toEqual(['a.txt']);
    expect(await searchFiles()).toEqual(['a.txt']);

    const created = seen('created', 'sub/found.ipynb');
    await writeFile(path.join(root, 'sub/found.ipynb'), notebookWith('needle'));
    await created;
    expect(await searchFiles()).toEqual(['a.txt', 'sub/found.ipynb']);
  },
);

function notebookWith(source: string): string {
  const cell = { cell_type: 'code', id: 'c1', metadata: {}, source, execution_count: null, outputs: [] };
  return JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 });
}
