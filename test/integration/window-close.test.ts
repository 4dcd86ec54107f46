/**
 * Closing the window with dirty tabs, main's side with the window's store (the Electron dialog itself is
 * policy.ts's, tested there): main knows the dirty tabs, Save All saves them and asks for the close,
 * Don't Save drops every backup so nothing comes back on the next start.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenFilesStore } from '../../renderer/src/editor/open-files';
import { HotExit } from '../../renderer/src/hot-exit/hot-exit';
import { followWindowClose } from '../../renderer/src/hot-exit/window-close';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

let running: RunningServices;
let files: OpenFilesStore;
let hotExit: HotExit;
let stop: () => void;

beforeEach(async () => {
  running = await startServices({ 'a.txt': 'one\n', 'b.txt': 'bee\n' });
  files = new OpenFilesStore(running.bridge);
  hotExit = new HotExit(running.bridge, files, 20);
  stop = followWindowClose(running.bridge, files);
});
afterEach(async () => {
  stop();
  hotExit.dispose();
  files.dispose();
  await running.close();
});

const backups = async () => (await running.bridge.request('backup.list', {})).backups;

describe('closing the window with dirty tabs', () => {
  it('main knows the dirty tabs; Save All saves each and then asks main to close', async () => {
    await files.open('a.txt');
    await files.open('b.txt');
    files.setBuffer('a.txt', 'one\ntyped\n');
    await until(() => running.services.windowClose.dirtyPaths.join() === 'a.txt', 'a.txt reported dirty');
    files.setBuffer('b.txt', 'bee\ntoo\n');
    await until(() => running.services.windowClose.dirtyPaths.join() === 'a.txt,b.txt', 'both reported dirty');

    let closeRequests = 0;
    running.services.windowClose.onCloseRequested(() => closeRequests++);
    running.services.hub.emit('window.saveAll', {});
    await until(() => closeRequests === 1, 'the close asked for');
    expect(await readFile(path.join(running.root, 'a.txt'), 'utf8')).toBe('one\ntyped\n');
    expect(await readFile(path.join(running.root, 'b.txt'), 'utf8')).toBe('bee\ntoo\n');
    await until(() => running.services.windowClose.dirtyPaths.length === 0, 'nothing dirty');
  });

  it("Don't Save drops every backup", async () => {
    await files.open('a.txt');
    files.setBuffer('a.txt', 'one\nthrown away\n');
    await until(async () => (await backups()).length === 1, 'a backup');
    await running.services.windowClose.dropBackups();
    expect(await backups()).toEqual([]);
    expect(await readFile(path.join(running.root, 'a.txt'), 'utf8')).toBe('one\n');
  });
});
