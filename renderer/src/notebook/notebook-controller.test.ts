import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NotebookCell } from '../../../shared/contract';
import { fakeBridge } from '../../../test-support/fake-bridge';
import { codeCell, notebookDoc } from '../../../test-support/notebook-doc';
import { untilState } from '../../../test-support/until';
import { NotebookController } from './notebook-controller';
import { NotebookSession } from './notebook-session';

const code = codeCell;
const doc = notebookDoc;

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (cb: () => void) => setTimeout(cb, 0));
  vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
});
afterEach(() => vi.unstubAllGlobals());

describe('NotebookController', () => {
  /** A notebook main keeps in a list, answering the cell requests the controller makes. */
  function notebookBridge(cells: NotebookCell[]) {
    let ids = 0;
    return fakeBridge({
      'notebook.open': () => doc(cells),
      'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
      'notebook.runCell': (a) => ({
        cell_id: a.cellId,
        status: 'ok',
        exec_count: 1,
        duration_ms: 1,
        had_error: false,
        outputs: [],
      }),
      'notebook.insertCell': (a) => {
        const cell = code(`new${++ids}`, a.source);
        const index = a.index ?? cells.length;
        cells.splice(index, 0, cell);
        return { cell, index, rev: 6, dirty: true };
      },
      'notebook.deleteCell': (a) => {
        const index = cells.findIndex((c) => c.id === a.cellId);
        const [cell] = cells.splice(index, 1);
        return { cell, index, rev: 7, dirty: true };
      },
      'notebook.restoreCell': (a) => {
        cells.splice(Number(a.index), 0, a.cell as NotebookCell);
        return { rev: 8, dirty: true };
      },
      'notebook.deleteCells': (a) => {
        const removed = cells.map((cell, index) => ({ cell, index })).filter((p) => a.cellIds.includes(p.cell.id));
        for (const p of [...removed].reverse()) cells.splice(p.index, 1);
        return { removed, rev: 7, dirty: true };
      },
      'notebook.insertCells': (a) => {
        const inserted = a.cells.map((c) => (a.keepIds ? c : { ...c, id: `new${++ids}` }));
        cells.splice(a.index, 0, ...inserted);
        return { cells: inserted, index: a.index, rev: 8, dirty: true };
      },
      'notebook.setCellMetadata': (a) => {
        const cell = cells.find((c) => c.id === a.cellId);
        if (cell) cell.metadata = a.metadata;
        return { rev: 10, dirty: true };
      },
      'notebook.moveCells': (a) => {
        const moving = new Set(a.cellIds);
        const picked = cells.filter((c) => moving.has(c.id));
        const rest = cells.filter((c) => !moving.has(c.id));
        cells.splice(0, cells.length, ...rest.slice(0, a.toIndex), ...picked, ...rest.slice(a.toIndex));
        return { rev: 9, dirty: true };
      },
    });
  }

  async function open(cells: NotebookCell[]) {
    const { bridge } = notebookBridge(cells);
    const session = new NotebookSession(bridge, 'a.ipynb');
    await session.load();
    let told: (err: unknown) => void = () => undefined;
    const failed = new Promise<unknown>((resolve) => (told = resolve));
    const notebook = new NotebookController(session, { onError: (err) => told(err), retarget: () => undefined });
    notebook.keepSelection();
    return { session, notebook, bridge, failed };
  }

  it('selects the first cell; Shift+Enter runs and moves down, and on the last cell adds a new one to type in', async () => {
    const { session, notebook, bridge } = await open([code('c1', '1'), code('c2', '2')]);
    expect(notebook.getState().activeId).toBe('c1');
    notebook.run('c1', 'advance');
    expect(notebook.getState()).toMatchObject({ activeId: 'c2', mode: 'command' });
    notebook.run('c2', 'advance');
    await untilState(notebook, (s) => s.activeId === 'new1');
    expect(bridge.sentOn('notebook.runCell').map((args) => args.cellId)).toEqual(['c1', 'c2']);
    expect(session.getState().cells.map((c) => c.cell.id)).toEqual(['c1', 'c2', 'new1']);
    expect(notebook.getState()).toMatchObject({ activeId: 'new1', mode: 'edit' });
  });

  it('B on a folded heading unfolds its section (and the one around it) and makes the new cell active', async () => {
    const heading = (id: string, source: string): NotebookCell =>
      ({ ...code(id, source), cell_type: 'markdown', metadata: { heading_collapsed: true } }) as NotebookCell;
    const { session, notebook } = await open([heading('h1', '# Top'), heading('h2', '## Inner'), code('c1')]);
    notebook.insert('h2', 'below');
    await untilState(notebook, (s) => s.activeId === 'new1');
    const ids = session.getState().cells.map((c) => c.cell.id);
    expect(ids).toEqual(['h1', 'h2', 'new1', 'c1']);
    expect(session.cell('h1')?.cell.metadata).toEqual({});
    expect(session.cell('h2')?.cell.metadata).toEqual({});
    expect(notebook.getState()).toMatchObject({ activeId: 'new1', mode: 'command' });
  });

  it('D D then Z: the deleted cell comes back where it was, selected', async () => {
    const { session, notebook } = await open([code('c1'), code('c2'), code('c3')]);
    notebook.remove('c2');
    await untilState(notebook, (s) => s.activeId !== 'c1');
    expect(session.getState().cells.map((c) => c.cell.id)).toEqual(['c1', 'c3']);
    expect(notebook.getState().activeId).toBe('c3');
    notebook.undo();
    await untilState(notebook, (s) => s.activeId !== 'c3');
    expect(session.getState().cells.map((c) => c.cell.id)).toEqual(['c1', 'c2', 'c3']);
    expect(notebook.getState()).toMatchObject({ activeId: 'c2', mode: 'command' });
  });

  it('puts a cell from elsewhere in place of one, or at an index, as one step Z takes back', async () => {
    const { session, notebook } = await open([code('c1', 'a = 10'), code('c2', 'b = 2')]);
    const sources = () => session.getState().cells.map((c) => `${c.cell.id}:${c.cell.source}`);
    expect(await notebook.putCell(code('c1', 'a = 1'), { replaceId: 'c1', index: 0 })).toBe(true);
    expect(sources()).toEqual(['c1:a = 1', 'c2:b = 2']);
    expect(await notebook.putCell(code('gone', 'c = 3'), { replaceId: null, index: 2 })).toBe(true);
    expect(sources()).toEqual(['c1:a = 1', 'c2:b = 2', 'gone:c = 3']);
    expect(session.getState().dirty).toBe(true);
    notebook.undo();
    await untilState(session, (s) => s.cells.length === 2);
    notebook.undo();
    await untilState(session, (s) => s.cells[0]?.cell.source === 'a = 10');
    expect(sources()).toEqual(['c1:a = 10', 'c2:b = 2']);
    // A cell that went away meanwhile is told, not replaced.
    expect(await notebook.putCell(code('x', 'x'), { replaceId: 'nope', index: 0 })).toBe(false);
    expect(sources()).toEqual(['c1:a = 10', 'c2:b = 2']);
  });

  it('Shift+J extends the selection, D D deletes it all, Z puts it back and Shift+Z deletes it again', async () => {
    const { session, notebook } = await open([code('c1'), code('c2'), code('c3'), code('c4')]);
    const ids = () => session.getState().cells.map((c) => c.cell.id);
    notebook.focus('c2', 'command');
    notebook.extendBy(1);
    expect(notebook.selection()).toEqual(['c2', 'c3']);
    expect(notebook.getState().activeId).toBe('c3');
    notebook.extendBy(-1);
    expect(notebook.selection()).toEqual(['c2']);
    notebook.extendBy(1);
    notebook.remove('c3');
    await untilState(session, () => ids().length === 2);
    expect(ids()).toEqual(['c1', 'c4']);
    notebook.undo();
    await untilState(notebook, () => ids().length === 4 && notebook.selection().length === 2);
    expect(ids()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(notebook.selection()).toEqual(['c2', 'c3']);
    notebook.redo();
    await untilState(session, () => ids().length === 2);
    expect(ids()).toEqual(['c1', 'c4']);
  });

  it('Shift+click extends, Ctrl+click toggles, Ctrl+A selects all; aria state follows', async () => {
    const { notebook } = await open([code('c1'), code('c2'), code('c3'), code('c4')]);
    notebook.pointerSelect('c3', { extend: true, toggle: false });
    expect(notebook.selection()).toEqual(['c1', 'c2', 'c3']);
    notebook.pointerSelect('c2', { extend: false, toggle: true });
    expect(notebook.selection()).toEqual(['c1', 'c3']);
    expect(notebook.isSelected('c2')).toBe(false);
    notebook.pointerSelect('c4', { extend: false, toggle: false });
    expect(notebook.selection()).toEqual(['c4']);
    notebook.selectAll();
    expect(notebook.selection()).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('moves a selection as a block (Ctrl+Shift+Down) and undo puts each cell back', async () => {
    const { session, notebook } = await open([code('c1'), code('c2'), code('c3'), code('c4')]);
    const ids = () => session.getState().cells.map((c) => c.cell.id);
    notebook.pointerSelect('c3', { extend: false, toggle: true });
    expect(notebook.selection()).toEqual(['c1', 'c3']);
    notebook.move('c1', 1);
    await untilState(session, () => ids()[0] === 'c2');
    expect(ids()).toEqual(['c2', 'c1', 'c3', 'c4']);
    notebook.undo();
    await untilState(session, () => ids()[0] === 'c1');
    expect(ids()).toEqual(['c1', 'c2', 'c3', 'c4']);
  });

  it('copy and paste below: the copies get new ids, and Z takes the paste back', async () => {
    const { session, notebook } = await open([code('c1', 'a'), code('c2', 'b'), code('c3', 'c')]);
    const ids = () => session.getState().cells.map((c) => c.cell.id);
    notebook.extendBy(1);
    await notebook.copy('c2');
    notebook.focus('c3', 'command');
    notebook.paste('c3', 'below');
    await untilState(notebook, () => notebook.selection().length === 2 && ids().length === 5);
    expect(session.getState().cells.map((c) => c.cell.source)).toEqual(['a', 'b', 'c', 'a', 'b']);
    expect(ids().slice(3)).not.toContain('c1');
    expect(notebook.selection()).toEqual(ids().slice(3));
    notebook.undo();
    await untilState(session, () => ids().length === 3);
  });

  it('a failed operation is told, and the selection stays', async () => {
    const { notebook, failed } = await open([code('c1')]);
    notebook.setType('c1', 'markdown');
    expect(String(await failed)).toMatch(/notebook.setCellType/);
    expect(notebook.getState().activeId).toBe('c1');
  });
});
