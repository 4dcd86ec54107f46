/**
 * A notebook in a real git merge conflict, end to end in main: two branches of a real repository each edit the
 * notebook (a cell each, and one cell both), `git merge` leaves conflict markers, and the contract's channels
 * give the three-way merge, save the resolution as Jupyter writes it, and stage it only when asked.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KilnBridge } from '../../shared/contract';
import { trustFolder } from '../../main/trust';
import { nbformatProblems } from '../../test-support/nbformat-build';
import {
  gitIn as git,
  LOAD as load,
  LOAD_OURS as loadOurs,
  LOAD_THEIRS as loadTheirs,
  makeNotebookConflict,
  notebookConflictTexts,
} from '../../test-support/notebook-conflict';
import { startServices, type RunningServices } from '../../test-support/services';

const texts = notebookConflictTexts();
const { base: BASE, ours: OURS, theirs: THEIRS, resolvedTheirs: RESOLVED } = texts;
const conflictedRepository = (root: string) => makeNotebookConflict(root, texts);

let running: RunningServices;
let bridge: KilnBridge;
const disk = () => readFile(path.join(running.root, 'run.ipynb'), 'utf8');

describe('a notebook in a git merge conflict', () => {
  beforeEach(async () => {
    running = await startServices(
      {},
      {
        prepare: async (root, dataDir) => {
          await conflictedRepository(root);
          await trustFolder(dataDir, root);
        },
      },
    );
    bridge = running.bridge;
  });
  afterEach(async () => {
    await running.close();
  });

  it('opens as a conflict; its merge has one conflict; the resolution saves as Jupyter writes it; staging clears it', async () => {
    const conflicted = await disk();
    expect(conflicted).toMatch(/^<<<<<<< HEAD$/m);
    await expect(bridge.request('notebook.open', { path: 'run.ipynb' })).rejects.toMatchObject({
      code: 'E_NOTEBOOK_CONFLICT',
      details: { path: 'run.ipynb' },
    });

    const shown = await bridge.request('git.notebookMerge', { path: 'run.ipynb' });
    expect(shown.addedOnBothSides).toBe(false);
    expect(shown.merge.conflictIds).toEqual(['cell:o1']);
    expect(shown.merge.items.map((item) => (item.kind === 'cell' ? item.origin : item.reason))).toEqual([
      'unchanged',
      'both-modified',
      'unchanged',
      'theirs',
      'unchanged',
      'ours',
    ]);
    expect(shown.merge.items[1]).toMatchObject({
      ours: [{ source: loadOurs.source }],
      theirs: [{ source: loadTheirs.source }],
      base: { source: load.source },
    });

    // Not staged before the operator says so, and never with its markers.
    await expect(bridge.request('git.stage', { path: 'run.ipynb' })).rejects.toMatchObject({
      code: 'E_NOTEBOOK_CONFLICT',
    });
    await expect(
      bridge.request('git.saveNotebookMerge', {
        path: 'run.ipynb',
        fileHash: shown.fileHash,
        versions: shown.versions,
        resolutions: {},
      }),
    ).rejects.toMatchObject({ code: 'E_BAD_REQUEST' });

    const written = await bridge.request('git.saveNotebookMerge', {
      path: 'run.ipynb',
      fileHash: shown.fileHash,
      versions: shown.versions,
      resolutions: { 'cell:o1': 'theirs' },
    });
    expect(await disk()).toBe(RESOLVED);
    expect(written.hash).not.toBe(shown.fileHash);
    expect(nbformatProblems([await disk()])).toEqual([null]);
    // Saved through the workspace: local history kept the conflicted file.
    const { entries } = await bridge.request('history.list', { path: 'run.ipynb' });
    const kept = await bridge.request('history.read', { path: 'run.ipynb', id: entries[0].id });
    expect(kept.text).toBe(conflicted);
    expect(git(running.root, 'status', '--porcelain')).toMatch(/^UU run\.ipynb$/m);

    const status = await bridge.request('git.stage', { path: 'run.ipynb' });
    expect(status.files['run.ipynb']).toBe('modified');
    expect(git(running.root, 'status', '--porcelain')).toMatch(/^M {2}run\.ipynb$/m);
    expect(git(running.root, 'diff', '--name-only', '--diff-filter=U')).toBe('');
    // The resolved notebook opens.
    const opened = await bridge.request('notebook.open', { path: 'run.ipynb' });
    expect(opened.cells.map((cell) => cell.id)).toEqual(['intro', 'load', 'mid', 'train', 'gap', 'plot']);
  });

  it('refuses a save over a file that changed since the merge was shown, writing nothing', async () => {
    const shown = await bridge.request('git.notebookMerge', { path: 'run.ipynb' });
    const edited = `${await disk()}\n`;
    await writeFile(path.join(running.root, 'run.ipynb'), edited);
    await expect(
      bridge.request('git.saveNotebookMerge', {
        path: 'run.ipynb',
        fileHash: shown.fileHash,
        versions: shown.versions,
        resolutions: { 'cell:o1': 'ours' },
      }),
    ).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
    expect(await disk()).toBe(edited);
  });

  it('gives the working file and HEAD for Open Changes, and no merge for a file git holds no conflict for', async () => {
    git(running.root, 'merge', '--abort');
    expect(await disk()).toBe(OURS);
    await writeFile(path.join(running.root, 'run.ipynb'), THEIRS);
    const changes = await bridge.request('git.openChanges', { path: 'run.ipynb' });
    expect(changes).toMatchObject({ path: 'run.ipynb', head: OURS, working: THEIRS });
    await writeFile(path.join(running.root, 'new.ipynb'), BASE);
    expect(await bridge.request('git.openChanges', { path: 'new.ipynb' })).toMatchObject({ head: null, working: BASE });
    await expect(bridge.request('git.notebookMerge', { path: 'run.ipynb' })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
    });
  });
});

describe('in an untrusted folder', () => {
  it('runs no git: the merge is refused with E_UNTRUSTED', async () => {
    const untrusted = await startServices({}, { prepare: (root) => conflictedRepository(root) });
    try {
      await expect(untrusted.bridge.request('git.notebookMerge', { path: 'run.ipynb' })).rejects.toMatchObject({
        code: 'E_UNTRUSTED',
      });
      await expect(untrusted.bridge.request('git.openChanges', { path: 'run.ipynb' })).rejects.toMatchObject({
        code: 'E_UNTRUSTED',
      });
    } finally {
      await untrusted.close();
    }
  });
});
