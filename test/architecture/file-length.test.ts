import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Files of one job: no product file in main/, renderer/src or shared/ over MAX_LINES. A file past it does several
// jobs; split it by job (as main/workspace/workspace.ts became a facade over listing, write, copy, …).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 500;
const ROOTS = ['main', 'renderer/src', 'shared'];
const NOT_PRODUCT = /(\.test\.tsx?|\.d\.ts)$/;

/**
 * The files still over, each being split by job as this is written (issue 41); the merge of those splits empties
 * this list. A file here that is under the limit fails the test too, so the list only shrinks.
 */
const STILL_OVER = new Set([
  'main/language-server/supervision.ts',
  'renderer/src/language/providers.ts',
  'renderer/src/notebook/notebook-controller.ts',
  'renderer/src/notebook/notebook-session.ts',
]);

function productFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'out') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) productFiles(path, into);
    else if (/\.tsx?$/.test(name) && !NOT_PRODUCT.test(name)) into.push(path);
  }
  return into;
}

function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('file length', () => {
  const files = ROOTS.flatMap((top) => productFiles(join(ROOT, top))).map((file) => ({
    path: relative(ROOT, file).split('\\').join('/'),
    lines: lineCount(file),
  }));

  it(`no product file is over ${MAX_LINES} lines, but those still being split`, () => {
    expect(files.length).toBeGreaterThan(300);
    const over = files.filter((f) => f.lines > MAX_LINES && !STILL_OVER.has(f.path));
    expect(over.map((f) => `${f.path}: ${f.lines} lines`)).toEqual([]);
  });

  it('lists as still over only files that are', () => {
    const byPath = new Map(files.map((f) => [f.path, f.lines]));
    const done = [...STILL_OVER].filter((p) => (byPath.get(p) ?? 0) <= MAX_LINES);
    expect(done).toEqual([]);
  });
});
