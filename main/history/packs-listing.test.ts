import { readdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../../test-support/temp-workspace';
import { HistoryStore, type RecordRequest } from './store';

/** Every folder listed through `fs.promises.readdir`, by the store and by anything else in this file. */
const listed = vi.hoisted(() => [] as string[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = ((dir: string, ...rest: unknown[]) => {
    listed.push(String(dir));
    return (real.readdir as (...args: unknown[]) => unknown)(dir, ...rest);
  }) as typeof real.readdir;
  return { ...real, default: { ...real, readdir }, readdir };
});

let data: { dir: string; cleanup: () => Promise<void> };
const ROOT = '/work/some-workspace';

beforeEach(async () => {
  data = await makeTempDir('kiln-history-packs-listing-');
  listed.length = 0;
});
afterEach(() => data.cleanup());

const store = (limits: ConstructorParameters<typeof HistoryStore>[0]['limits'] = {}) =>
  new HistoryStore({ dataDir: data.dir, root: ROOT, limits });
const created = (rel: string, bytes = Buffer.alloc(0)): RecordRequest => ({
  path: rel,
  bytes,
  origin: 'agent',
  reason: 'create',
  agentSession: 's',
  turn: 'turn-1',
});
const save = (history: HistoryStore, rel: string, text: string) =>
  history.record({ path: rel, bytes: Buffer.from(text), origin: 'operator', reason: 'write' });
/** The packs folder as if its last change were an hour ago (a batch applied earlier, not in this clock tick). */
const ageFolder = async (dir: string) => {
  const hourAgo = new Date(Date.now() - 3600_000);
  await utimes(dir, hourAgo, hourAgo);
};

describe('HistoryStore packs index (listed when packs change, not on every save)', () => {
  it('lists the packs folder for no save after the first, and each save still sees the packed versions', async () => {
    const history = store({ maxEntriesPerFile: 4 });
    const packsDir = path.join(history.dir, 'packs');
    await history.recordCreations([created('a.txt'), created('b.txt', Buffer.from('b0'))]);
    await ageFolder(packsDir);
    await save(history, 'a.txt', 'a1');

    listed.length = 0;
    await save(history, 'a.txt', 'a2');
    // Same as the newest (packed) version: nothing recorded, and nothing listed to know it.
    expect(await save(history, 'b.txt', 'b0')).toBeNull();
    await save(history, 'a.txt', 'a3');
    expect(listed.filter((dir) => dir === packsDir)).toEqual([]);
    expect((await history.list('a.txt')).map((entry) => entry.reason)).toEqual(['write', 'write', 'write', 'create']);
    // The cap (4) counts the packed creation: it goes, through a drop file, and the index follows.
    await save(history, 'a.txt', 'a4');
    expect((await history.list('a.txt')).map((entry) => entry.reason)).toEqual(['write', 'write', 'write', 'write']);
    expect((await history.list('b.txt')).map((entry) => entry.reason)).toEqual(['create']);
  });

  it("sees another process's new pack and its eviction of one at the next read", async () => {
    const history = store();
    const other = store();
    const packsDir = path.join(history.dir, 'packs');
    await history.recordCreations([created('mine.txt', Buffer.from('m'))]);
    await ageFolder(packsDir);
    expect(await history.has('theirs.txt')).toBe(false);

    await other.recordCreations([created('theirs.txt', Buffer.from('t'))]);
    const [theirs] = await history.list('theirs.txt');
    expect((await history.read('theirs.txt', theirs.id)).bytes.toString()).toBe('t');
    // A save of the same content as their packed version is "nothing new" here too.
    expect(await save(history, 'theirs.txt', 't')).toBeNull();

    await ageFolder(packsDir);
    await history.list('mine.txt');
    await tightStore().prune();
    expect(await history.list('mine.txt')).toEqual([]);
    expect(await history.has('theirs.txt')).toBe(false);
    expect((await readdir(packsDir)).filter((name) => name.endsWith('.pack'))).toEqual([]);
  });

  it('lists a folder changed in the same clock tick as its last listing again on the next read', async () => {
    const history = store();
    await history.recordCreations([created('first.txt')]);
    expect(await history.has('first.txt')).toBe(true);
    const packsDir = path.join(history.dir, 'packs');
    const listingsBefore = listed.filter((dir) => dir === packsDir).length;
    // Just written: its mtime is too recent to prove a later change in the same tick would move it.
    await history.has('first.txt');
    expect(listed.filter((dir) => dir === packsDir).length).toBe(listingsBefore + 1);
  });
});

function tightStore(): HistoryStore {
  return store({ maxTotalBytes: 1 });
}
