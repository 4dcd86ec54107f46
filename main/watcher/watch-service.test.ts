import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { FsChange, WatchDegraded } from '../../shared/contract';
import { Emitter } from '../../shared/base/event';
import { Workspace } from '../workspace';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { refuseWatchesAfter } from './folder-watch';
import { WatchService } from './watch-service';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(options: { refuseAfter?: number } = {}) {
  const { root, cleanup } = await makeTempTree({ 'a.txt': 'a\n', 'data/raw/': '', 'src/d1/': '', 'src/d2/': '' });
  const ws = await Workspace.open({ root });
  const config = new Emitter<void>();
  let exclude: string[] | null = null;
  const shown = new Emitter<{ path: string; kind: 'dir' | 'file' }>();
  const service = new WatchService({
    root,
    ledger: ws.ledger,
    exclude: () => exclude,
    onDidChangeConfig: config.event,
    onDidShow: shown.event,
    watchFolder: options.refuseAfter === undefined ? undefined : refuseWatchesAfter(options.refuseAfter),
  });
  const changes: FsChange[] = [];
  const walks: number[] = [];
  const degraded: WatchDegraded[] = [];
  service.onDidChange((c) => changes.push(c));
  service.onDidWalk(({ watchedFolders }) => walks.push(watchedFolders));
  service.onDidDegrade((s) => degraded.push(s));
  cleanups.push(cleanup, () => service.dispose());
  const setExclude = (next: string[] | null) => {
    exclude = next;
    config.fire();
  };
  return { root, service, changes, walks, degraded, setExclude, shown };
}

it('restarts with new excludes when the config changes them (only then), and tells the new walk', async () => {
  const { root, service, changes, walks, setExclude } = await setup();
  await until(() => walks.length === 1, 'the first walk');
  expect(service.excludes('data/raw')).toBe(false);
  setExclude(null); // a config change that leaves watchExclude alone restarts nothing
  setExclude(['data/raw']);
  await until(() => walks.length === 2, 'the walk after the restart');
  expect(service.excludes('data/raw')).toBe(true);
  expect(service.status()).toMatchObject({ walked: true, degraded: null });
  // The new watcher reports; the old one was let go.
  await writeFile(path.join(root, 'src', 'new.txt'), 'x');
  await until(() => changes.some((c) => 'path' in c && c.path === 'src/new.txt'), 'the new watcher’s report');
  expect(changes.filter((c) => 'path' in c && c.path === 'src/new.txt')).toHaveLength(1);
});

it('tells a degradation once per session, however often it restarts, and keeps a shown folder live', async () => {
  const { root, walks, degraded, setExclude, shown, changes } = await setup({ refuseAfter: 1 });
  await until(() => walks.length === 1, 'the first walk');
  expect(degraded).toHaveLength(1);
  setExclude(['data/raw']);
  await until(() => walks.length === 2, 'the walk after the restart');
  expect(degraded).toHaveLength(1);
  // src/ has no watch (refused): shown, it is polled.
  shown.fire({ path: 'src', kind: 'dir' });
  await mkdir(path.join(root, 'src', 'd3'));
  await until(() => changes.some((c) => 'path' in c && c.path === 'src/d3'), 'the polled folder’s news', 10_000);
});
