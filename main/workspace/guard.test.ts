import fc from 'fast-check';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import { PathGuard } from './guard';
import { makeTempTree } from '../../test-support/temp-workspace';

let root: string;
let outside: string;
let cleanup: () => Promise<void>;
let cleanupOutside: () => Promise<void>;
let guard: PathGuard;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempTree({ 'a/b/c.txt': 'x', 'docs/': '' }));
  ({ root: outside, cleanup: cleanupOutside } = await makeTempTree({ 'secret.txt': 'top secret' }));
  await symlink(outside, path.join(root, 'escape'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'a', 'secret-link.txt'));
  await symlink(path.join(root, 'a'), path.join(root, 'inside-link'));
  guard = new PathGuard(root);
});
afterAll(async () => {
  await cleanup();
  await cleanupOutside();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err instanceof KilnError ? err.code : String(err);
  }
}

describe('PathGuard', () => {
  it('resolves ordinary relative paths inside the root', async () => {
    expect(await guard.resolve('a/b/c.txt')).toBe(path.join(root, 'a', 'b', 'c.txt'));
    expect(await guard.resolve('')).toBe(root);
    expect(await guard.resolve('a/../docs/./new.md')).toBe(path.join(root, 'docs', 'new.md'));
    expect(await guard.resolve('inside-link/b')).toBe(path.join(root, 'inside-link', 'b'));
  });

  it.each([
    ['..', 'climbs above'],
    ['a/../../x', 'climbs above'],
    ['/etc/passwd', 'absolute'],
    ['C:/Windows', 'absolute'],
    ['a\\..\\..\\x', 'climbs above'],
    ['a/\0/b', 'NUL'],
    ['escape/secret.txt', 'symbolic link'],
    ['escape', 'symbolic link'],
    ['a/secret-link.txt', 'symbolic link'],
    ['escape/new-file.txt', 'symbolic link'],
    ['escape/new-dir/deeper/file.txt', 'symbolic link'],
  ])('refuses %j (%s) with E_OUTSIDE_WORKSPACE', async (rel, why) => {
    const err = await guard.resolve(rel).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KilnError);
    expect((err as KilnError).code).toBe('E_OUTSIDE_WORKSPACE');
    expect((err as KilnError).message).toContain(why);
  });

  it('never resolves a generated path outside the root', async () => {
    const segment = fc.oneof(
      fc.constantFrom('..', '.', '', 'a', 'b', 'escape', 'inside-link', 'docs', '...', '..\\..', '/', '\0', 'C:'),
      fc.string({ maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 8 }), fc.boolean(), async (segments, leadingSlash) => {
        const rel = (leadingSlash ? '/' : '') + segments.join('/');
        try {
          const abs = await guard.resolve(rel);
          expect(abs === root || abs.startsWith(root + path.sep)).toBe(true);
          expect(path.relative(root, abs).split(path.sep)).not.toContain('..');
        } catch (err) {
          expect((err as KilnError).code).toBe('E_OUTSIDE_WORKSPACE');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('refuses a path whose parent is a symlink created later to point outside', async () => {
    await mkdir(path.join(root, 'later'), { recursive: true });
    await writeFile(path.join(root, 'later', 'ok.txt'), 'x');
    expect(await codeOf(guard.resolve('later/ok.txt'))).toBe('resolved');
    await symlink(outside, path.join(root, 'later', 'link'));
    expect(await codeOf(guard.resolve('later/link/anything'))).toBe('E_OUTSIDE_WORKSPACE');
  });
});
