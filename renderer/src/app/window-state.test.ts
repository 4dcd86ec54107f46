import { describe, expect, it } from 'vitest';
import type { KilnBridge, NotebookCell } from '../../../shared/contract';
import { Store } from '../base';
import { TreeDragInFlight, useTreeDragInFlight } from '../drag-out/drag-data';
import { useReveals } from '../editor/reveal';
import { notebookEditTarget, registerNotebookEditTarget } from '../language/notebook-edits';
import { CELLS_MIME, cellsToJson } from '../notebook/cell-clipboard';
import { notebookTabDrop, useCellDrags } from '../notebook/cell-drag';
import { useCellNumbers } from '../notebook/language/cell-numbers';
import type { NotebookSessionState } from '../notebook/notebook-session';
import { showNotebookOutline, useOutlineFeed } from '../notebook/outline-feed';
import { notebookRestoreTarget, registerNotebookRestoreTarget } from '../notebook-targets';
import { useProblemsPanel } from '../problems/problems-store';

// Two windows (bridges) in one page, as the web host's tests and a second workspace have them: what one window
// asks or shows stays in its own stores (perBridge), never seen by the other. These were module-level once.
const twoWindows = () => [{} as KilnBridge, {} as KilnBridge] as const;

const cell = (id: string): NotebookCell => ({ id, cell_type: 'code', source: 'x = 1', metadata: {} }) as NotebookCell;

class FakeSession extends Store<NotebookSessionState> {
  constructor(
    readonly path: string,
    ids: string[],
  ) {
    super({ cells: ids.map((id) => ({ cell: cell(id) })) } as unknown as NotebookSessionState);
  }
}

describe('state of two windows in one page', () => {
  it("a reveal asked in one window is taken only by that window's editor", () => {
    const [a, b] = twoWindows();
    const heard: string[] = [];
    useReveals.of(b).onRequest((path) => heard.push(path));
    useReveals.of(a).request('src/app.py', { line: 3, start: 0, end: 4 });
    expect(heard).toEqual([]);
    expect(useReveals.of(b).take('src/app.py')).toBeUndefined();
    expect(useReveals.of(a).take('src/app.py')).toEqual({ line: 3, start: 0, end: 4 });
  });

  it("a notebook's outline shown in one window is not listed in the other", () => {
    const [a, b] = twoWindows();
    const session = new FakeSession('nb.ipynb', ['c1']);
    const selection = { subscribe: () => () => undefined, getState: () => ({ activeId: null }) };
    const hide = showNotebookOutline(a, 'nb.ipynb', { session, selection });
    expect(useOutlineFeed.of(a).get('nb.ipynb')?.session).toBe(session);
    expect(useOutlineFeed.of(b).get('nb.ipynb')).toBeUndefined();
    hide();
    expect(useOutlineFeed.of(a).get('nb.ipynb')).toBeUndefined();
  });

  it("the tree's drag in one window is no tree drag in the other", () => {
    const [a, b] = twoWindows();
    const osFiles = { types: ['Files'], getData: () => '' };
    useTreeDragInFlight.of(a).begin(['src/a.py']);
    expect(useTreeDragInFlight.of(a)).toBeInstanceOf(TreeDragInFlight);
    expect(useTreeDragInFlight.of(a).pathsOf(osFiles)).toEqual(['src/a.py']);
    expect(useTreeDragInFlight.of(b).pathsOf(osFiles)).toBeNull();
  });

  it("cells dropped on a notebook's tab in one window reach only that window's view", () => {
    const [a, b] = twoWindows();
    const data = { getData: (type: string) => (type === CELLS_MIME ? cellsToJson([cell('c9')]) : '') };
    notebookTabDrop.drop('nb.ipynb', data as DataTransfer, a);
    const pastedInB: string[] = [];
    useCellDrags.of(b).takeTabDrops(
      () => 'nb.ipynb',
      (cells) => pastedInB.push(...cells.map((c) => c.id)),
    );
    expect(pastedInB).toEqual([]);
    const pastedInA: string[] = [];
    useCellDrags.of(a).takeTabDrops(
      () => 'nb.ipynb',
      (cells) => pastedInA.push(...cells.map((c) => c.id)),
    );
    expect(pastedInA).toHaveLength(1);
  });

  it("one window's open notebooks are the targets of its restores, edits and cell numbers only", () => {
    const [a, b] = twoWindows();
    const restore = {
      path: () => 'nb.ipynb',
      holdsNotebook: () => true,
      cellIds: () => ['c1'],
      putCell: () => Promise.resolve(true),
      takeCell: () => Promise.resolve(true),
      flushEdits: () => Promise.resolve(),
    };
    const withdraw = registerNotebookRestoreTarget(a, restore);
    expect(notebookRestoreTarget(a, 'nb.ipynb')).toBe(restore);
    expect(notebookRestoreTarget(b, 'nb.ipynb')).toBeNull();
    withdraw();
    expect(notebookRestoreTarget(a, 'nb.ipynb')).toBeNull();

    const edits = {
      path: () => 'nb.ipynb',
      sourceOf: () => 'x = 1',
      numberOf: () => 1,
      replaceSources: () => Promise.resolve(),
    };
    registerNotebookEditTarget(a, edits);
    expect(notebookEditTarget(a, 'nb.ipynb')).toBe(edits);
    expect(notebookEditTarget(b, 'nb.ipynb')).toBeNull();

    const stop = useCellNumbers.of(a).track(new FakeSession('nb.ipynb', ['c1', 'c2']));
    expect(useCellNumbers.of(a).numberOf('nb.ipynb', 'c2')).toBe(2);
    expect(useCellNumbers.of(b).numberOf('nb.ipynb', 'c2')).toBeNull();
    stop();
    expect(useCellNumbers.of(a).numberOf('nb.ipynb', 'c2')).toBeNull();
  });

  it('the Problems panel shown in one window stays hidden in the other', () => {
    const [a, b] = twoWindows();
    useProblemsPanel.of(a).show();
    expect(useProblemsPanel.of(a).getState().open).toBe(true);
    expect(useProblemsPanel.of(b).getState().open).toBe(false);
  });
});
