import { describe, expect, it } from 'vitest';
import { groupIncoming, incomingFromInput, renameIncoming, withRealPaths } from './incoming';
import { cancelledText, progressText, wantsMove } from './transfer-text';

const file = (name: string, size = 1, relativePath = '') => {
  const made = new File([new Uint8Array(size)], name);
  Object.defineProperty(made, 'webkitRelativePath', { value: relativePath });
  return made;
};

describe('incoming items', () => {
  it('groups files by their top-level name, folders with every level parents first, empty folders kept', () => {
    const a = file('a.txt');
    const deep = file('d.txt');
    const items = groupIncoming(
      [
        { rel: 'a.txt', file: a },
        { rel: 'pics/2024/may/d.txt', file: deep },
      ],
      ['empty', 'pics'],
    );
    expect(items.map((i) => [i.name, i.isDir, i.dirs, i.files.map((f) => f.rel)])).toEqual([
      ['empty', true, ['empty'], []],
      ['pics', true, ['pics', 'pics/2024', 'pics/2024/may'], ['pics/2024/may/d.txt']],
      ['a.txt', false, [], ['a.txt']],
    ]);
  });

  it('a folder chosen in a folder input keeps its structure from webkitRelativePath', () => {
    const items = incomingFromInput([file('x.py', 1, 'proj/src/x.py'), file('r.md', 1, 'proj/r.md')]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ name: 'proj', isDir: true, dirs: ['proj', 'proj/src'] });
  });

  it('in Electron a chosen folder is copied from its real path, found from a file inside it', () => {
    const items = groupIncoming([
      { rel: 'proj/src/x.py', file: file('x.py') },
      { rel: 'one.txt', file: file('one.txt') },
    ]);
    const real: Record<string, string> = { 'x.py': '/home/o/proj/src/x.py', 'one.txt': 'C:\\in\\one.txt' };
    expect(withRealPaths(items, (f) => real[f.name]).map((i) => i.source)).toEqual(['/home/o/proj', 'C:\\in\\one.txt']);
    // A file without a path (not on disk): all of them go the web way.
    expect(withRealPaths(items, (f) => (f.name === 'x.py' ? '' : real[f.name])).map((i) => i.source)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('Keep both re-roots every path under the new name', () => {
    const [item] = groupIncoming([{ rel: 'pics/a/b.png', file: file('b.png') }]);
    const renamed = renameIncoming(item, 'pics copy');
    expect(renamed.files[0].rel).toBe('pics copy/a/b.png');
    expect(renamed.dirs).toEqual(['pics copy', 'pics copy/a']);
  });
});

describe('words and decisions', () => {
  it('progress says files and bytes, a cancel says what stayed and what went', () => {
    expect(progressText({ filesDone: 1, filesTotal: 3, bytesDone: 1536, bytesTotal: 300 * 1024 * 1024 })).toBe(
      '1 of 3 files · 1.5 KB of 300 MB',
    );
    expect(progressText({ filesDone: 0, filesTotal: 1, bytesDone: 0, bytesTotal: 0 })).toBe('0 of 1 file');
    expect(cancelledText(2, 'big.bin')).toBe(
      'Upload cancelled. 2 whole files were kept; the partly written "big.bin" was removed.',
    );
    expect(cancelledText(0, null)).toBe('Upload cancelled. No file was written.');
  });

  it('the move modifier is Shift, Cmd on macOS', () => {
    expect(wantsMove({ shiftKey: true, metaKey: false }, false)).toBe(true);
    expect(wantsMove({ shiftKey: true, metaKey: false }, true)).toBe(false);
    expect(wantsMove({ shiftKey: false, metaKey: true }, true)).toBe(true);
  });
});
