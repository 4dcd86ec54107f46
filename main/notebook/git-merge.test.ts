import { execFileSync } from 'node:child_process';
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { GitService } from '../git';
import { findExecutable } from '../process';
import { NotebookMergeService, type GitFiles } from './git-merge';

/*
 * "Open Changes" of a notebook: the compare reads both versions in main (`notebook.diff`), so asking whether HEAD
 * has the file must read neither version (20 MB each for a notebook with its plots), and HEAD's text, when it is
 * read, comes whole through git's own file.
 */

const COMMITTED = '{"cells": [], "metadata": {"title": "Résumé ✓"}}\n';
const git = await findExecutable('git', process.env.PATH);
let root: string;
let cleanup: () => Promise<void>;
const sh = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, stdio: 'pipe' });

describe.skipIf(!git)('Open Changes on a real repository', () => {
  let calls: string;
  let reads: string[];
  let service: NotebookMergeService;
  let gitService: GitService;

  beforeEach(async () => {
    ({ root, cleanup } = await makeTempTree({ 'run.ipynb': COMMITTED }));
    sh('init', '-q');
    sh('add', '.');
    sh('commit', '-q', '-m', 'first');
    await writeFile(path.join(root, 'run.ipynb'), '{"cells": [], "metadata": {"é": "ü"}}\n');
    await writeFile(path.join(root, 'new.ipynb'), '{"cells": []}\n');
    // A stand-in git that logs each call and runs the real one.
    calls = path.join(root, 'git-calls.log');
    const logged = path.join(root, 'logged-git');
    await writeFile(logged, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${calls}'\nexec '${git}' "$@"\n`);
    await chmod(logged, 0o755);
    gitService = new GitService({ root, gitPath: logged });
    reads = [];
    const files: GitFiles = {
      resolve: (rel) => Promise.resolve(path.join(root, rel)),
      relative: (abs) => path.relative(root, abs),
      read: (rel) => {
        reads.push(rel);
        return Promise.reject(new Error('a notebook’s Open Changes reads no file'));
      },
      write: () => Promise.reject(new Error('not written here')),
    };
    service = new NotebookMergeService({ git: gitService, files });
  });
  afterEach(async () => {
    await gitService.dispose();
    await cleanup();
  });

  const shows = async () =>
    (await readFile(calls, 'utf8').catch(() => '')).split('\n').filter((call) => / show /.test(call)).length;

  it('says whether HEAD has the file without reading either version when no texts are asked for', async () => {
    expect(await service.openChanges('run.ipynb', false)).toEqual({
      path: 'run.ipynb',
      head: null,
      working: null,
      workingHash: null,
      inHead: true,
    });
    expect(await service.openChanges('new.ipynb', false)).toMatchObject({ inHead: false, head: null });
    expect(await shows()).toBe(0);
    expect(reads).toEqual([]);
  });

  it("reads HEAD's text exactly through a private file that it removes, null for a path HEAD lacks", async () => {
    const before = (await readdir(os.tmpdir())).filter((name) => name.startsWith('kiln-git-blob-')).length;
    expect(await service.headText('run.ipynb')).toBe(COMMITTED);
    expect(await service.headText('new.ipynb')).toBeNull();
    expect(await shows()).toBe(2);
    const after = (await readdir(os.tmpdir())).filter((name) => name.startsWith('kiln-git-blob-')).length;
    expect(after).toBe(before);
  });
});
