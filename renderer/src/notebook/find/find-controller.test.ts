import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { NotebookCell } from '../../../../shared/contract';
import { FakeBridge } from '../../../../test-support/fake-bridge';
import { codeCell, notebookDoc } from '../../../../test-support/notebook-doc';
import { untilState } from '../../../../test-support/until';
import { NotebookController } from '../notebook-controller';
import { NotebookSession } from '../notebook-session';
import { FindController } from './find-controller';

const code = codeCell;
const doc = (cells: NotebookCell[]) => notebookDoc(cells, 1);

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (cb: () => void) => setTimeout(cb, 0));
  vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
});
afterEach(() => vi.unstubAllGlobals());

/** A notebook whose main side keeps the sources it is sent, with its view's controller and find. */
async function notebookWithFind(cells: NotebookCell[]) {
  const bridge = new FakeBridge();
  const onDisk = new Map(cells.map((c) => [c.id, c.source]));
  bridge.handle('notebook.open', () => doc(cells));
  bridge.handle('notebook.kernelSpecs', () => ({ default: null, specs: [] }));
  bridge.handle('notebook.editCells', ({ edits }) => {
    for (const e of edits) onDisk.set(e.cellId, e.source);
    return { rev: 2, dirty: true };
  });
  const session = new NotebookSession(bridge, 'a.ipynb');
  await session.load();
  const errors: unknown[] = [];
  const notebook = new NotebookController(session, { onError: (e) => errors.push(e), retarget: () => {} });
  const find = new FindController(session, {
    reveal: () => {},
    onError: (e) => errors.push(e),
    replaceSources: (edits) => notebook.replaceSources(edits),
    undo: () => notebook.undo(),
  });
  const sources = () => session.getState().cells.map((c) => c.cell.source);
  return { session, notebook, find, onDisk, errors, sources };
}

it('Replace All is one step of the notebook undo stack: Z takes it back whole and Shift+Z does it again', async () => {
  const { notebook, find, onDisk, errors, sources } = await notebookWithFind([
    code('a', 'alpha = 1'),
    code('b', 'beta = 2'),
    code('c', 'print(alpha, "alpha")'),
  ]);
  find.show(true, 'alpha');
  find.setReplacement('omega');
  expect(find.getState().matches).toHaveLength(3);
  await find.replaceAll();
  expect(sources()).toEqual(['omega = 1', 'beta = 2', 'print(omega, "omega")']);
  expect(notebook.getState().canUndo).toBe(true);

  notebook.undo();
  await untilState(notebook, (s) => s.canRedo, 'the undo to be taken');
  await untilState(find, (s) => s.matches.length === 3, 'the matches back after Z');
  expect(sources()).toEqual(['alpha = 1', 'beta = 2', 'print(alpha, "alpha")']);
  expect(onDisk.get('c')).toBe('print(alpha, "alpha")');
  // The find bar's Undo Replace All goes with it (it is that step's undo).
  expect(find.getState().lastReplaceAll?.step?.isLatest()).toBe(false);

  notebook.redo();
  await untilState(find, (s) => s.matches.length === 0, 'Shift+Z to replace again');
  expect(sources()).toEqual(['omega = 1', 'beta = 2', 'print(omega, "omega")']);
  expect(errors).toEqual([]);
});

it("the find bar's Undo Replace All is the notebook's undo while it is the latest step, so Shift+Z redoes it", async () => {
  const { notebook, find, sources } = await notebookWithFind([code('a', 'x = 1'), code('b', 'x + x')]);
  find.show(true, 'x');
  find.setReplacement('y');
  await find.replaceAll();
  expect(find.getState().lastReplaceAll?.count).toBe(3);
  await find.undoReplaceAll();
  await untilState(notebook, (s) => s.canRedo, 'the undo to be taken');
  await untilState(find, (s) => s.matches.length === 3, 'the matches back');
  expect(sources()).toEqual(['x = 1', 'x + x']);
  notebook.redo();
  await untilState(find, (s) => s.matches.length === 0, 'the redo');
  expect(sources()).toEqual(['y = 1', 'y + y']);
});
