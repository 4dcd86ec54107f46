import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { PathGuard } from '../workspace';
import { dragPathsInside, fileTypeOf, openWithSystemDecision, openWithSystemQuestion } from './policy';

let root: string;
let guard: PathGuard;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const inside = await makeTempTree({ 'a.txt': 'a', 'src/b.py': 'b' });
  const outside = await makeTempTree({ 'secret.txt': 's' });
  cleanups.push(inside.cleanup, outside.cleanup);
  root = inside.root;
  guard = new PathGuard(root);
  await symlink(path.join(outside.root, 'secret.txt'), path.join(root, 'out-link.txt'));
  await symlink(path.join(root, 'src/b.py'), path.join(root, 'in-link.py'));
});
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('OS drag paths', () => {
  it('gives the real paths of entries inside the workspace', () => {
    expect(dragPathsInside(guard, ['a.txt', 'src', 'in-link.py'])).toEqual([
      path.join(root, 'a.txt'),
      path.join(root, 'src'),
      path.join(root, 'src/b.py'),
    ]);
  });

  it('refuses the whole drag for a path outside, a link out, a missing entry or a malformed list', () => {
    for (const bad of [['a.txt', '../x'], ['/etc/passwd'], ['out-link.txt'], ['nope.txt'], 'a.txt', [], [1], null])
      expect(dragPathsInside(guard, bad)).toEqual([]);
  });
});

describe('Open with System Application', () => {
  it('keys the question on the file type', () => {
    expect(fileTypeOf('src/Run.SH')).toBe('.sh');
    expect(fileTypeOf('Makefile')).toBe('makefile');
    expect(fileTypeOf('.bashrc')).toBe('.bashrc');
  });

  it('opens in a trusted folder, asks once per type in an untrusted one', () => {
    const approved = new Set<string>();
    expect(openWithSystemDecision({ trusted: true, type: '.sh', approvedTypes: approved })).toBe('open');
    expect(openWithSystemDecision({ trusted: false, type: '.sh', approvedTypes: approved })).toBe('ask');
    approved.add('.sh');
    expect(openWithSystemDecision({ trusted: false, type: '.sh', approvedTypes: approved })).toBe('open');
    expect(openWithSystemDecision({ trusted: false, type: '.pdf', approvedTypes: approved })).toBe('ask');
  });

  it('names the file and the type it asks about, Cancel by default', () => {
    const question = openWithSystemQuestion('tools/run.sh', '.sh');
    expect(question.message).toContain('"run.sh"');
    expect(question.detail).toContain('".sh" files');
    expect(question.buttons[question.defaultId]).toBe('Cancel');
  });
});
