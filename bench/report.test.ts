import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { figuresTable, withFiguresTable, TABLE_END, TABLE_START, type BenchResults } from './report';
import type { Figure } from './support';

const figure = (over: Partial<Figure>): Figure => ({
  bench: 'listing',
  name: 'list a folder',
  kiln: 12.5,
  baseline: 7.1,
  unit: 'ms',
  ratio: 12.5 / 7.1,
  target: { ratio: 2 },
  meets: true,
  ...over,
});

const results: BenchResults = {
  date: '2026-12-04T10:00:00.000Z',
  commit: '40ac5df0123456789',
  machine: { cpus: 2, model: 'x', memoryGb: 8 },
  benches: [
    { name: 'listing', loadBefore: 1.5, loadAfter: 2.25, error: null },
    { name: 'sandbox', loadBefore: 3, loadAfter: 4.4, error: 'Error: no bwrap\n    at stack' },
  ],
  figures: [
    figure({}),
    figure({
      bench: 'upload',
      name: 'RSS growth | peak',
      kiln: 41,
      baseline: null,
      ratio: null,
      unit: 'MB',
      target: { max: 100, below: true },
    }),
    figure({
      bench: 'edit-diff',
      name: 'edit 1 KB',
      kiln: 97,
      baseline: 74,
      ratio: 97 / 74,
      target: { ratio: 1.2 },
      meets: false,
    }),
    figure({ bench: 'history', name: 'keystroke', kiln: 0.6, baseline: 0.25, ratio: 2.4, target: { overBaseline: 1 } }),
    figure({
      bench: 'quick-open',
      name: 'a query',
      kiln: 14.7,
      baseline: 15.5,
      ratio: 14.7 / 15.5,
      target: null,
      meets: null,
    }),
  ],
};

describe('figuresTable', () => {
  const table = figuresTable(results);
  const rows = table.split('\n').filter((line) => line.startsWith('| '));

  it('says when, on which commit and under what load the figures were taken', () => {
    expect(table.split('\n')[0]).toBe('From `npm run bench` on 2026-12-04, commit 40ac5df, 2 CPUs, load 1.5–4.4.');
  });

  it('has one row per figure and per failed benchmark, each judged as its target judges it', () => {
    expect(rows).toEqual([
      '| | benchmark | figure | Kiln | baseline | judged | target |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      '| met | `listing` | list a folder | 12.5 ms | 7.10 ms | 1.76x | ≤ 2x |',
      '| met | `upload` | RSS growth \\| peak | 41.0 MB | | 41.00 MB | < 100 MB |',
      '| **missed** | `edit-diff` | edit 1 KB | 97.0 ms | 74.0 ms | 1.31x | ≤ 1.2x |',
      '| met | `history` | keystroke | 0.60 ms | 0.25 ms | +0.35 ms | ≤ baseline + 1 ms |',
      '| | `quick-open` | a query | 14.7 ms | 15.5 ms | | |',
      '| **failed** | `sandbox` | Error: no bwrap | | | | |',
    ]);
  });
});

describe('withFiguresTable', () => {
  it('replaces only what lies between the markers', () => {
    const readme = `# Bench\n\nbefore\n${TABLE_START}\nold table\n${TABLE_END}\n\nafter\n`;
    expect(withFiguresTable(readme, 'new table')).toBe(
      `# Bench\n\nbefore\n${TABLE_START}\nnew table\n${TABLE_END}\n\nafter\n`,
    );
  });

  it('refuses a README without its markers rather than losing text', () => {
    expect(() => withFiguresTable('# Bench\n', 'x')).toThrow(/lost its markers/);
    expect(() => withFiguresTable(`${TABLE_END}\n${TABLE_START}\n`, 'x')).toThrow(/lost its markers/);
  });

  it('finds both markers in bench/README.md', async () => {
    const readme = await readFile(path.join(import.meta.dirname, 'README.md'), 'utf8');
    expect(withFiguresTable(readme, 'x')).toContain(`${TABLE_START}\nx\n${TABLE_END}`);
  });
});

describe('bench/report.ts run as a script', () => {
  let dir = '';
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('rewrites the README beside it from the results file it is given', async () => {
    // A copy of bench/ beside its own README, so the real one is left alone.
    dir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-report-'));
    for (const file of ['report.ts', 'support.ts', 'README.md'])
      await cp(path.join(import.meta.dirname, file), path.join(dir, file));
    const resultsFile = path.join(dir, 'results.json');
    await writeFile(resultsFile, JSON.stringify(results));
    execFileSync(process.execPath, ['--import', 'tsx', path.join(dir, 'report.ts'), resultsFile], {
      cwd: path.resolve(import.meta.dirname, '..'),
      stdio: 'pipe',
    });
    const readme = await readFile(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toContain(`${TABLE_START}\n${figuresTable(results)}\n${TABLE_END}`);
    expect(readme.startsWith('# Benchmarks')).toBe(true);
  });
});
