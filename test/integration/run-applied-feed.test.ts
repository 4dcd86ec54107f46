/** A sandboxed run's 2,000 new files reach the change feed as one event for their folder, not one per file. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FsChange, KilnBridge } from '../../shared/contract';
import type { VerbRunResult } from '../../shared/contract/verbs';
import { createdPaths } from '../../shared/fs-change';
import { TreeStore } from '../../renderer/src/tree/tree-store';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

const FILES = 2000;

let running: RunningServices;
let bridge: KilnBridge;
let tree: TreeStore;

beforeAll(async () => {
  running = await startServices({ 'out/keep.txt': 'k\n', 'top.txt': 't\n' }, { runLimitMs: 60_000 });
  bridge = running.bridge;
  tree = new TreeStore(bridge);
  await tree.load('');
  await tree.expand('out');
  // Quick Open's index exists from its first use: scanned before the run, kept current by the feed after it.
  await until(
    async () => !(await bridge.request('quickOpen.search', { query: 'keep' })).indexing,
    'the first scan of Quick Open',
  );
});

afterAll(async () => {
  tree.dispose();
  await running.close();
});

it('tells the tree and Quick Open of every file of an applied run, with one change event for their folder', async () => {
  const heard: FsChange[] = [];
  const off = bridge.on('fs.change', (change) => heard.push(change));
  const code = `for i in range(${FILES}):\n    open(f"out/f{i:04d}.txt", "w").write(f"file {i}\\n")\n`;
  const result = (await bridge.request('verbs.call', {
    verb: 'execute-code',
    args: { code },
  } as never)) as VerbRunResult;
  off();
  expect([result.returncode, result.stderr]).toEqual([0, '']);

  const names = Array.from({ length: FILES }, (_, i) => `out/f${String(i).padStart(4, '0')}.txt`);
  const batches = heard.filter((change) => change.type === 'createdFiles');
  // 2,000 small files are far within run-changes.ts's batch bound (BATCH_BYTES): one batch, one event.
  expect(batches).toHaveLength(1);
  expect(batches.flatMap((change) => createdPaths(change)).sort()).toEqual(names);
  expect(heard.filter((change) => change.type === 'created' && change.path.startsWith('out/f'))).toEqual([]);

  const rows = () => tree.rows().pathsBetween(0, tree.rows().length - 1);
  await until(() => rows().filter((row) => row.startsWith('out/f')).length === FILES, 'the tree showing every file');
  expect(tree.marks.newMarkOf('out/f1999.txt')).toEqual({ origin: 'agent' });
  const found = await bridge.request('quickOpen.search', { query: 'out/f', limit: 1000 });
  expect(found.total).toBe(FILES);
  expect((await bridge.request('quickOpen.search', { query: 'f1999.txt' })).matches[0]?.path).toBe('out/f1999.txt');
});
