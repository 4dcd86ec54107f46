import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { PathGuard } from '../workspace';
import { KilnError } from '../../shared/errors';
import {
  dragPathsInside,
  fileTypeOf,
  openWithSystemDecision,
  openWithSystemQuestion,
  openWithSystemTarget,
} from './policy';

let root: string;
let guard: PathGuard;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const inside = await makeTempTree({ 'a.txt': 'a', 'src/b.py': 'b', 'tools/run.sh': 'echo pwned\n' });
  const outside = await makeTempTree({ 'secret.txt': 's' });
  cleanups.push(inside.cleanup, outside.cleanup);
  root = inside.root;
  guard = new PathGuard(root);
  await symlink(path.join(outside.root, 'secret.txt'), path.join(root, 'out-link.txt'));
  await symlink(path.join(root, 'src/b.py'), path.join(root, 'in-link.py'));
  // Named like a document, leading to a script: what is opened is the script.
  await symlink(path.join(root, 'tools/run.sh'), path.join(root, 'notes.txt'));
  await symlink('notes.txt', path.join(root, 'readme.pdf'));
  await symlink(path.join(outside.root, 'secret.txt'), path.join(root, 'src/out-link.txt'));
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

  it('judges and opens a link by its real target, and the question names both', async () => {
    expect(await openWithSystemTarget(guard, 'a.txt')).toEqual({ real: path.join(root, 'a.txt'), type: '.txt' });
    const viaLink = { real: path.join(root, 'tools/run.sh'), type: '.sh' };
    expect(await openWithSystemTarget(guard, 'notes.txt')).toEqual({ ...viaLink, linkName: 'notes.txt' });
    // A link to a link: the final target.
    expect(await openWithSystemTarget(guard, 'readme.pdf')).toEqual({ ...viaLink, linkName: 'readme.pdf' });
    // ".txt" approved in an untrusted folder does not open a ".sh" named notes.txt without asking.
    const target = await openWithSystemTarget(guard, 'notes.txt');
    expect(openWithSystemDecision({ trusted: false, type: target.type, approvedTypes: new Set(['.txt']) })).toBe('ask');
    const question = openWithSystemQuestion(target.real, target.type, target.linkName);
    expect(question.message).toBe('Open "run.sh" (the link "notes.txt" leads to it) with the system\'s application?');
    expect(question.detail).toContain('".sh" files');
  });

  it('refuses a link leading outside the workspace, a missing entry and a path outside', async () => {
    for (const [rel, code] of [
      ['out-link.txt', 'E_OUTSIDE_WORKSPACE'],
      ['src/out-link.txt', 'E_OUTSIDE_WORKSPACE'],
      ['../secret.txt', 'E_OUTSIDE_WORKSPACE'],
      ['nope.txt', 'E_NOT_FOUND'],
    ]) {
      const err = (await openWithSystemTarget(guard, rel).catch((e: unknown) => e)) as KilnError;
      expect(err).toBeInstanceOf(KilnError);
      expect({ rel, code: err.code }).toEqual({ rel, code });
    }
    const err = (await openWithSystemTarget(guard, 'out-link.txt').catch((e: unknown) => e)) as KilnError;
    expect(err.message).toContain('"out-link.txt" is a link to a file outside the workspace');
  });

  it('names the file and the type it asks about, Cancel by default', () => {
    const question = openWithSystemQuestion('tools/run.sh', '.sh');
    expect(question.message).toContain('"run.sh"');
    expect(question.detail).toContain('".sh" files');
    expect(question.buttons[question.defaultId]).toBe('Cancel');
  });
});
