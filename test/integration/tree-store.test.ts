/** The explorer's tree store against main's real services: the same change feed both hosts forward. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { KilnBridge } from '../../shared/contract';
import { TreeStore } from '../../renderer/src/tree/tree-store';
import { startServices, type RunningServices } from '../../test-support/services';

let running: RunningServices;
let bridge: KilnBridge;
let tree: TreeStore;

beforeEach(async () => {
  running = await startServices({ 'src/pkg/deep/mod.py': 'x = 1\n', 'top.txt': 't\n' });
  bridge = running.bridge;
  tree = new TreeStore(bridge);
  await tree.load('');
  await tree.expand('src');
  await tree.expand('src/pkg');
  await tree.expand('src/pkg/deep');
});

afterEach(async () => {
  tree.dispose();
  await running.close();
});

const rows = () =>
  tree
    .rows()
    .pathsBetween(0, tree.rows().length - 1)
    .map((path) => `${path}${tree.isExpanded(path) ? '/' : ''}`);

it('applies a folder move as one event: the whole subtree re-keyed in one render, open folders still open', async () => {
  expect(rows()).toEqual(['src/', 'src/pkg/', 'src/pkg/deep/', 'src/pkg/deep/mod.py', 'top.txt']);
  let renders = 0;
  const off = tree.subscribe(() => renders++);
  await bridge.request('workspace.move', { from: 'src/pkg', to: 'lib' });
  off();
  // Shown at once (before any listing came back), deep folders still expanded.
  expect(rows()).toContain('lib/');
  expect(tree.isExpanded('lib/deep')).toBe(true);
  expect(renders).toBeGreaterThan(0);
  await expect.poll(() => rows()).toEqual(['lib/', 'lib/deep/', 'lib/deep/mod.py', 'src/', 'top.txt']);
});

it("marks the agent's changes and keeps the mark through a move; a delete drops the entry and what it held", async () => {
  await running.services.workspace.write('src/pkg/deep/agent.py', 'y = 2\n', { origin: 'agent' });
  expect(tree.marks.newMarkOf('src/pkg/deep/agent.py')).toEqual({ origin: 'agent' });
  await bridge.request('workspace.move', { from: 'src', to: 'moved' });
  expect(tree.marks.newMarkOf('moved/pkg/deep/agent.py')).toEqual({ origin: 'agent' });
  expect(tree.marks.newMarkOf('src/pkg/deep/agent.py')).toBeUndefined();
  await bridge.request('workspace.delete', { path: 'moved/pkg', permanent: true });
  expect(rows().some((r) => r.startsWith('moved/pkg'))).toBe(false);
  expect(tree.listing('moved/pkg/deep')).toBeUndefined();
});
