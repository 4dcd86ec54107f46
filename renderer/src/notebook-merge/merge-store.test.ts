import { describe, expect, it } from 'vitest';
import type { NotebookMergeResult, RequestArgs } from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { FakeBridge } from '../../../test-support/fake-bridge';
import { describeConflict } from './describe';
import { NotebookMergeStore } from './merge-store';

const MERGE: NotebookMergeResult = {
  path: 'run.ipynb',
  fileHash: 'h1',
  versions: '1:a 2:b 3:c',
  addedOnBothSides: false,
  merge: {
    items: [
      { kind: 'cell', origin: 'unchanged', cellType: 'code', source: 'x', base: 0, ours: 0, theirs: 0 },
      {
        kind: 'conflict',
        conflictId: 'cell:o1',
        reason: 'both-modified',
        parts: ['source', 'outputs'],
        metadataKeys: [],
        base: { index: 1, id: 'a', cellType: 'code', source: 'y' },
        ours: [{ index: 1, id: 'a', cellType: 'code', source: 'y1' }],
        theirs: [{ index: 1, id: 'a', cellType: 'code', source: 'y2' }],
      },
    ],
    notebookConflicts: [{ conflictId: 'metadata:title', scope: 'metadata', key: 'title', ours: 'A', theirs: 'B' }],
    conflictIds: ['cell:o1', 'metadata:title'],
  },
};

describe('NotebookMergeStore', () => {
  it('saves with the choices made and the versions shown, stages only for Save and Stage, then reopens', async () => {
    const saves: RequestArgs<'git.saveNotebookMerge'>[] = [];
    const staged: string[] = [];
    const bridge = new FakeBridge()
      .handle('git.notebookMerge', () => MERGE)
      .handle('git.saveNotebookMerge', (args) => {
        saves.push(args);
        return { path: args.path, hash: 'h2', mtimeMs: 1, size: 10 };
      })
      .handle('git.stage', ({ path }) => {
        staged.push(path);
        return { available: true, branch: 'main', head: 'c0', files: { [path]: 'modified' } };
      });
    let reopened = 0;
    const store = new NotebookMergeStore(bridge, 'run.ipynb', () => reopened++);
    await store.load();
    expect(store.progress()).toEqual({ resolved: 0, total: 2 });
    store.resolve('cell:o1', 'both');
    store.resolve('metadata:title', 'theirs');
    expect(store.progress()).toEqual({ resolved: 2, total: 2 });
    await store.save(false);
    expect(saves).toEqual([
      {
        path: 'run.ipynb',
        fileHash: 'h1',
        versions: '1:a 2:b 3:c',
        resolutions: { 'cell:o1': 'both', 'metadata:title': 'theirs' },
      },
    ]);
    expect(staged).toEqual([]);
    expect(reopened).toBe(1);
    expect(store.getState().status).toBe('saved');

    const again = new NotebookMergeStore(bridge, 'run.ipynb', () => reopened++);
    await again.load();
    again.resolve('cell:o1', 'ours');
    again.resolve('metadata:title', 'ours');
    await again.save(true);
    expect(staged).toEqual(['run.ipynb']);
    expect(reopened).toBe(2);
  });

  it('says why a save failed and stays open for another try', async () => {
    const bridge = new FakeBridge()
      .handle('git.notebookMerge', () => MERGE)
      .handle('git.saveNotebookMerge', () => {
        throw new KilnError('E_CHANGED_ON_DISK', 'run.ipynb changed on disk', {
          path: 'run.ipynb',
          diskHash: 'h3',
          baselineHash: 'h1',
        });
      });
    let reopened = 0;
    const store = new NotebookMergeStore(bridge, 'run.ipynb', () => reopened++);
    await store.load();
    await store.save(true);
    expect(store.getState()).toMatchObject({
      status: 'ready',
      error: 'Could not save and stage: run.ipynb changed on disk',
    });
    expect(reopened).toBe(0);
  });

  it('names a conflict by its cell and what both sides changed', () => {
    const conflict = MERGE.merge.items[1];
    if (conflict.kind !== 'conflict') throw new Error('fixture');
    expect(describeConflict(conflict, 2)).toBe('Cell 2: source and outputs changed on both sides');
    expect(describeConflict({ ...conflict, reason: 'delete-modified', ours: [] }, 4)).toBe(
      'Cell 4: deleted on our side, edited on the other',
    );
  });
});
