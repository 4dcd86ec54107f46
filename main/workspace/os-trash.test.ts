import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { osTrash, trashInfo } from './os-trash';
import { makeTempTree } from '../../test-support/temp-workspace';
import { Workspace } from './workspace';

let root: string;
let trashHome: string;
let cleanup: () => Promise<void>;
let cleanupTrash: () => Promise<void>;
let ws: Workspace;
const savedDataHome = process.env.XDG_DATA_HOME;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({
    'src/app.py': 'print(1)\n',
    'notes/a b#1.txt': 'x\n',
    'other/src/app.py': 'print(2)\n',
  }));
  ({ root: trashHome, cleanup: cleanupTrash } = await makeTempTree());
  process.env.XDG_DATA_HOME = trashHome;
  ws = await Workspace.open({ root, trash: osTrash });
});

afterEach(async () => {
  process.env.XDG_DATA_HOME = savedDataHome;
  await cleanup();
  await cleanupTrash();
});

async function records(): Promise<Record<string, string>> {
  const info = path.join(trashHome, 'Trash', 'info');
  const names = await readdir(info);
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await readFile(path.join(info, name), 'utf8')] as const)),
  );
}

describe.runIf(process.platform === 'linux')('the OS trash', () => {
  it("records where a deleted entry lived, not Kiln's staging folder, so Restore puts it back there", async () => {
    expect(await ws.delete('src')).toEqual({ trashed: true });
    const info = await records();
    expect(Object.keys(info)).toEqual(['src.trashinfo']);
    expect(info['src.trashinfo']).toContain(`Path=${root}/src\n`);
    expect(await readFile(path.join(trashHome, 'Trash', 'files', 'src', 'app.py'), 'utf8')).toBe('print(1)\n');
    expect((await readdir(root)).filter((name) => name.startsWith('.kiln-'))).toEqual([]);
  });

  it('keeps both of two entries with one name, and escapes the recorded path', async () => {
    await ws.delete('src/app.py');
    await ws.delete('other/src/app.py');
    await ws.delete('notes/a b#1.txt');
    const info = await records();
    expect(Object.keys(info).sort()).toEqual(['a b#1.txt.trashinfo', 'app.py.2.trashinfo', 'app.py.trashinfo']);
    expect(info['app.py.trashinfo']).toContain(`Path=${root}/src/app.py\n`);
    expect(info['app.py.2.trashinfo']).toContain(`Path=${root}/other/src/app.py\n`);
    expect(info['a b#1.txt.trashinfo']).toContain(`Path=${root}/notes/a%20b%231.txt\n`);
    const files = path.join(trashHome, 'Trash', 'files');
    expect(await readFile(path.join(files, 'app.py'), 'utf8')).toBe('print(1)\n');
    expect(await readFile(path.join(files, 'app.py.2'), 'utf8')).toBe('print(2)\n');
  });

  it('writes the record the freedesktop.org spec asks for', () => {
    expect(trashInfo('/home/op/ws/a%b.txt', new Date(2026, 0, 2, 3, 4, 5))).toBe(
      '[Trash Info]\nPath=/home/op/ws/a%25b.txt\nDeletionDate=2026-01-02T03:04:05\n',
    );
  });
});
