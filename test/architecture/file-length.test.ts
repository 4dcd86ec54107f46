import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PRODUCT_ROOTS, sourceFiles } from './import-graph';

// Files of one job: no product file over MAX_LINES. A file past it does several jobs; split it by job (as
// main/workspace/workspace.ts became a facade over listing, write, copy, …).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 500;

function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

it(`no product file is over ${MAX_LINES} lines`, () => {
  const files = PRODUCT_ROOTS.flatMap((top) => sourceFiles(join(ROOT, top)));
  expect(files.length).toBeGreaterThan(300);
  const over = files
    .map((file) => ({ path: relative(ROOT, file).split('\\').join('/'), lines: lineCount(file) }))
    .filter((f) => f.lines > MAX_LINES);
  expect(over.map((f) => `${f.path}: ${f.lines} lines`)).toEqual([]);
});
