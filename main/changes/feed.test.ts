import { mkdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { WorkspaceWatcher } from '../watcher';
import { hashText, Workspace } from '../workspace';
import { makeTempTree } from '../../test-support/temp-workspace';
import { ChangeFeed } from './feed';

let root: string;
let cleanup: () => Promise<void>;
let feed: ChangeFeed;
let ws: Workspace;
let watcher: WorkspaceWatcher;
let changes: FsChange[];

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({ 'a.txt': 'a\n', 'src/pkg/mod.py': 'x = 1\n', 'src/pkg/deep/n.py': 'y\n' }));
  feed = new ChangeFeed({ root });
  ws = await Workspace.open({
    root,
    trash: async () => false,
    onChange: (change, disk) => feed.reportOwn(change, disk),
  });
  changes = [];
  feed.onDidChange((c) => changes.push(c));
  watcher = new WorkspaceWatcher({ root, ledger: ws.ledger });
  watcher.onDidChange((c) => void feed.reportObserved(c));
  await watcher.ready;
});
afterEach(async () => {
  await watcher.dispose();
  await cleanup();
});

/** Waits until the watcher has seen `marker` (written by another program after the operations under test). */
async function quiesce(): Promise<void> {
  const marker = `marker-${Math.random().toString(36).slice(2)}.txt`;
  await writeFile(path.join(root, marker), 'm');
  await expect
    .poll(() => changes.some((c) => c.type === 'created' && c.path === marker), { timeout: 10_000 })
    .toBe(true);
  await feed.settled();
  changes = changes.filter((c) => !(c.type === 'created' && c.path === marker));
}

it("reports Kiln's own operations at once, with their origin, and drops the watcher's echoes", async () => {
  await ws.write('a.txt', 'by operator');
  expect(changes).toEqual([{ type: 'updated', path: 'a.txt', isDir: false, origin: 'operator' }]);
  await ws.write('src/new/agent.py', 'z = 3', { origin: 'agent', createParents: true });
  await ws.createDir('made');
  await ws.copy('src/pkg', 'made');
  await ws.delete('a.txt', { permanent: true });
  expect(changes.slice(1)).toEqual([
    { type: 'created', path: 'src/new', isDir: true, origin: 'agent' },
    { type: 'created', path: 'src/new/agent.py', isDir: false, origin: 'agent' },
    { type: 'created', path: 'made', isDir: true, origin: 'operator' },
    { type: 'created', path: 'made/pkg', isDir: true, origin: 'operator' },
    { type: 'deleted', path: 'a.txt', isDir: false, origin: 'operator' },
  ]);
  const before = changes.length;
  await quiesce();
  expect(changes.slice(before)).toEqual([]);
});

it("a slow operation's effect is never reported before Kiln reports the operation itself", async () => {
  // The delete waits in the trash step after the file has left its place, until the watcher has looked;
  // if the watcher reported first, its "deleted" would not be known as an echo and would come twice.
  let release!: () => void;
  const lookedAt = new Promise<void>((resolve) => (release = resolve));
  const idle = ws.ledger.whenIdle.bind(ws.ledger);
  ws.ledger.whenIdle = () => (release(), idle());
  feed.onDidChange((c) => 'path' in c && c.path === 'a.txt' && release());
  const slow = await Workspace.open({
    root,
    ledger: ws.ledger,
    trash: async () => (await lookedAt, true),
    onChange: (change, disk) => feed.reportOwn(change, disk),
  });
  await slow.delete('a.txt');
  await quiesce();
  expect(changes).toEqual([{ type: 'deleted', path: 'a.txt', isDir: false, origin: 'operator' }]);
});

it('reports a move of a folder as one event, never a delete plus creates for what it holds', async () => {
  await ws.move('src/pkg', 'lib', { origin: 'agent' });
  await ws.move('a.txt', 'lib/deep/b.txt');
  expect(changes).toEqual([
    { type: 'moved', from: 'src/pkg', to: 'lib', isDir: true, origin: 'agent' },
    { type: 'moved', from: 'a.txt', to: 'lib/deep/b.txt', isDir: false, origin: 'operator' },
  ]);
  await quiesce();
  expect(changes).toHaveLength(2);
});

it("reports another program's rename as deleted + created, and its edits as external", async () => {
  await rename(path.join(root, 'a.txt'), path.join(root, 'renamed.txt'));
  await writeFile(path.join(root, 'src/pkg/mod.py'), 'x = 2\n');
  await expect
    .poll(() => changes.map((c) => ('path' in c ? `${c.type} ${c.path} ${c.origin}` : c.type)).sort(), {
      timeout: 10_000,
    })
    .toEqual(['created renamed.txt external', 'deleted a.txt external', 'updated src/pkg/mod.py external']);
});

it("reports another program's rename or move of a file whose identity is kept as one move", async () => {
  // Their owners keep state for them (breakpoints); a.txt is then replaced by an atomic save, a new inode.
  await watcher.learnIdentity(path.join(root, 'src/pkg/mod.py'));
  await watcher.learnIdentity(path.join(root, 'a.txt'));
  await ws.write('a.txt', 'saved\n');
  await quiesce();
  changes = [];
  await rename(path.join(root, 'src/pkg/mod.py'), path.join(root, 'src/pkg/renamed.py'));
  await rename(path.join(root, 'a.txt'), path.join(root, 'src/pkg/deep/a.txt'));
  await quiesce();
  expect(changes).toEqual([
    { type: 'moved', from: 'src/pkg/mod.py', to: 'src/pkg/renamed.py', isDir: false, origin: 'external' },
    { type: 'moved', from: 'a.txt', to: 'src/pkg/deep/a.txt', isDir: false, origin: 'external' },
  ]);
  // Followed under its new name: moved again, and then deleted.
  await rename(path.join(root, 'src/pkg/renamed.py'), path.join(root, 'src/again.py'));
  await quiesce();
  await rm(path.join(root, 'src/again.py'));
  await quiesce();
  expect(changes.slice(2)).toEqual([
    { type: 'moved', from: 'src/pkg/renamed.py', to: 'src/again.py', isDir: false, origin: 'external' },
    { type: 'deleted', path: 'src/again.py', isDir: false, origin: 'external' },
  ]);
});

it("a file deleted while another is made is no move, and Kiln's own move of a known file is reported once", async () => {
  await watcher.learnIdentity(path.join(root, 'a.txt'));
  await watcher.learnIdentity(path.join(root, 'src/pkg/mod.py'));
  await rm(path.join(root, 'src/pkg/mod.py'));
  await writeFile(path.join(root, 'src/pkg/other.py'), 'x = 1\n');
  await quiesce();
  expect(changes.map((c) => ('path' in c ? `${c.type} ${c.path}` : c.type)).sort()).toEqual([
    'created src/pkg/other.py',
    'deleted src/pkg/mod.py',
  ]);
  changes = [];
  await ws.move('a.txt', 'src/b.txt');
  await quiesce();
  expect(changes).toEqual([{ type: 'moved', from: 'a.txt', to: 'src/b.txt', isDir: false, origin: 'operator' }]);
});

it('an outside replacement with the same size and mtime as our own write is news, not an echo', async () => {
  const file = path.join(root, 'a.txt');
  const when = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
  await writeFile(file, 'ours\n');
  await utimes(file, when, when);
  const ours = await stat(file);
  const own = new ChangeFeed({ root });
  const published: FsChange[] = [];
  own.onDidChange((c) => published.push(c));
  const updated: FsChange = { type: 'updated', path: 'a.txt', isDir: false, origin: 'external' };
  own.reportOwn(
    { ...updated, origin: 'operator' },
    { size: ours.size, mtimeMs: ours.mtimeMs, ctimeMs: ours.ctimeMs, ino: ours.ino, hash: hashText('ours\n') },
  );
  // The watcher's report of our own write: dropped, however late it comes.
  await own.reportObserved(updated);
  expect(published).toHaveLength(1);
  // Another program rewrites it in place with same-size content and sets the mtime back.
  await writeFile(file, 'them\n');
  await utimes(file, when, when);
  expect((await stat(file)).mtimeMs).toBe(ours.mtimeMs);
  await own.reportObserved(updated);
  expect(published).toEqual([{ ...updated, origin: 'operator' }, updated]);
});

it('a stale watcher delete of a path Kiln has filled again is dropped', async () => {
  await mkdir(path.join(root, 'x'));
  await expect.poll(() => changes.some((c) => c.type === 'created' && c.path === 'x'), { timeout: 10_000 }).toBe(true);
  changes = [];
  await rm(path.join(root, 'x'), { recursive: true });
  await ws.createDir('x');
  await quiesce();
  // Either the delete was seen before our create, or it was dropped as stale: never after it.
  const last = changes.filter((c) => 'path' in c && c.path === 'x').at(-1);
  expect(last).toEqual({ type: 'created', path: 'x', isDir: true, origin: 'operator' });
});

it("an agent writing from another Kiln process (the MCP server) reaches the feed as the agent's, once", async () => {
  const mcp = await Workspace.open({ root });
  await mcp.write('src/pkg/from_mcp.py', 'z = 1\n', { origin: 'agent' });
  await mcp.write('a.txt', 'agent edit\n', { origin: 'agent' });
  await expect
    .poll(() => changes.map((c) => ('path' in c ? `${c.type} ${c.path} ${c.origin}` : c.type)).sort(), {
      timeout: 10_000,
    })
    .toEqual(['created src/pkg/from_mcp.py agent', 'updated a.txt agent']);
  await quiesce();
  expect(changes).toHaveLength(2);
});
