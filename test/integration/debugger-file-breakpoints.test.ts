/**
 * Breakpoints in the workspace's .py files against main's real services: the renderer's debugger store sets them,
 * and they follow the file through main's change feed (renames and moves made in Kiln or by another program, a
 * delete), so nobody re-keys them by hand.
 */
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DebuggerStore } from '../../renderer/src/debugger/debugger-store';
import { startServices, type RunningServices } from '../../test-support/services';
import { untilState } from '../../test-support/until';

let running: RunningServices;
let store: DebuggerStore;

beforeEach(async () => {
  running = await startServices({
    'src/b.py': 'x = 1\ny = 2\n',
    'src/pkg/a.py': 'z = 3\n',
    'notes.md': 'not code\n',
  });
  store = new DebuggerStore(running.bridge);
  store.fileBreakpointsOf('src/b.py');
  await untilState(store, (s) => s.fileBreakpoints !== null, 'the files’ breakpoints fetched');
});
afterEach(async () => {
  store.dispose();
  await running.close();
});

const inMain = () => running.bridge.request('debugger.fileBreakpoints', {});

describe('breakpoints in .py files', () => {
  it('follow a rename and a folder move made in Kiln, and go with a file another program deletes', async () => {
    await store.toggleFileBreakpoint('src/b.py', 2);
    await store.toggleFileBreakpoint('src/pkg/a.py', 1);
    expect(await inMain()).toEqual({ 'src/b.py': [2], 'src/pkg/a.py': [1] });

    await running.bridge.request('workspace.move', { from: 'src/b.py', to: 'src/renamed.py' });
    await untilState(store, (s) => s.fileBreakpoints?.['src/renamed.py']?.[0] === 2, 'the rename carried');
    await running.bridge.request('workspace.move', { from: 'src/pkg', to: 'lib' });
    await untilState(store, (s) => s.fileBreakpoints?.['lib/a.py']?.[0] === 1, 'the folder move carried');
    expect(store.getState().fileBreakpoints).toEqual({ 'src/renamed.py': [2], 'lib/a.py': [1] });
    expect(await inMain()).toEqual({ 'src/renamed.py': [2], 'lib/a.py': [1] });

    await rm(path.join(running.root, 'src/renamed.py'));
    await untilState(store, (s) => !s.fileBreakpoints?.['src/renamed.py'], 'the deleted file’s breakpoints gone');
    expect(await inMain()).toEqual({ 'lib/a.py': [1] });
  });

  it('follow a rename and a move made by another program, as the real watcher reports them', async () => {
    // Neither file was opened: the watcher knows them because they hold breakpoints.
    await store.toggleFileBreakpoint('src/b.py', 2);
    await store.toggleFileBreakpoint('src/pkg/a.py', 1);
    await rename(path.join(running.root, 'src/b.py'), path.join(running.root, 'src/renamed.py'));
    await rename(path.join(running.root, 'src/pkg/a.py'), path.join(running.root, 'src/moved.py'));
    await untilState(
      store,
      (s) => s.fileBreakpoints?.['src/renamed.py']?.[0] === 2 && s.fileBreakpoints['src/moved.py']?.[0] === 1,
      'the rename and the move by another program carried',
    );
    expect(await inMain()).toEqual({ 'src/renamed.py': [2], 'src/moved.py': [1] });
    // Followed under the new name too.
    await rename(path.join(running.root, 'src/renamed.py'), path.join(running.root, 'again.py'));
    await untilState(store, (s) => s.fileBreakpoints?.['again.py']?.[0] === 2, 'the second rename carried');
    expect(await inMain()).toEqual({ 'again.py': [2], 'src/moved.py': [1] });
  });

  it('follow their folder renamed by another program, and the file renamed after it', async () => {
    await store.toggleFileBreakpoint('src/pkg/a.py', 1);
    await rename(path.join(running.root, 'src/pkg'), path.join(running.root, 'src/lib2'));
    await untilState(store, (s) => s.fileBreakpoints?.['src/lib2/a.py']?.[0] === 1, 'the folder rename carried');
    expect(await inMain()).toEqual({ 'src/lib2/a.py': [1] });
    // Still known at the new place: a rename of the file itself is followed from there.
    await rename(path.join(running.root, 'src/lib2/a.py'), path.join(running.root, 'src/lib2/b.py'));
    await untilState(store, (s) => s.fileBreakpoints?.['src/lib2/b.py']?.[0] === 1, 'the file rename after it');
    expect(await inMain()).toEqual({ 'src/lib2/b.py': [1] });
  });

  it('toggles a line off again, and refuses a file that is not Python', async () => {
    await store.toggleFileBreakpoint('src/b.py', 1);
    await store.toggleFileBreakpoint('src/b.py', 1);
    expect(await inMain()).toEqual({});
    await store.toggleFileBreakpoint('notes.md', 1);
    expect(store.getState().error).toMatch(/Python files/);
    await expect(
      running.bridge.request('debugger.setFileBreakpoints', { path: 'notes.md', lines: [1] }),
    ).rejects.toMatchObject({
      code: 'E_BAD_REQUEST',
    });
    expect(await inMain()).toEqual({});
  });
});
