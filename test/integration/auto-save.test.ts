/**
 * Auto save against main's real services: it saves through the same path as Ctrl+S, so a change on disk it
 * has not seen is refused exactly as a manual save refuses it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OpenFilesStore } from '../../renderer/src/editor/open-files';
import { AutoSave } from '../../renderer/src/hot-exit/auto-save';
import { startServices, type RunningServices } from '../../test-support/services';
import { until, untilState } from '../../test-support/until';

let running: RunningServices;
let files: OpenFilesStore;
let autoSave: AutoSave;

beforeEach(async () => {
  running = await startServices({ 'a.txt': 'one\n', 'b.txt': 'bee\n' });
  files = new OpenFilesStore(running.bridge);
  autoSave = new AutoSave(files, 30);
});
afterEach(async () => {
  autoSave.dispose();
  files.dispose();
  await running.close();
});

const disk = (rel: string) => readFile(path.join(running.root, rel), 'utf8');

describe('auto save', () => {
  it('afterDelay saves a moment after the last change', async () => {
    autoSave.setMode('afterDelay');
    await files.open('a.txt');
    files.setBuffer('a.txt', 'one\ntwo\n');
    await until(async () => (await disk('a.txt')) === 'one\ntwo\n', 'the auto save');
    await untilState(files, (s) => s.files.every((f) => !f.dirty), 'a clean tab');
  });

  it('afterDelay waits for a pause in typing, though a key in a dirty tab leaves the state as it was', async () => {
    autoSave.dispose();
    autoSave = new AutoSave(files, 100);
    autoSave.setMode('afterDelay');
    await files.open('a.txt');
    const saves = vi.spyOn(files, 'save');
    // The editor reports keys without their text (markEdited) and hands the text over when asked.
    let held = '';
    const handOver = () => {
      files.editsHandedOver(handOver);
      files.setBuffer('a.txt', held);
    };
    // Only the timers: the save itself goes through main's real services once they are real again.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (const text of ['one\nt', 'one\nty', 'one\ntyp', 'one\ntype\n']) {
        held = text;
        files.markEdited('a.txt', true, handOver);
        vi.advanceTimersByTime(60);
      }
      expect(saves).not.toHaveBeenCalled();
      vi.advanceTimersByTime(40);
      expect(saves).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
    await until(async () => (await disk('a.txt')) === 'one\ntype\n', 'the save after the pause');
  });

  it('afterDelay never writes over a change on disk it has not shown', async () => {
    autoSave.setMode('afterDelay');
    await files.open('a.txt');
    await writeFile(path.join(running.root, 'a.txt'), 'theirs\n');
    files.setBuffer('a.txt', 'one\nmine\n');
    await untilState(files, (s) => s.files[0].conflict?.kind === 'changed', 'the conflict');
    expect(await disk('a.txt')).toBe('theirs\n');
    expect(files.get('a.txt')).toMatchObject({ dirty: true, buffer: 'one\nmine\n' });
  });

  it('onFocusChange saves the tab the operator leaves, and all on a window blur; off saves nothing', async () => {
    autoSave.setMode('onFocusChange');
    await files.open('a.txt');
    files.setBuffer('a.txt', 'one\nleft\n');
    await files.open('b.txt');
    await until(async () => (await disk('a.txt')) === 'one\nleft\n', 'the save on leaving the tab');
    files.setBuffer('b.txt', 'bee\nblurred\n');
    autoSave.windowBlurred();
    await until(async () => (await disk('b.txt')) === 'bee\nblurred\n', 'the save on blur');

    autoSave.setMode('off');
    files.setBuffer('b.txt', 'bee\nnot saved\n');
    autoSave.windowBlurred();
    files.activate('a.txt');
    expect(files.get('b.txt')?.dirty).toBe(true);
    expect(await disk('b.txt')).toBe('bee\nblurred\n');
  });
});
