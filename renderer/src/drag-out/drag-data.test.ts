import { describe, expect, it } from 'vitest';
import {
  DOWNLOAD_URL_TYPE,
  TREE_PATHS_TYPE,
  insertSnippet,
  relativeToFile,
  workspaceRelativeOf,
  TreeDragInFlight,
  writeTreeDrag,
  type DragData,
} from './drag-data';

function fakeData(): DragData & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get types() {
      return [...map.keys()];
    },
    getData: (type) => map.get(type) ?? '',
    setData: (type, value) => void map.set(type, value),
  };
}

describe('tree drag data', () => {
  it('carries the paths for Kiln, as text for other apps, and one web-host entry as a DownloadURL', () => {
    const data = fakeData();
    const url = 'http://127.0.0.1:9/download?path=docs%2Fa%20b%3Ac.txt&ticket=t1';
    writeTreeDrag(data, { paths: ['docs/a b:c.txt'], downloadUrl: url, kind: 'file' });
    expect(new TreeDragInFlight().pathsOf(data)).toEqual(['docs/a b:c.txt']);
    expect(data.map.get('text/plain')).toBe('docs/a b:c.txt');
    expect(data.map.get(DOWNLOAD_URL_TYPE)).toBe(`application/octet-stream:a b_c.txt:${url}`);
  });

  it('downloads a folder as a zip; several entries, Electron or a drag without a ready ticket set no DownloadURL', () => {
    const folder = fakeData();
    writeTreeDrag(folder, { paths: ['src'], downloadUrl: 'http://h:1/download?path=src&ticket=t', kind: 'dir' });
    expect(folder.map.get(DOWNLOAD_URL_TYPE)).toBe('application/zip:src.zip:http://h:1/download?path=src&ticket=t');
    const many = fakeData();
    writeTreeDrag(many, { paths: ['a.txt', 'b/c.txt'], downloadUrl: 'http://h:1/download?path=a.txt&ticket=t' });
    expect(many.map.has(DOWNLOAD_URL_TYPE)).toBe(false);
    expect(many.map.get('text/plain')).toBe('a.txt\nb/c.txt');
    const electron = fakeData();
    writeTreeDrag(electron, { paths: ['a.txt'] });
    expect(electron.map.has(DOWNLOAD_URL_TYPE)).toBe(false);
  });

  it("takes the OS drag Electron made of the tree's rows as those rows, only while it is on", () => {
    const osDrag = fakeData();
    osDrag.setData('Files', '');
    const inFlight = new TreeDragInFlight();
    const otherWindow = new TreeDragInFlight();
    expect(inFlight.pathsOf(osDrag)).toBeNull();
    inFlight.begin(['src/a.py', 'b.txt']);
    expect(inFlight.pathsOf(osDrag)).toEqual(['src/a.py', 'b.txt']);
    // Another window's editors take the same drop as OS files: the rows are paths of this window's workspace.
    expect(otherWindow.pathsOf(osDrag)).toBeNull();
    inFlight.end();
    expect(inFlight.pathsOf(osDrag)).toBeNull();
  });

  it('reads only a well-formed tree drag', () => {
    const other = fakeData();
    other.setData('text/plain', 'x');
    expect(new TreeDragInFlight().pathsOf(other)).toBeNull();
    const broken = fakeData();
    broken.setData(TREE_PATHS_TYPE, '{"not":"a list"}');
    expect(new TreeDragInFlight().pathsOf(broken)).toBeNull();
  });

  it('makes paths relative to the open file as VS Code does', () => {
    expect(relativeToFile('src/app.py', 'src/util.py')).toBe('util.py');
    expect(relativeToFile('src/app.py', 'src/lib/x.py')).toBe('lib/x.py');
    expect(relativeToFile('src/deep/app.py', 'data/raw.csv')).toBe('../../data/raw.csv');
    expect(relativeToFile('README.md', 'docs/guide.md')).toBe('docs/guide.md');
    expect(relativeToFile('src/app.py', 'src')).toBe('.');
  });

  it('tells an OS path inside the workspace from one outside', () => {
    expect(workspaceRelativeOf('/home/op/ws', '/home/op/ws/src/a.py')).toBe('src/a.py');
    expect(workspaceRelativeOf('/home/op/ws/', '/home/op/ws')).toBe('');
    expect(workspaceRelativeOf('/home/op/ws', '/home/op/ws2/a.py')).toBeNull();
    expect(workspaceRelativeOf('/home/op/ws', '/home/op/ws/../x')).toBeNull();
    expect(workspaceRelativeOf('C:\\Users\\op\\ws', 'c:\\users\\op\\ws\\a.txt')).toBe('a.txt');
  });
});

describe('paths into a message', () => {
  it('sets the paths apart from the words around the caret', () => {
    expect(insertSnippet('', 0, 0, 'src/a.py')).toEqual({ text: 'src/a.py', caret: 8 });
    expect(insertSnippet('look at', 7, 7, 'src/a.py')).toEqual({ text: 'look at src/a.py', caret: 16 });
    expect(insertSnippet('look at please', 7, 7, 'a.py')).toEqual({ text: 'look at a.py please', caret: 12 });
    expect(insertSnippet('compare', 7, 7, 'a.py\nb.py').text).toBe('compare\na.py\nb.py');
    expect(insertSnippet('x SEL y', 2, 5, 'a.py').text).toBe('x a.py y');
  });
});
