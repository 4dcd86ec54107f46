import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { makeTempDir } from '../../../test-support/temp-workspace';
import { closeLog, openLog } from '../../log';
import { environmentKernelspecName } from './kernelspec';
import { EnvironmentStateFile } from './state';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  closeLog();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tempDir(prefix: string): Promise<string> {
  const { dir, cleanup } = await makeTempDir(prefix);
  cleanups.push(cleanup);
  return dir;
}

it('prunes, when read, the remembered environments whose folder or kernelspec is gone, and logs what it pruned', async () => {
  const root = await tempDir('kiln-envstate-root-');
  const data = await tempDir('kiln-envstate-data-');
  const logs = await tempDir('kiln-envstate-log-');
  openLog({ dir: logs, level: 'info' });
  const kept = path.join(root, '.venv');
  const removed = path.join(root, 'old-venv');
  const renamed = path.join(root, 'env');
  await mkdir(kept, { recursive: true });
  await mkdir(renamed, { recursive: true });
  const file = path.join(
    data,
    'kernel-environments',
    `${createHash('sha256').update(root).digest('hex').slice(0, 40)}.json`,
  );
  await mkdir(path.dirname(file), { recursive: true });
  const kernelspecs = {
    [environmentKernelspecName(kept)]: { dir: kept },
    [environmentKernelspecName(removed)]: { dir: removed },
    // A name that is not its folder's kernelspec (the state of another folder, or edited by hand).
    'kiln-env-000000000000': { dir: renamed },
  };
  await writeFile(file, JSON.stringify({ version: 1, workspaceRoot: root, kernelspecs }));

  const state = new EnvironmentStateFile(data, root);
  expect(await state.kernelspecs()).toEqual(new Map([[environmentKernelspecName(kept), kept]]));
  // Pruned on disk too: the next Kiln reads only what still starts something.
  expect(JSON.parse(await readFile(file, 'utf8')).kernelspecs).toEqual({
    [environmentKernelspecName(kept)]: { dir: kept },
  });
  const records = (await readFile(path.join(logs, 'kiln.log'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(records).toContainEqual(
    expect.objectContaining({
      scope: 'kernel.environments',
      message: expect.stringContaining('pruned'),
      pruned: [
        { name: environmentKernelspecName(removed), dir: removed, why: 'its folder is gone' },
        { name: 'kiln-env-000000000000', dir: renamed, why: "its name is not its folder's kernelspec" },
      ],
    }),
  );
  // Read again: nothing more to prune, the kept one stays.
  expect([...(await new EnvironmentStateFile(data, root).kernelspecs()).values()]).toEqual([kept]);
});
