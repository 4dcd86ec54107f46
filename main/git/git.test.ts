import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitStatus } from '../../shared/contract';
import { findExecutable } from '../process';
import { makeTempTree } from '../../test-support/temp-workspace';
import { gutterChanges } from './gutter-diff';
import { GitService } from './service';

const git = await findExecutable('git', process.env.PATH);
let root: string;
let cleanup: () => Promise<void>;
const sh = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: root,
    stdio: 'pipe',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

describe('gutterChanges', () => {
  it('marks added, modified and deleted lines in the current text', () => {
    const committed = 'a\nb\nc\nd\ne\n';
    expect(gutterChanges(committed, committed)).toEqual([]);
    expect(gutterChanges(committed, 'a\nb\nc\nd\ne\nf\ng\n')).toEqual([{ kind: 'added', startLine: 6, endLine: 7 }]);
    expect(gutterChanges(committed, 'a\nB\nc\nd\ne\n')).toEqual([{ kind: 'modified', startLine: 2, endLine: 2 }]);
    expect(gutterChanges(committed, 'a\nd\ne\n')).toEqual([{ kind: 'deleted', startLine: 1, endLine: 1 }]);
    expect(gutterChanges(committed, 'a\nB\nB2\nc\nd\ne\n')).toEqual([
      { kind: 'modified', startLine: 2, endLine: 2 },
      { kind: 'added', startLine: 3, endLine: 3 },
    ]);
    // Line endings and a missing last newline are not changes.
    expect(gutterChanges(committed, 'a\r\nb\r\nc\r\nd\r\ne')).toEqual([]);
  });
});

describe.skipIf(!git)('GitService on a real repository', () => {
  let service: GitService;
  let seen: GitStatus[];
  beforeEach(async () => {
    ({ root, cleanup } = await makeTempTree({
      'project/src/app.py': 'def main():\n    return 1\n',
      'project/README.md': '# Readme\n',
      'project/gone.txt': 'bye\n',
      'project/.gitignore': 'build/\n*.log\n',
      'other/outside.txt': 'not in the workspace\n',
    }));
    sh('init', '-q', '-b', 'trunk');
    sh('add', '.');
    sh('commit', '-q', '-m', 'first');
    const ws = path.join(root, 'project');
    await writeFile(path.join(ws, 'src/app.py'), 'def main():\n    return 2\n');
    await writeFile(path.join(ws, 'new.py'), 'x = 1\n');
    await mkdir(path.join(ws, 'build'));
    await writeFile(path.join(ws, 'build/out.bin'), 'x');
    await writeFile(path.join(ws, 'debug.log'), 'x');
    await writeFile(path.join(ws, 'staged.py'), 'y = 2\n');
    sh('add', 'project/staged.py');
    await rm(path.join(ws, 'gone.txt'));
    await writeFile(path.join(root, 'other/outside.txt'), 'changed\n');
    seen = [];
    service = new GitService({ root: ws });
    service.onDidChange((s) => seen.push(s));
    await service.start();
  });
  afterEach(async () => {
    await service.dispose();
    await cleanup();
  });

  it('reads the status of the workspace inside a parent repository, in workspace paths, with the branch', () => {
    const status = service.status();
    expect(status).toEqual({
      available: true,
      branch: 'trunk',
      head: expect.stringMatching(/^[0-9a-f]{40}$/),
      files: {
        'src/app.py': 'modified',
        'new.py': 'untracked',
        'staged.py': 'added',
        'gone.txt': 'deleted',
        build: 'ignored',
        'debug.log': 'ignored',
      },
    });
    expect(seen).toEqual([status]);
  });

  it('gives the change gutter against HEAD for the disk and for an edited buffer', async () => {
    expect(await service.changesFor('src/app.py')).toEqual([{ kind: 'modified', startLine: 2, endLine: 2 }]);
    expect(await service.changesFor('README.md', '# Readme\nmore\n')).toEqual([
      { kind: 'added', startLine: 2, endLine: 2 },
    ]);
    expect(await service.changesFor('README.md')).toEqual([]);
    expect(await service.changesFor('new.py')).toEqual([]);
  });

  it('runs no git in an untrusted workspace, and decorates once it is trusted', async () => {
    let trusted = false;
    const guarded = new GitService({
      root: path.join(root, 'project'),
      trusted: () => trusted,
    });
    await guarded.start();
    expect(guarded.status().available).toBe(false);
    expect(await guarded.changesFor('src/app.py', 'x\n')).toEqual([]);
    trusted = true;
    await guarded.refresh();
    expect(guarded.status().files['src/app.py']).toBe('modified');
    await guarded.dispose();
  });

  it("reads HEAD's text once while HEAD stays, and again after a commit", async () => {
    // A stand-in git on the service's path that logs each call and runs the real one.
    const log = path.join(root, 'git-calls.log');
    const logged = path.join(root, 'logged-git');
    await writeFile(logged, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${git}' "$@"\n`);
    await chmod(logged, 0o755);
    const shows = async () =>
      (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((call) => / show /.test(call)).length;
    const counted = new GitService({ root: path.join(root, 'project'), gitPath: logged });
    await counted.start();
    const headText = 'def main():\n    return 1\n';

    expect(await counted.changesFor('src/app.py', 'def main():\n    return 3\n')).toEqual([
      { kind: 'modified', startLine: 2, endLine: 2 },
    ]);
    await writeFile(path.join(root, 'project/README.md'), '# Readme\nmore\n');
    await counted.refresh();
    await expect.poll(() => counted.status().files['README.md'], { timeout: 5000 }).toBe('modified');
    expect(await counted.changesFor('src/app.py', headText)).toEqual([]);
    expect(await shows()).toBe(1);

    sh('add', '-A');
    sh('commit', '-q', '-m', 'second');
    await counted.refresh();
    await expect
      .poll(() => counted.status().files, { timeout: 5000 })
      .toEqual({ build: 'ignored', 'debug.log': 'ignored' });
    // The new HEAD has `return 2`: the text that matched the old HEAD is now a change.
    expect(await counted.changesFor('src/app.py', headText)).toEqual([{ kind: 'modified', startLine: 2, endLine: 2 }]);
    expect(await shows()).toBe(2);
    await counted.dispose();
  });

  it('follows a commit made outside Kiln', async () => {
    sh('add', '-A');
    sh('commit', '-q', '-m', 'second');
    await expect
      .poll(() => service.status().files, { timeout: 5000 })
      .toEqual({ build: 'ignored', 'debug.log': 'ignored' });
    expect(await service.changesFor('src/app.py')).toEqual([]);
  });
});

describe('without git or without a repository', () => {
  beforeEach(async () => {
    ({ root, cleanup } = await makeTempTree({ 'a.txt': 'a\n' }));
  });
  afterEach(() => cleanup());

  it('has no decorations, no gutter and no errors', async () => {
    for (const gitPath of [null, git]) {
      const service = new GitService({ root, gitPath });
      await service.start();
      service.scheduleRefresh();
      expect(service.status()).toEqual({ available: false, branch: null, head: null, files: {} });
      expect(await service.changesFor('a.txt', 'b\n')).toEqual([]);
      await service.dispose();
    }
  });
});
