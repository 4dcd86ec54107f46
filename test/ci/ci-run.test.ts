import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * .ci/run's promise: the README's commands, once, in a fresh clone of this commit whose parent holds nothing else.
 * Checked with its dry run, which clones and prints what it would run; the full suite runs only on CI.
 */

const ROOT = path.resolve(__dirname, '../..');

describe('.ci/run', () => {
  it('clones this commit alone into a fresh folder and runs the README test command there', () => {
    const out = execFileSync(path.join(ROOT, '.ci/run'), {
      env: { ...process.env, KILN_CI_DRY_RUN: '1' },
      encoding: 'utf8',
    });
    const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(out)?.[1]?.trim();
    const clone = field('clone')!;
    expect(path.dirname(clone)).not.toBe(path.dirname(ROOT));
    expect(field('parent holds')).toBe('kiln');
    expect(field('commit')).toBe(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim());
    const command = field('would run')!;
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(command);
    expect(command).toBe('npm run setup && npm test');
    // The clone is removed when the run ends.
    expect(existsSync(clone)).toBe(false);
  });
});
