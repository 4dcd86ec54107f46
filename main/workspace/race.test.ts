import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch, type Handlers } from '../router';
import { workspaceHandlers } from './handlers';
import { makeTempTree } from '../../test-support/temp-workspace';
import { Workspace } from './workspace';

// Swaps `x` between a real folder inside the workspace and a symbolic link to a folder outside, as fast
// as it can, so the guard's check and the operation keep landing on different sides of a swap.
const SWAPPER = String.raw`
import os, sys
root = sys.argv[1]
x, d, l = (os.path.join(root, n) for n in ("x", "x-dir", "x-link"))
print("ready", flush=True)
while True:
    for a, b in ((d, x), (x, d), (l, x), (x, l)):
        try:
            os.rename(a, b)
        except OSError:
            pass
`;

const OUTSIDE_TEXT = 'OUTSIDE CANARY';

let root: string;
let outside: string;
/** A real trash for the race: entries handed to it are moved here. */
let trashDir: string;
let cleanups: Array<() => Promise<void>>;
let swapper: ChildProcess | null;

beforeEach(async () => {
  const ws = await makeTempTree({ 'x-dir/target.txt': 'inside\n' });
  const out = await makeTempTree({ 'target.txt': OUTSIDE_TEXT, 'keep.txt': OUTSIDE_TEXT, 'doomed.txt': OUTSIDE_TEXT });
  const bin = await makeTempTree({});
  root = ws.root;
  outside = out.root;
  trashDir = bin.root;
  cleanups = [ws.cleanup, out.cleanup, bin.cleanup];
  await symlink(outside, path.join(root, 'x-link'));
  swapper = null;
});
afterEach(async () => {
  // Removing the folders while the swapper still renames in them fails (ENOTEMPTY): wait for it to be gone.
  if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
    const exited = new Promise((resolve) => swapper!.once('exit', resolve));
    swapper.kill('SIGKILL');
    await exited;
  }
  for (const cleanup of cleanups) await cleanup();
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort())
    out[name] = await readFile(path.join(dir, name), 'utf8').catch(() => '<dir>');
  return out;
}

describe('the path guard under a racing symlink swap', () => {
  it('lets no write, read, delete (permanent or to the trash), create, move or copy land outside across thousands of tries', async () => {
    const before = await snapshot(outside);
    swapper = spawn('python3', ['-c', SWAPPER, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => swapper!.stdout!.once('data', () => resolve()));
    let trashedCount = 0;
    const trash = async (abs: string) => {
      await rename(abs, path.join(trashDir, `${trashedCount++}-${path.basename(abs)}`));
      return true;
    };
    const handlers = workspaceHandlers(await Workspace.open({ root, trash })) as Handlers;
    const call = (channel: string, args: unknown) => dispatch(handlers, channel, args);

    let succeeded = 0;
    let refusedOutside = 0;
    const leaks: string[] = [];
    for (let i = 0; i < 1500; i++) {
      const replies = [
        await call('workspace.write', { path: 'x/target.txt', text: `written ${i}\n` }),
        await call('workspace.read', { path: 'x/target.txt' }),
        await call('workspace.delete', { path: 'x/keep.txt', permanent: true }),
        // The outside folder holds a doomed.txt too: a trash handed a path through the swapped link takes that one.
        await call('workspace.write', { path: 'x/doomed.txt', text: `doomed ${i}\n` }),
        await call('workspace.delete', { path: 'x/doomed.txt' }),
        await call('workspace.createDir', { path: `x/dir-${i}` }),
        await call('workspace.createFile', { path: `x/new-${i}.txt`, text: 'new' }),
        await call('workspace.move', { from: 'x/target.txt', to: `moved-${i}.txt` }),
        await call('workspace.copy', { from: 'x/keep.txt', toDir: '' }),
        await call('workspace.list', { path: 'x' }),
      ];
      for (const reply of replies) {
        if (!reply.ok) {
          if (reply.error.code === 'E_OUTSIDE_WORKSPACE') refusedOutside++;
          continue;
        }
        succeeded++;
        // Only the outside folder holds keep.txt and the canary text: a reply naming either read outside.
        const text = JSON.stringify(reply.value);
        if (text.includes(OUTSIDE_TEXT) || text.includes('keep.txt')) leaks.push(text.slice(0, 200));
      }
    }
    swapper.kill('SIGKILL');

    // The swap really raced the operations: many succeeded (inside), many were refused, nothing reached outside.
    expect(succeeded).toBeGreaterThan(100);
    expect(refusedOutside).toBeGreaterThan(100);
    expect(leaks).toEqual([]);
    expect(await snapshot(outside)).toEqual(before);
    // Trash deletes really happened, each took an inside entry under its own name, and no staging folder is left.
    const binned = await snapshot(trashDir);
    expect(Object.keys(binned).length).toBeGreaterThan(10);
    for (const [name, text] of Object.entries(binned)) {
      expect(name).toMatch(/^\d+-doomed\.txt$/);
      expect(text).not.toContain(OUTSIDE_TEXT);
    }
    expect((await readdir(root)).filter((name) => name.startsWith('.kiln-'))).toEqual([]);
    for (const name of await readdir(root)) {
      if (name.startsWith('moved-') || name.startsWith('keep'))
        expect(await readFile(path.join(root, name), 'utf8')).not.toContain(OUTSIDE_TEXT);
    }
  }, 120_000);
});

describe('copying a folder with links', () => {
  it('copies links as links, never the content they point to', async () => {
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src', 'own.txt'), 'own\n');
    await symlink(path.join(outside, 'target.txt'), path.join(root, 'src', 'stolen.txt'));
    await symlink('own.txt', path.join(root, 'src', 'alias.txt'));
    const ws = await Workspace.open({ root });
    expect(await ws.copy('src', '')).toEqual({ path: 'src copy' });
    const copied = path.join(root, 'src copy');
    expect(await readFile(path.join(copied, 'own.txt'), 'utf8')).toBe('own\n');
    const { readlink, lstat } = await import('node:fs/promises');
    expect((await lstat(path.join(copied, 'stolen.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(copied, 'stolen.txt'))).toBe(path.join(outside, 'target.txt'));
    expect(await readlink(path.join(copied, 'alias.txt'))).toBe('own.txt');
    // The copied link is still refused on use.
    await expect(ws.read('src copy/stolen.txt')).rejects.toMatchObject({ code: 'E_OUTSIDE_WORKSPACE' });
    // A link copied on its own is a link too.
    expect(await ws.copy('src/alias.txt', '')).toEqual({ path: 'alias.txt' });
    expect(await readlink(path.join(root, 'alias.txt'))).toBe('own.txt');
  });
});
