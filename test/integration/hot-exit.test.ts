/**
 * Hot exit against main's real services: the open-files store and its backups on one window, then a new
 * window (a reload) on the same services restoring them; the disk changed meanwhile; a save dropping the backup.
 */
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KilnBridge, RequestArgs } from '../../shared/contract';
import { OpenFilesStore } from '../../renderer/src/editor/open-files';
import { HotExit } from '../../renderer/src/hot-exit/hot-exit';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

let running: RunningServices;
let bridge: KilnBridge;
const windows: Array<{ files: OpenFilesStore; hotExit: HotExit }> = [];

beforeEach(async () => {
  running = await startServices({ 'a.txt': 'one\n', 'b.txt': 'bee\n' });
  bridge = running.bridge;
});
afterEach(async () => {
  for (const { files, hotExit } of windows.splice(0)) {
    hotExit.dispose();
    files.dispose();
  }
  await running.close();
});

function openWindow(): { files: OpenFilesStore; hotExit: HotExit } {
  const files = new OpenFilesStore(bridge);
  const window = { files, hotExit: new HotExit(bridge, files, 20) };
  windows.push(window);
  return window;
}

const backups = async () => (await bridge.request('backup.list', {})).backups;
const disk = (rel: string) => readFile(path.join(running.root, rel), 'utf8');

describe('hot exit', () => {
  it('a backup waits for a pause in typing, though a key in a dirty tab leaves the state as it was', async () => {
    const first = openWindow();
    await first.files.open('a.txt');
    let held = '';
    const handOver = () => {
      first.files.editsHandedOver(handOver);
      first.files.setBuffer('a.txt', held);
    };
    // The backup's timer runs out into flushEdits (the keys the editor holds belong in it).
    const flushes = vi.spyOn(first.files, 'flushEdits');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (const text of ['one\nt', 'one\nty', 'one\ntyp', 'one\ntyped\n']) {
        held = text;
        first.files.markEdited('a.txt', true, handOver);
        vi.advanceTimersByTime(15);
      }
      expect(flushes).not.toHaveBeenCalled();
      vi.advanceTimersByTime(5);
      expect(flushes).toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
    await until(async () => (await backups()).some((b) => b.text === 'one\ntyped\n'), 'the backup after the pause');
  });

  it('backs up dirty buffers after typing stops and restores them dirty in the next window, disk untouched', async () => {
    const first = openWindow();
    await first.files.open('a.txt');
    await first.files.open('b.txt');
    first.files.setBuffer('a.txt', 'one\ntyped\n');
    first.files.setBuffer('b.txt', 'bee\nalso\n');
    await until(async () => (await backups()).length === 2, 'two backups');

    const second = openWindow();
    expect(await second.hotExit.restore()).toBe(2);
    expect(second.files.get('a.txt')).toMatchObject({ buffer: 'one\ntyped\n', dirty: true, conflict: null });
    expect(second.files.get('b.txt')).toMatchObject({ buffer: 'bee\nalso\n', dirty: true, conflict: null });
    expect(await disk('a.txt')).toBe('one\n');

    // Saving drops the backup; the other stays.
    await second.files.save('a.txt');
    await until(async () => (await backups()).map((b) => b.path).join() === 'b.txt', 'only b backed up');
    // Reverting (reload) drops it too.
    await second.files.reload('b.txt');
    await until(async () => (await backups()).length === 0, 'no backups');
  });

  it('opens a backup whose file changed on disk in the conflict state, and lists one whose file is gone as recovered', async () => {
    const first = openWindow();
    await first.files.open('a.txt');
    await first.files.open('b.txt');
    first.files.setBuffer('a.txt', 'one\nmine\n');
    first.files.setBuffer('b.txt', 'bee\nmine\n');
    await until(async () => (await backups()).length === 2, 'two backups');
    first.hotExit.dispose();
    first.files.dispose();
    windows.shift();

    await writeFile(path.join(running.root, 'a.txt'), 'one\ntheirs\n');
    await unlink(path.join(running.root, 'b.txt'));
    const second = openWindow();
    expect(await second.hotExit.restore()).toBe(1);
    expect(second.files.get('a.txt')).toMatchObject({
      buffer: 'one\nmine\n',
      dirty: true,
      conflict: { kind: 'changed', diskText: 'one\ntheirs\n' },
    });
    // The deleted file's text waits in "Recovered files"; opened from there, it is a dirty tab marked deleted.
    expect(second.files.get('b.txt')).toBeUndefined();
    expect(second.hotExit.recovered.map((b) => [b.path, b.text])).toEqual([['b.txt', 'bee\nmine\n']]);
    await second.files.restoreUnsaved('b.txt', 'bee\nmine\n', second.hotExit.recovered[0].baseHash);
    expect(second.files.get('b.txt')).toMatchObject({
      buffer: 'bee\nmine\n',
      dirty: true,
      conflict: { kind: 'deleted' },
    });
    // Nothing was written, and Save refuses over the change it has not shown.
    expect(await disk('a.txt')).toBe('one\ntheirs\n');
    await expect(second.files.save('a.txt')).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
  });

  it('typing in a 5 MB file sends each backup as a small edit, and the backup stays exact', async () => {
    const big = Array.from({ length: 240_000 }, (_, i) => `row ${i}: value ${(i * 7919) % 10007}\n`).join('');
    expect(big.length).toBeGreaterThan(5_000_000);
    await writeFile(path.join(running.root, 'big.txt'), big);
    // What crosses the window's wire for backups: the bytes of each request's frame.
    const frames: number[] = [];
    const watched: KilnBridge = {
      ...bridge,
      request: ((channel: 'backup.save', args: RequestArgs<'backup.save'>) => {
        if (channel === 'backup.save' || (channel as string) === 'backup.patch')
          frames.push(JSON.stringify(args).length);
        return bridge.request(channel, args);
      }) as KilnBridge['request'],
    };
    const files = new OpenFilesStore(watched);
    const hotExit = new HotExit(watched, files, 20);
    windows.push({ files, hotExit });
    await files.open('big.txt');
    const backedUp = async (text: string) => (await backups()).some((b) => b.path === 'big.txt' && b.text === text);
    let buffer = big;
    for (const at of [1000, 2_000_000, big.length]) {
      buffer = `${buffer.slice(0, at)}typed${buffer.slice(at)}`;
      files.setBuffer('big.txt', buffer);
      const expected = buffer;
      await until(() => backedUp(expected), `the backup with an edit at ${at}`);
    }
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...frames)).toBeLessThan(1024);

    // Main lost its base (the backup went behind the window's back): the next one goes whole, and is exact.
    await bridge.request('backup.discard', { path: 'big.txt' });
    buffer = `${buffer}more`;
    files.setBuffer('big.txt', buffer);
    const last = buffer;
    await until(() => backedUp(last), 'the whole backup');
    expect(Math.max(...frames)).toBeGreaterThan(big.length);
    const next = openWindow();
    expect(await next.hotExit.restore()).toBe(1);
    expect(next.files.get('big.txt')?.buffer === last).toBe(true);
    expect((await disk('big.txt')) === big).toBe(true);
  });

  it('a backup follows its file through a rename made in Kiln', async () => {
    const first = openWindow();
    await first.files.open('a.txt');
    first.files.setBuffer('a.txt', 'one\nmoving\n');
    await until(async () => (await backups()).length === 1, 'a backup');
    await bridge.request('workspace.move', { from: 'a.txt', to: 'renamed.txt' });
    await until(
      async () => (await backups()).map((b) => [b.path, b.text]).join() === 'renamed.txt,one\nmoving\n',
      'the backup under the new name',
    );
  });
});
