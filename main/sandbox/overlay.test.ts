import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test-support/temp-workspace';
import { prepareRunOverlay, sweepStaleRuns } from './overlay';

let cleanup: (() => Promise<void>) | undefined;
afterEach(() => cleanup?.());

describe('run folders left by a killed Kiln', () => {
  it('are removed after a day, those kept for writes that could not be applied after a week, current ones never', async () => {
    const parent = await makeTempDir('kiln-runs-');
    cleanup = parent.cleanup;
    const make = (name: string, ageDays: number, kept = false) => {
      const dir = path.join(parent.dir, name);
      mkdirSync(path.join(dir, 'work', 'work'), { recursive: true });
      writeFileSync(path.join(dir, 'upper-file'), 'x');
      if (kept) writeFileSync(path.join(dir, 'kept'), '');
      const at = new Date(Date.now() - ageDays * 24 * 3600_000);
      utimesSync(dir, at, at);
      return dir;
    };
    const crashed = make('run-crashed', 2);
    const current = make('run-current', 0);
    const keptRecently = make('run-kept', 2, true);
    const keptLong = make('run-kept-long', 8, true);
    const other = make('notes', 30);
    await sweepStaleRuns(parent.dir);
    expect([crashed, current, keptRecently, keptLong, other].map((dir) => existsSync(dir))).toEqual([
      false,
      true,
      true,
      false,
      true,
    ]);
  });
});

describe('a run whose overlay does not mount', () => {
  it('runs on the workspace itself, unless strict (protected paths left to the overlay): then not at all', async () => {
    const parent = await makeTempDir('kiln-runs-');
    cleanup = parent.cleanup;
    // A lower layer that does not exist: the mount fails, as it would on a filesystem overlayfs cannot stack.
    const prepared = await prepareRunOverlay(parent.dir, path.join(parent.dir, 'no-such-workspace'), 'unshare');
    const canary = path.join(parent.dir, 'ran');
    const run = (strict: boolean) => {
      const [command, ...args] = prepared!.wrap(['/bin/sh', '-c', `touch ${canary}`], { strict });
      return spawnSync(command, args, { encoding: 'utf8' });
    };
    const strict = run(true);
    expect(strict.status).toBe(125);
    expect(strict.stderr).toContain('the code was not run');
    expect(existsSync(canary)).toBe(false);
    expect(run(false).status).toBe(0);
    expect(existsSync(canary)).toBe(true);
    await prepared!.overlay.dispose();
  });
});
