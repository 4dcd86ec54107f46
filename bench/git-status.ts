import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../main/process';
import { GitService } from '../main/git';
import { median, report, type BenchResult } from './support';

const FILES = 100_000;
const PER_DIR = 500;
const CHANGED = 200;
const RUNS = 9;
const STATUS_ARGS = ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=normal', '--ignored=traditional'];

/**
 * Git decorations on a 100,000-file repository with 200 changed and 200 new files: Kiln's refresh (git
 * status, parsing, the decoration map published) against `git status` run directly with the same options.
 */
export async function runGitStatusBench(): Promise<BenchResult | null> {
  const git = await findExecutable('git', process.env.PATH);
  if (!git) {
    console.log('git-status: skipped, no git on PATH');
    return null;
  }
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-git-'));
  const rels: string[] = [];
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const dir = `pkg${d % 20}/mod${d}`;
    await mkdir(path.join(root, dir), { recursive: true });
    const batch: Promise<void>[] = [];
    for (let f = 0; f < PER_DIR; f++) {
      const rel = `${dir}/file${f}.py`;
      rels.push(rel);
      batch.push(writeFile(path.join(root, rel), `x = ${f}\n`));
    }
    await Promise.all(batch);
  }
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
    GIT_OPTIONAL_LOCKS: '0',
  };
  const sh = (...args: string[]) => execFileSync(git, args, { cwd: root, env, stdio: 'ignore', maxBuffer: 1 << 30 });
  sh('init', '-q');
  sh('add', '-A');
  sh('commit', '-q', '-m', 'bench');
  for (let i = 0; i < CHANGED; i++) {
    await writeFile(path.join(root, rels[i * 97]), 'changed\n');
    await writeFile(path.join(root, `pkg${i % 20}/new${i}.py`), 'new\n');
  }
  // Settle the index's stat cache once, as an operator's first `git status` does (it may write the index).
  execFileSync(git, ['status'], {
    cwd: root,
    env: { ...env, GIT_OPTIONAL_LOCKS: '1' },
    stdio: 'ignore',
    maxBuffer: 1 << 30,
  });

  let published = 0;
  const service = new GitService({ root });
  service.onDidChange(() => published++);
  const throughKiln = async () => {
    const start = performance.now();
    await service.refresh();
    return performance.now() - start;
  };
  const direct = () =>
    new Promise<number>((resolve, reject) => {
      const start = performance.now();
      execFile(git, STATUS_ARGS, { cwd: root, env, maxBuffer: 1 << 30 }, (err) =>
        err ? reject(err) : resolve(performance.now() - start),
      );
    });
  await direct();
  await throughKiln();
  const files = Object.keys(service.status().files).length;
  if (published !== 1 || files < CHANGED * 2) throw new Error(`unexpected status: ${files} entries`);
  const kiln: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    baseline.push(await direct());
    kiln.push(await throughKiln());
  }
  await service.dispose();
  await rm(root, { recursive: true, force: true });
  const result = {
    name: `git-status: ${FILES.toLocaleString('en-US')}-file repository, ${files} decorated entries (Kiln's refresh vs git status directly), median of ${RUNS}`,
    kiln: median(kiln),
    baseline: median(baseline),
    unit: 'ms',
  };
  report(result);
  return result;
}
