import { watch as fsWatch } from 'node:fs';
import { chmod, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FsChange, WatchDegraded } from '../../shared/contract';
import { Workspace } from '../workspace';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { WorkspaceWatcher } from './watcher';
import { refuseWatchesAfter, type FolderWatchFactory } from './folder-watch';

let root: string;
let cleanup: () => Promise<void>;
let ws: Workspace;
let watcher: WorkspaceWatcher;
let changes: FsChange[];

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({ 'a.txt': 'a\n', 'src/': '' }));
  ws = await Workspace.open({ root });
  changes = [];
  watcher = new WorkspaceWatcher({ root, ledger: ws.ledger });
  watcher.onDidChange((c) => changes.push(c));
  await watcher.ready;
});
afterEach(async () => {
  await watcher.dispose();
  await cleanup();
});

const waitFor = (predicate: () => boolean) => until(predicate, 'the watcher to report it');
const seen = (type: FsChange['type'], p: string) => changes.find((c) => c.type === type && 'path' in c && c.path === p);

it('reports changes by other programs as external', async () => {
  await writeFile(path.join(root, 'b.txt'), 'b');
  await mkdir(path.join(root, 'dir'));
  await writeFile(path.join(root, 'a.txt'), 'changed');
  await waitFor(() => Boolean(seen('created', 'b.txt') && seen('created', 'dir') && seen('updated', 'a.txt')));
  await rm(path.join(root, 'b.txt'));
  await rm(path.join(root, 'dir'), { recursive: true });
  await waitFor(() => Boolean(seen('deleted', 'b.txt') && seen('deleted', 'dir')));
  expect(changes.every((c) => c.origin === 'external')).toBe(true);
});

it("reports Kiln's own writes with their origin, never echoing them as external", async () => {
  await ws.write('a.txt', 'by operator');
  await ws.write('src/agent.py', 'x = 1', { origin: 'agent' });
  await waitFor(() => Boolean(seen('updated', 'a.txt') && seen('created', 'src/agent.py')));
  expect(seen('updated', 'a.txt')?.origin).toBe('operator');
  expect(seen('created', 'src/agent.py')?.origin).toBe('agent');
  expect(changes.filter((c) => c.origin === 'external')).toEqual([]);
  // Atomic writes use a temp file; it must never surface.
  expect(changes.some((c) => 'path' in c && c.path.includes('.kiln-'))).toBe(false);
});

it("marks an agent's write made by another Kiln process (the MCP server) as the agent's", async () => {
  const otherProcess = await Workspace.open({ root });
  expect(otherProcess.ledger).not.toBe(ws.ledger);
  await otherProcess.write('src/from-mcp.py', 'y = 2', { origin: 'agent' });
  await writeFile(path.join(root, 'by-hand.txt'), 'typed');
  await waitFor(() => Boolean(seen('created', 'src/from-mcp.py') && seen('created', 'by-hand.txt')));
  expect(seen('created', 'src/from-mcp.py')?.origin).toBe('agent');
  expect(seen('created', 'by-hand.txt')?.origin).toBe('external');
});

it('reports files written the instant their folders appear, once each', async () => {
  const burst = path.join(root, 'burst', 'deep');
  await mkdir(burst, { recursive: true });
  for (let i = 0; i < 5; i++) await writeFile(path.join(burst, `f${i}.txt`), 'x');
  await waitFor(() => [0, 1, 2, 3, 4].every((i) => seen('created', `burst/deep/f${i}.txt`)));
  // A file written after them is reported after any late duplicate of theirs: the one event queue, in order.
  await writeFile(path.join(burst, 'later.txt'), 'x');
  await waitFor(() => Boolean(seen('created', 'burst/deep/later.txt')));
  for (let i = 0; i < 5; i++) {
    expect(changes.filter((c) => c.type === 'created' && c.path === `burst/deep/f${i}.txt`)).toHaveLength(1);
  }
});

it('follows a folder another program renames: what happens in it is reported at its new place', async () => {
  await mkdir(path.join(root, 'src', 'pkg'));
  await writeFile(path.join(root, 'src', 'pkg', 'mod.py'), '');
  await waitFor(() => Boolean(seen('created', 'src/pkg/mod.py')));
  // The write's own late events (its data after its creation) settle before a later file's: wait past them.
  await writeFile(path.join(root, 'src', 'later.txt'), '');
  await waitFor(() => Boolean(seen('created', 'src/later.txt')));
  const beforeRename = changes.length;
  await rename(path.join(root, 'src'), path.join(root, 'lib'));
  // Inside the settle window: the watch that follows the folder still names it src/.
  await rm(path.join(root, 'lib', 'pkg', 'mod.py'));
  await waitFor(() => Boolean(seen('deleted', 'src') && seen('created', 'lib') && seen('deleted', 'lib/pkg/mod.py')));
  await writeFile(path.join(root, 'lib', 'pkg', 'new.py'), '');
  await waitFor(() => Boolean(seen('created', 'lib/pkg/new.py')));
  expect(changes.slice(beforeRename).filter((c) => 'path' in c && c.path.startsWith('src/pkg/'))).toEqual([]);
});

/**
 * Real watches whose events, while held, wait in a queue per folder; `deliver` hands them over in the
 * order the test names, all in one tick, before the watcher can look at the disk for any of them.
 */
function heldWatches() {
  const held = new Map<string, { name: string | null; hand: () => void }[]>();
  let holding = false;
  const watchFolder: FolderWatchFactory = (absDir, listener) =>
    fsWatch(absDir, { persistent: false }, (event, name) => {
      if (!holding) return listener(event, name);
      const queue = held.get(absDir) ?? [];
      held.set(absDir, queue);
      queue.push({ name, hand: () => listener(event, name) });
    });
  return {
    watchFolder,
    hold: () => void (holding = true),
    /** Resolves once the watch on `absDir` has had an event for `name`. */
    arrived: (absDir: string, name: string) =>
      until(() => held.get(absDir)?.some((e) => e.name === name), `the event for ${name} in ${absDir}`),
    deliver(order: string[]) {
      holding = false;
      for (const absDir of order) for (const event of held.get(absDir) ?? []) event.hand();
      held.clear();
    },
  };
}

describe('events that arrive before the rename they follow is recognised', () => {
  it('a file deleted in a renamed folder is reported gone at the new place, never at the old', async () => {
    await watcher.dispose(); // this test's watcher alone reports
    await mkdir(path.join(root, 'src', 'pkg'));
    await writeFile(path.join(root, 'src', 'pkg', 'mod.py'), '');
    const watches = heldWatches();
    const fresh = new WorkspaceWatcher({ root, ledger: ws.ledger, watchFolder: watches.watchFolder });
    fresh.onDidChange((c) => changes.push(c));
    await fresh.ready;
    watches.hold();
    await rename(path.join(root, 'src'), path.join(root, 'lib'));
    await rm(path.join(root, 'lib', 'pkg', 'mod.py'));
    // The watches were started at src/: that is how they name their folders until told otherwise.
    await watches.arrived(path.join(root, 'src', 'pkg'), 'mod.py');
    await watches.arrived(root, 'lib');
    // The deletion first, then the rename: the watcher learns of the deletion while lib/ is still src/ to it.
    watches.deliver([path.join(root, 'src', 'pkg'), root, path.join(root, 'src')]);
    await writeFile(path.join(root, 'lib', 'pkg', 'later.py'), '');
    await waitFor(() => Boolean(seen('created', 'lib/pkg/later.py')));
    expect(changes.map((c) => ('path' in c ? `${c.type} ${c.path}` : c.type))).toEqual([
      'deleted lib/pkg/mod.py',
      'deleted src',
      'created lib',
      'created lib/pkg',
      'created lib/pkg/later.py',
    ]);
    await fresh.dispose();
  });
});

it("reports nothing for a change to a folder's own attributes, and a child named like its folder as itself", async () => {
  // Linux names an event about the watched folder itself with the folder's name, as if a child of it.
  await chmod(path.join(root, 'src'), 0o700);
  await writeFile(path.join(root, 'src', 'after-chmod.txt'), '');
  await waitFor(() => Boolean(seen('created', 'src/after-chmod.txt')));
  await writeFile(path.join(root, 'src', 'src'), '');
  await waitFor(() => Boolean(seen('created', 'src/src')));
  await rm(path.join(root, 'src', 'src'));
  await waitFor(() => Boolean(seen('deleted', 'src/src')));
  expect(changes.map((c) => ('path' in c ? `${c.type} ${c.path}` : c.type))).toEqual([
    'created src/after-chmod.txt',
    'created src/src',
    'deleted src/src',
  ]);
});

describe('what is watched', () => {
  it('never follows a symlink out of the workspace, and a symlink loop cannot hang it', async () => {
    const outside = await makeTempTree({ 'big/one.txt': '1', 'big/sub/two.txt': '2' });
    try {
      await symlink(outside.root, path.join(root, 'out-link'));
      await symlink('.', path.join(root, 'src', 'loop'));
      await symlink('../..', path.join(root, 'src', 'up'));
      const fresh = new WorkspaceWatcher({ root, ledger: ws.ledger });
      fresh.onDidChange((c) => changes.push(c));
      await fresh.ready;
      // The root and src/ only: links are entries, never folders to watch.
      expect(fresh.watchCount).toBe(2);
      await writeFile(path.join(outside.root, 'big', 'three.txt'), '3');
      await writeFile(path.join(root, 'src', 'inside.txt'), 'x');
      await waitFor(() => Boolean(seen('created', 'src/inside.txt')));
      expect(changes.filter((c) => 'path' in c && (c.path.includes('three') || c.path.includes('out-link/')))).toEqual(
        [],
      );
      await fresh.dispose();
    } finally {
      await outside.cleanup();
    }
  });

  it('holds one watch per folder, none per file, and none in excluded folders', async () => {
    for (let d = 0; d < 3; d++)
      for (let f = 0; f < 50; f++) await writeFile(path.join(root, 'src', `f${d}-${f}.txt`), '');
    await mkdir(path.join(root, 'node_modules', 'pkg'), { recursive: true });
    await mkdir(path.join(root, 'data', 'raw'), { recursive: true });
    const fresh = new WorkspaceWatcher({ root, ledger: ws.ledger, exclude: ['data/raw'] });
    await fresh.ready;
    // root, src, node_modules, node_modules/pkg, data: the configured list replaces the defaults.
    expect(fresh.watchCount).toBe(5);
    await fresh.dispose();
  });

  it('re-reads an excluded folder while the operator is looking at it', async () => {
    await mkdir(path.join(root, 'node_modules'));
    const fresh = new WorkspaceWatcher({ root, ledger: ws.ledger, pollMs: 100 });
    fresh.onDidChange((c) => changes.push(c));
    await fresh.ready;
    await fresh.noteShown(path.join(root, 'node_modules'), 'dir');
    await writeFile(path.join(root, 'node_modules', 'new.js'), '');
    await waitFor(() => Boolean(seen('created', 'node_modules/new.js')));
    await fresh.dispose();
  });
});

describe('when the OS refuses more watches', () => {
  it('keeps working: tells once what degraded and how to raise the limit, and polls what is shown', async () => {
    for (let i = 0; i < 6; i++) await mkdir(path.join(root, 'src', `d${i}`));
    const told: WatchDegraded[] = [];
    const fresh = new WorkspaceWatcher({ root, ledger: ws.ledger, watchFolder: refuseWatchesAfter(2), pollMs: 100 });
    fresh.onDidChange((c) => changes.push(c));
    fresh.onDidDegrade((s) => told.push(s));
    await fresh.ready;
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ reason: 'ENOSPC', watchedFolders: 2 });
    expect(told[0].message).toContain('fs.inotify.max_user_watches');
    expect(fresh.degraded).toEqual(told[0]);
    // Changes in a watched folder still arrive; an unwatched folder the operator opens is re-read.
    await writeFile(path.join(root, 'src', 'live.txt'), '');
    await waitFor(() => Boolean(seen('created', 'src/live.txt')));
    await fresh.noteShown(path.join(root, 'src', 'd3'), 'dir');
    await writeFile(path.join(root, 'src', 'd3', 'polled.txt'), '');
    await waitFor(() => Boolean(seen('created', 'src/d3/polled.txt')));
    // New folders never retry the refused watch, so the error cannot loop.
    await mkdir(path.join(root, 'src', 'later'));
    await waitFor(() => Boolean(seen('created', 'src/later')));
    expect(told).toHaveLength(1);
    await fresh.dispose();
  });
});
