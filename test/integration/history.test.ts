/**
 * Local history end to end in main: the real service graph on a real workspace, every kind of write Kiln
 * makes, the Timeline's channels, and another program's change to an open file seen by the real watcher.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KilnBridge } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { withWriteCause } from '../../main/history';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

let running: RunningServices;
let bridge: KilnBridge;

beforeEach(async () => {
  running = await startServices(
    { 'a.txt': 'first\n', 'node_modules/pkg/index.js': 'x', 'notes/b.md': '# b\n' },
    { trash: async () => false },
  );
  bridge = running.bridge;
});
afterEach(async () => {
  await running.close();
});

async function versions(rel: string): Promise<Array<{ text: string | null; origin: string; reason: string }>> {
  const { entries } = await bridge.request('history.list', { path: rel });
  const out = [];
  for (const entry of entries) {
    const { text } = await bridge.request('history.read', { path: rel, id: entry.id });
    out.push({ text, origin: entry.origin, reason: entry.reason });
  }
  return out;
}

const disk = (rel: string) => readFile(path.join(running.root, rel), 'utf8');

describe('local history', () => {
  it('keeps what each save replaced; a restore writes it back, is itself kept, and refuses a changed file', async () => {
    const first = await bridge.request('workspace.read', { path: 'a.txt' });
    const second = await bridge.request('workspace.write', {
      path: 'a.txt',
      text: 'second\n',
      expectedHash: first.hash,
    });
    const third = await bridge.request('workspace.write', {
      path: 'a.txt',
      text: 'third\n',
      expectedHash: second.hash,
    });
    expect(await versions('a.txt')).toEqual([
      { text: 'second\n', origin: 'operator', reason: 'write' },
      { text: 'first\n', origin: 'operator', reason: 'write' },
    ]);

    const { entries } = await bridge.request('history.list', { path: 'a.txt' });
    const oldest = entries.at(-1)!;
    // The diff was shown against `second`; the file is `third` now: refused, nothing written.
    await expect(
      bridge.request('history.restore', { path: 'a.txt', id: oldest.id, expectedHash: second.hash }),
    ).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
    expect(await disk('a.txt')).toBe('third\n');

    await bridge.request('history.restore', { path: 'a.txt', id: oldest.id, expectedHash: third.hash });
    expect(await disk('a.txt')).toBe('first\n');
    // The restore kept what it replaced, so it can be undone.
    expect((await versions('a.txt'))[0]).toEqual({ text: 'third\n', origin: 'operator', reason: 'restore' });
  });

  it('keeps a deleted file and a file replaced by a move, and follows a rename', async () => {
    await bridge.request('workspace.write', { path: 'notes/b.md', text: '# b2\n' });
    await bridge.request('workspace.move', { from: 'notes', to: 'docs' });
    expect((await versions('docs/b.md')).map((v) => v.text)).toEqual(['# b\n']);
    expect(await versions('notes/b.md')).toEqual([]);

    await bridge.request('workspace.delete', { path: 'docs/b.md', permanent: true });
    expect((await versions('docs/b.md'))[0]).toEqual({ text: '# b2\n', origin: 'operator', reason: 'delete' });
    // Restore of a deleted file: only while it is still gone.
    const { entries } = await bridge.request('history.list', { path: 'docs/b.md' });
    await bridge.request('history.restore', { path: 'docs/b.md', id: entries[0].id, expectedHash: null });
    expect(await disk('docs/b.md')).toBe('# b2\n');

    await bridge.request('workspace.createFile', { path: 'c.txt', text: 'c\n' });
    await bridge.request('workspace.move', { from: 'c.txt', to: 'a.txt', onConflict: 'overwrite' });
    expect((await versions('a.txt')).map((v) => [v.text, v.reason])).toEqual([['first\n', 'delete']]);
  });

  it("records the agent's writes with their turn, and skips excluded folders", async () => {
    await withWriteCause({ agentSession: 'agent', turn: 'turn-7' }, () =>
      bridge.request('verbs.call', { verb: 'write-file', args: { path: 'a.txt', content: 'by agent\n' } }),
    );
    const [entry] = (await bridge.request('history.list', { path: 'a.txt' })).entries;
    expect(entry).toMatchObject({ origin: 'agent', turn: 'turn-7', agentSession: 'agent', reason: 'write' });

    await bridge.request('workspace.write', { path: 'node_modules/pkg/index.js', text: 'y' });
    expect(await versions('node_modules/pkg/index.js')).toEqual([]);
  });

  it('keeps the version another program wrote over a file the operator has open', async () => {
    await bridge.request('workspace.read', { path: 'a.txt' });
    await writeFile(path.join(running.root, 'a.txt'), 'from another program\n');
    const kept = await until(
      async () => (await versions('a.txt')).find((v) => v.origin === 'external'),
      'the outside change in history',
    );
    expect(kept).toEqual({ text: 'from another program\n', origin: 'external', reason: 'external' });
  });

  it('answers a version that is not there with E_NOT_FOUND', async () => {
    const failure = await bridge.request('history.read', { path: 'a.txt', id: '0-1-abc' }).catch((err) => err);
    expect(failure).toBeInstanceOf(KilnError);
    expect(failure.code).toBe('E_NOT_FOUND');
  });
});
