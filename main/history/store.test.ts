import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test-support/temp-workspace';
import { HistoryStore } from './store';

let data: { dir: string; cleanup: () => Promise<void> };
const ROOT = '/work/some-workspace';

beforeEach(async () => {
  data = await makeTempDir('kiln-history-');
});
afterEach(async () => {
  await data.cleanup();
});

function store(limits: ConstructorParameters<typeof HistoryStore>[0]['limits'] = {}): HistoryStore {
  return new HistoryStore({ dataDir: data.dir, root: ROOT, limits });
}

async function texts(history: HistoryStore, rel: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await history.list(rel)) out.push((await history.read(rel, entry.id)).bytes.toString());
  return out;
}

describe('HistoryStore', () => {
  it('keeps versions newest first, byte-exact, with who replaced them', async () => {
    const history = store();
    await history.record({ path: 'a.txt', bytes: Buffer.from('one'), origin: 'operator', reason: 'write' });
    await history.record({
      path: 'a.txt',
      bytes: Buffer.from('two\r\n\u00e9'),
      origin: 'agent',
      reason: 'write',
      agentSession: 'agent',
      turn: 'turn-1',
    });
    const entries = await history.list('a.txt');
    expect(entries.map((e) => [e.origin, e.turn])).toEqual([
      ['agent', 'turn-1'],
      ['operator', undefined],
    ]);
    expect(await texts(history, 'a.txt')).toEqual(['two\r\n\u00e9', 'one']);
    expect(await history.list('other.txt')).toEqual([]);
  });

  it('skips a version equal to the last one kept, and files over the size limit', async () => {
    const history = store({ maxFileBytes: 10 });
    expect(
      await history.record({ path: 'a', bytes: Buffer.from('same'), origin: 'operator', reason: 'write' }),
    ).not.toBeNull();
    expect(
      await history.record({ path: 'a', bytes: Buffer.from('same'), origin: 'external', reason: 'external' }),
    ).toBeNull();
    expect(
      await history.record({ path: 'b', bytes: Buffer.alloc(11), origin: 'operator', reason: 'write' }),
    ).toBeNull();
    expect(await history.list('a')).toHaveLength(1);
    expect(await history.list('b')).toHaveLength(0);
  });

  it('keeps at most maxEntriesPerFile versions of a file, evicting the oldest', async () => {
    const history = store({ maxEntriesPerFile: 3 });
    for (let i = 1; i <= 5; i++) {
      await history.record({ path: 'a', bytes: Buffer.from(`v${i}`), origin: 'operator', reason: 'write', at: i });
    }
    expect(await texts(history, 'a')).toEqual(['v5', 'v4', 'v3']);
  });

  it('evicts the oldest versions across files once the total size is over the cap', async () => {
    const history = store();
    const noise = (seed: number) =>
      Buffer.from(
        Array.from({ length: 4000 }, (_, i) => String.fromCharCode(33 + ((i * 7919 + seed * 104729) % 90))).join(''),
      );
    for (let i = 0; i < 6; i++) {
      await history.record({
        path: i % 2 ? 'odd' : 'even',
        bytes: noise(i),
        origin: 'operator',
        reason: 'write',
        at: 100 + i,
      });
    }
    const before = await history.diskUse();
    const capped = new HistoryStore({ dataDir: data.dir, root: ROOT, limits: { maxTotalBytes: before / 2 } });
    await capped.prune();
    expect(await capped.diskUse()).toBeLessThanOrEqual(before / 2);
    const kept = [...(await capped.list('even')), ...(await capped.list('odd'))].map((e) => e.at).sort();
    // What is left is the newest, whichever file it belongs to.
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual([100, 101, 102, 103, 104, 105].slice(6 - kept.length));
  });

  it('follows a file and a folder through moves, joining the history already at the target', async () => {
    const history = store();
    await history.record({ path: 'a.txt', bytes: Buffer.from('a1'), origin: 'operator', reason: 'write', at: 1 });
    await history.record({ path: 'dir/x.txt', bytes: Buffer.from('x1'), origin: 'operator', reason: 'write', at: 2 });
    await history.record({
      path: 'dir/sub/y.txt',
      bytes: Buffer.from('y1'),
      origin: 'operator',
      reason: 'write',
      at: 3,
    });
    await history.record({ path: 'b.txt', bytes: Buffer.from('b1'), origin: 'operator', reason: 'write', at: 4 });

    await history.applyMove('a.txt', 'renamed.txt', false);
    await history.applyMove('dir', 'moved/dir', true);
    expect(await history.list('a.txt')).toEqual([]);
    expect(await texts(history, 'renamed.txt')).toEqual(['a1']);
    expect(await texts(history, 'moved/dir/x.txt')).toEqual(['x1']);
    expect(await texts(history, 'moved/dir/sub/y.txt')).toEqual(['y1']);
    expect(await history.list('dir/x.txt')).toEqual([]);

    // A move over a file with history: both histories, in time order, under the target.
    await history.applyMove('renamed.txt', 'b.txt', false);
    expect(await texts(history, 'b.txt')).toEqual(['b1', 'a1']);
    // Identity lives on disk: a second store (another process) sees the same.
    expect(await texts(store(), 'moved/dir/sub/y.txt')).toEqual(['y1']);
  });

  it('finds the versions of one turn or batch across files', async () => {
    const history = store();
    await history.record({ path: 'a', bytes: Buffer.from('a0'), origin: 'agent', reason: 'write', turn: 't1' });
    await history.record({ path: 'b', bytes: Buffer.from('b0'), origin: 'mcp', reason: 'delete', batch: 'm1' });
    await history.record({ path: 'c', bytes: Buffer.from('c0'), origin: 'agent', reason: 'write', turn: 't1' });
    expect((await history.entriesOfTurn('t1')).map((e) => e.current)).toEqual(['a', 'c']);
    expect((await history.entriesOfTurn('m1')).map((e) => e.current)).toEqual(['b']);
  });

  it('is private to the owner: folders 0700, files 0600', async () => {
    const history = store();
    const entry = await history.record({
      path: 'a',
      bytes: Buffer.from('secret'),
      origin: 'operator',
      reason: 'write',
    });
    expect((await stat(history.dir)).mode & 0o777).toBe(0o700);
    const [folder] = await readdir(history.dir);
    expect((await stat(path.join(history.dir, folder))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(history.dir, folder, `${entry!.id}.gz`))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(history.dir, folder, `${entry!.id}.json`))).mode & 0o777).toBe(0o600);
  });
});

describe('HistoryStore with concurrent writers', () => {
  it('two stores in this process interleaving writes to the same files lose no entry', async () => {
    const app = store();
    const mcp = store();
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      const writer = i % 2 ? app : mcp;
      writes.push(
        writer.record({ path: `f${i % 3}`, bytes: Buffer.from(`version ${i}`), origin: 'operator', reason: 'write' }),
      );
    }
    await Promise.all(writes);
    const all = [...(await app.list('f0')), ...(await app.list('f1')), ...(await app.list('f2'))];
    expect(all).toHaveLength(40);
    for (const rel of ['f0', 'f1', 'f2']) {
      for (const entry of await mcp.list(rel)) {
        expect((await mcp.read(rel, entry.id)).bytes.toString()).toMatch(/^version \d+$/);
      }
    }
  });

  it('another process writing to the same history at the same time loses nothing and corrupts nothing', async () => {
    const app = store();
    // A real second process (as an MCP server is) running the same store code on the same history.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test-support/history-writer.ts', data.dir, ROOT, 'shared.txt', '40'],
      { stdio: 'inherit' },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    for (let i = 0; i < 40; i++) {
      await app.record({ path: 'shared.txt', bytes: Buffer.from(`app ${i}`), origin: 'operator', reason: 'write' });
    }
    expect(await exited).toBe(0);
    const big = new HistoryStore({ dataDir: data.dir, root: ROOT, limits: { maxEntriesPerFile: 1000 } });
    const entries = await big.list('shared.txt');
    // The app trims to 100 per file; with 80 in all, none is evicted.
    expect(entries).toHaveLength(80);
    const contents = new Set<string>();
    for (const entry of entries) contents.add((await big.read('shared.txt', entry.id)).bytes.toString());
    expect(contents.size).toBe(80);
  });
});
