import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nbformatWrites, type CellSpec, type NotebookSpec } from './nbformat-build';

/*
 * A real git repository whose `git merge` leaves run.ipynb in conflict: two branches each edit one cell of their
 * own and both edit the `load` cell differently. The notebooks are nbformat's own bytes.
 */

const meta = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };
const intro: CellSpec = { id: 'intro', type: 'markdown', source: '# Run\nThe steps.' };
export const LOAD: CellSpec = { id: 'load', source: 'import json\ncfg = json.load(open("c.json"))' };
// Cells between the changed ones keep git's hunks apart: only `load` is a textual conflict.
const mid: CellSpec = { id: 'mid', type: 'markdown', source: 'Between the cells\nthat change.\nThree lines.' };
const train: CellSpec = { id: 'train', source: 'for step in range(3):\n    print(step)' };
const gap: CellSpec = { id: 'gap', type: 'markdown', source: 'Another cell\nkeeping hunks\napart.' };
const plot: CellSpec = { id: 'plot', source: 'score' };

export const LOAD_OURS: CellSpec = { ...LOAD, source: 'import json\ncfg = json.load(open("ours.json"))' };
export const LOAD_THEIRS: CellSpec = { ...LOAD, source: 'import json\ncfg = json.load(open("theirs.json"))' };
const trainTheirs: CellSpec = { ...train, source: 'for step in range(5):\n    print(step)' };
const plotOurs: CellSpec = { ...plot, source: 'score * 2' };

const nb = (cells: CellSpec[]): NotebookSpec => ({ metadata: meta, cells });

export interface NotebookConflictTexts {
  base: string;
  ours: string;
  theirs: string;
  /** The merge with theirs taken for `load`, each side's own edit kept. */
  resolvedTheirs: string;
}

export function notebookConflictTexts(): NotebookConflictTexts {
  const [base, ours, theirs, resolvedTheirs] = nbformatWrites([
    nb([intro, LOAD, mid, train, gap, plot]),
    nb([intro, LOAD_OURS, mid, train, gap, plotOurs]),
    nb([intro, LOAD_THEIRS, mid, trainTheirs, gap, plot]),
    nb([intro, LOAD_THEIRS, mid, trainTheirs, gap, plotOurs]),
  ]);
  return { base, ours, theirs, resolvedTheirs };
}

/** Real git in `root`, as the operator's terminal runs it. */
export function gitIn(root: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: 'pipe',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

/** Makes `root` a repository on `main` in the middle of a merge of `theirs` that left run.ipynb conflicted. */
export async function makeNotebookConflict(root: string, texts: NotebookConflictTexts): Promise<void> {
  const file = path.join(root, 'run.ipynb');
  const git = (...args: string[]) => gitIn(root, ...args);
  git('init', '-q', '-b', 'main');
  await writeFile(file, texts.base);
  git('add', 'run.ipynb');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'theirs');
  await writeFile(file, texts.theirs);
  git('commit', '-q', '-am', 'theirs');
  git('checkout', '-q', 'main');
  await writeFile(file, texts.ours);
  git('commit', '-q', '-am', 'ours');
  try {
    git('merge', '-q', 'theirs');
  } catch {
    // git exits 1 on a conflict: the status below says whether it is the one wanted.
  }
  const status = git('status', '--porcelain', '--', 'run.ipynb');
  if (status !== 'UU run.ipynb\n') throw new Error(`expected run.ipynb in conflict, git status says: ${status}`);
}
