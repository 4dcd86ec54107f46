import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test-support/temp-workspace';
import { sweepStaleRuns } from './overlay';

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
