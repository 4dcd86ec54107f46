/**
 * Hot exit for notebooks against main's real services: a dirty notebook is backed up from main's model, a
 * second run of the services on the same data folder reopens it dirty with the typed cells, and saving it
 * writes exactly the bytes the first run would have saved; a file changed since opens in the conflict state.
 */
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload, RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { MemoryStore } from '../../main/prefs';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { jupyterOneCellNotebook } from '../../test-support/notebook-doc';
import { until } from '../../test-support/until';

// Jupyter's own formatting with numbers JavaScript's JSON would rewrite (2.0, 1e+20): the restored notebook saves them as
// Python writes them.
const NOTEBOOK = `${jupyterOneCellNotebook('x = 1', ['"large": 1e+20', '"ratio": 2.0'])}\n`;

let root: string;
let dataDir: string;
let services: Services | null = null;

async function start(): Promise<Services> {
  services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  return services;
}

async function call<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
  const envelope = await dispatch(services!.handlers, channel, args);
  if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
  return envelope.value as RequestResult<C>;
}

const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');
const backups = async () => (await call('backup.list', {})).backups;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-nb-hot-exit-ws-')));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-nb-hot-exit-data-'));
  await fs.writeFile(path.join(root, 'analysis.ipynb'), NOTEBOOK);
});

afterEach(async () => {
  await services?.dispose();
  services = null;
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** A first run: the notebook opened and a cell typed in, until its backup is kept; then the run ends. */
async function typeAndStop(source: string): Promise<string> {
  await start();
  await call('notebook.open', { path: 'analysis.ipynb' });
  await call('notebook.editCell', { path: 'analysis.ipynb', cellId: 'c1', source });
  await until(async () => (await backups()).some((b) => b.text.includes(source.split('\n')[0])), 'the backup');
  const [backup] = await backups();
  await services!.dispose();
  services = null;
  return backup.text;
}

describe('notebook hot exit', () => {
  it('reopens a dirty notebook from its backup, and saving it writes the bytes the operator had', async () => {
    const kept = await typeAndStop('x = 1\ny = 2.50');
    expect(await read('analysis.ipynb')).toBe(NOTEBOOK);

    await start();
    const doc = await call('notebook.open', { path: 'analysis.ipynb' });
    expect(doc.dirty).toBe(true);
    expect(doc.cells[0].source).toBe('x = 1\ny = 2.50');
    expect(await read('analysis.ipynb')).toBe(NOTEBOOK);

    await call('notebook.save', { path: 'analysis.ipynb', force: false });
    const saved = await read('analysis.ipynb');
    expect(saved).toBe(kept);
    expect(saved).toContain('"large": 1e+20');
    expect(saved).toContain('"ratio": 2.0');
    await until(async () => (await backups()).length === 0, 'the backup dropped by the save');
  });

  it('opens in the conflict state when the file changed on disk since, writing nothing', async () => {
    await typeAndStop('mine = 1');
    const theirs = NOTEBOOK.replace('x = 1', 'theirs = 1');
    await fs.writeFile(path.join(root, 'analysis.ipynb'), theirs);

    const running = await start();
    const conflicts: Array<EventPayload<'notebook.conflict'>> = [];
    running.hub.onEvent((event) => {
      if (event.channel === 'notebook.conflict') conflicts.push(event.payload);
    });
    const doc = await call('notebook.open', { path: 'analysis.ipynb' });
    expect(doc.dirty).toBe(true);
    expect(doc.cells[0].source).toBe('mine = 1');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0].diskHash).not.toBeNull();
    await expect(call('notebook.save', { path: 'analysis.ipynb', force: false })).rejects.toMatchObject({
      code: 'E_CHANGED_ON_DISK',
    });
    expect(await read('analysis.ipynb')).toBe(theirs);
    // Closing it (don't save) drops the backup.
    await call('notebook.close', { path: 'analysis.ipynb' });
    await until(async () => (await backups()).length === 0, 'the backup dropped by the close');
  });
});
