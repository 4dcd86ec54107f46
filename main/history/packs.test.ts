import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test-support/temp-workspace';
import { closeLog, openLog } from '../log';
import { HistoryStore, type RecordRequest } from './store';

let data: { dir: string; cleanup: () => Promise<void> };
const ROOT = '/work/some-workspace';

beforeEach(async () => {
  data = await makeTempDir('kiln-history-packs-');
  openLog({ dir: path.join(data.dir, 'logs'), level: 'debug' });
});
afterEach(async () => {
  closeLog();
  await data.cleanup();
});

function store(limits: ConstructorParameters<typeof HistoryStore>[0]['limits'] = {}): HistoryStore {
  return new HistoryStore({ dataDir: data.dir, root: ROOT, limits });
}

function created(rel: string, bytes = Buffer.alloc(0), at?: number): RecordRequest {
  return { path: rel, bytes, origin: 'agent', reason: 'create', agentSession: 's', turn: 'turn-1', at };
}

const logText = () => readFile(path.join(data.dir, 'logs', 'kiln.log'), 'utf8');
const packsOf = async (history: HistoryStore) =>
  (await readdir(path.join(history.dir, 'packs'))).filter((name) => name.endsWith('.pack'));

describe('HistoryStore packs (a batch of versions in one file)', () => {
  it("keeps a batch's versions in one pack, each read back byte-exact, shown per file and under its turn", async () => {
    const history = store();
    const binary = Buffer.from([0, 255, 13, 10, 0xc3, 0xa9, 1]);
    await history.recordCreations([
      created('out/a.txt'),
      created('out/b.bin', binary),
      created('out/c.txt', Buffer.from('line\r\n\u00e9\n')),
    ]);
    // One file for the batch: no lineage folder per file.
    expect(await readdir(history.dir)).toEqual(['packs']);
    expect(await packsOf(history)).toHaveLength(1);
    for (const [rel, bytes] of [
      ['out/a.txt', Buffer.alloc(0)],
      ['out/b.bin', binary],
      ['out/c.txt', Buffer.from('line\r\n\u00e9\n')],
    ] as const) {
      expect(await history.has(rel)).toBe(true);
      const [entry] = await history.list(rel);
      expect([entry.reason, entry.turn, entry.path]).toEqual(['create', 'turn-1', rel]);
      expect((await history.read(rel, entry.id)).bytes.equals(bytes)).toBe(true);
    }
    expect((await history.entriesOfTurn('turn-1')).map(({ current }) => current).sort()).toEqual([
      'out/a.txt',
      'out/b.bin',
      'out/c.txt',
    ]);
    // Another process's store (nothing cached) reads the same.
    const [entry] = await store().list('out/b.bin');
    expect((await store().read('out/b.bin', entry.id)).bytes.equals(binary)).toBe(true);
  });

  it('merges a packed version with later saves, follows a folder move, and trims it with the per-file cap', async () => {
    const history = store({ maxEntriesPerFile: 2 });
    await history.recordCreations([created('out/a.txt'), created('out/b.txt', Buffer.from('b0'))]);
    await history.record({ path: 'out/a.txt', bytes: Buffer.from('a1'), origin: 'operator', reason: 'write' });
    expect((await history.list('out/a.txt')).map((entry) => entry.reason)).toEqual(['write', 'create']);

    await history.applyMove('out', 'moved', true);
    expect(await history.list('out/a.txt')).toEqual([]);
    expect(await history.has('out/b.txt')).toBe(false);
    expect((await history.list('moved/a.txt')).map((entry) => entry.reason)).toEqual(['write', 'create']);
    const [b] = await history.list('moved/b.txt');
    expect((await history.read('moved/b.txt', b.id)).bytes.toString()).toBe('b0');
    expect((await history.entriesOfTurn('turn-1')).map(({ current }) => current).sort()).toEqual([
      'moved/a.txt',
      'moved/b.txt',
    ]);
    // Every version left the pack: the pack is gone.
    expect(await packsOf(history)).toEqual([]);

    await history.recordCreations([created('c.txt')]);
    await history.record({ path: 'c.txt', bytes: Buffer.from('c1'), origin: 'operator', reason: 'write' });
    await history.record({ path: 'c.txt', bytes: Buffer.from('c2'), origin: 'operator', reason: 'write' });
    // The cap counts the packed version too: the oldest (the creation) goes.
    expect((await history.list('c.txt')).map((entry) => entry.reason)).toEqual(['write', 'write']);
  });

  it('refuses a half-written or damaged pack with a clear log, and loses nothing else', async () => {
    const history = store();
    await history.record({ path: 'kept.txt', bytes: Buffer.from('kept'), origin: 'operator', reason: 'write' });
    await history.recordCreations([created('whole.txt', Buffer.from('whole'))]);
    const [wholePack] = await packsOf(history);
    await history.recordCreations([created('half.txt', Buffer.from('half')), created('half2.txt')]);
    const halfPack = (await packsOf(history)).find((name) => name !== wholePack)!;
    const halfFile = path.join(history.dir, 'packs', halfPack);
    await truncate(halfFile, Math.floor((await stat(halfFile)).size / 2));
    await writeFile(path.join(history.dir, 'packs', '000000000000001-1-deadbeef.pack'), 'not a pack at all');

    const reader = store();
    expect(await reader.list('half.txt')).toEqual([]);
    expect(await reader.has('half2.txt')).toBe(false);
    expect(await reader.entriesOfTurn('turn-1')).toHaveLength(1);
    const [whole] = await reader.list('whole.txt');
    expect((await reader.read('whole.txt', whole.id)).bytes.toString()).toBe('whole');
    const [kept] = await reader.list('kept.txt');
    expect((await reader.read('kept.txt', kept.id)).bytes.toString()).toBe('kept');
    const log = await logText();
    expect(log).toContain('a history pack is refused: its content does not match its checksum');
    expect(log).toContain(halfPack);
    expect(log).toContain('a history pack is refused: it has no pack header');
    // Pruning never takes a refused pack away, even over the cap.
    const tight = store({ maxTotalBytes: 1 });
    await tight.prune();
    expect(await packsOf(tight)).toEqual(expect.arrayContaining([halfPack, '000000000000001-1-deadbeef.pack']));
  });

  it('prunes a pack whole when its oldest version is the oldest in history, and keeps the newer versions', async () => {
    const history = store({ maxTotalBytes: 4000 });
    const old = Date.now() - 60_000;
    await history.recordCreations(
      Array.from({ length: 20 }, (_, i) => created(`old/f${i}.txt`, Buffer.from(`old ${i}`), old + i)),
    );
    expect(await history.diskUse()).toBeGreaterThan(0);
    for (let i = 0; i < 6; i++) {
      await history.record({
        path: `new${i}.txt`,
        bytes: Buffer.from(`${i}`.repeat(2000)),
        origin: 'operator',
        reason: 'write',
      });
    }
    await history.prune();
    expect(await history.diskUse()).toBeLessThanOrEqual(4000);
    expect(await history.list('old/f0.txt')).toEqual([]);
    expect(await packsOf(history)).toEqual([]);
    expect(await history.list('new5.txt')).toHaveLength(1);
  });

  it("sweeps at start the staging folders and pack temp files a dead process's batch left, and no live one's", async () => {
    const history = store();
    const dead = spawnSync('true').pid!;
    const deadStaging = `${history.dir}.staging-${dead}-0a1b2c3d`;
    const liveStaging = `${history.dir}.staging-${process.pid}-0a1b2c3d`;
    await mkdir(path.join(deadStaging, '0'), { recursive: true });
    await writeFile(path.join(deadStaging, '0', 'x.json'), '{}');
    await mkdir(liveStaging, { recursive: true });
    const packs = path.join(history.dir, 'packs');
    await mkdir(packs, { recursive: true });
    const deadTemp = path.join(packs, `000000000000001-1-0a1b2c3d.pack.${dead}-0a1b2c3d.tmp`);
    await writeFile(deadTemp, 'kiln-history-pack 1 2 abc\n{');

    await history.sweepLeftovers();
    const parent = await readdir(path.dirname(history.dir));
    expect(parent).not.toContain(path.basename(deadStaging));
    expect(parent).toContain(path.basename(liveStaging));
    expect(await readdir(packs)).toEqual([]);
    const log = await logText();
    expect(log).toContain("swept a history batch's leftover");
    expect(log).toContain(deadStaging);
    expect(log).toContain(deadTemp);
  });
});
