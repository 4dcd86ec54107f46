import { describe, expect, it } from 'vitest';
import type { Variable } from '../../../shared/contract';
import { FakeBridge } from '../../../test-support/fake-bridge';
import { untilState } from '../../../test-support/until';
import { formatSize, VariablesStore, visibleVariables } from './variables-store';

const v = (name: string, type: string, size: number | null, shape: string | null = null): Variable => ({
  name,
  type,
  kind: 'data',
  shape,
  size,
  summary: name.toUpperCase(),
  expandable: false,
  ref: [name],
});

const ROWS = [
  v('beta', 'str', 60),
  v('Alpha', 'int', 28),
  v('x10', 'list', null, 'len 3'),
  v('x9', 'ndarray', 800, '100'),
];

describe('visibleVariables', () => {
  it('sorts by any column, either way; rows without a value go last', () => {
    const names = (column: Parameters<typeof visibleVariables>[2]['column'], descending = false) =>
      visibleVariables(ROWS, '', { column, descending }).map((r) => r.name);
    expect(names('name')).toEqual(['Alpha', 'beta', 'x9', 'x10']);
    expect(names('name', true)).toEqual(['x10', 'x9', 'beta', 'Alpha']);
    expect(names('size')).toEqual(['Alpha', 'beta', 'x9', 'x10']);
    expect(names('size', true)).toEqual(['x9', 'beta', 'Alpha', 'x10']);
    expect(names('type')).toEqual(['Alpha', 'x10', 'x9', 'beta']);
    expect(names('shape')).toEqual(['x9', 'x10', 'Alpha', 'beta']);
  });

  it('filters by name, case-insensitively', () => {
    expect(visibleVariables(ROWS, ' A', { column: 'name', descending: false }).map((r) => r.name)).toEqual([
      'Alpha',
      'beta',
    ]);
  });

  it('formats sizes', () => {
    expect([formatSize(null), formatSize(28), formatSize(1536), formatSize(80_000_000)]).toEqual([
      '',
      '28 B',
      '1.5 KB',
      '76.3 MB',
    ]);
  });
});

describe('VariablesStore', () => {
  it('asks only while open and for a notebook; again when main says the runs ended, not on busy/idle', async () => {
    const bridge = new FakeBridge().handle('notebook.variables', () => ({
      status: 'ok',
      variables: [v('x', 'int', 28)],
      total: 1,
    }));
    const store = new VariablesStore(bridge);
    store.follow('a.ipynb');
    expect(bridge.sentOn('notebook.variables')).toEqual([]);
    store.toggle();
    await untilState(store, (s) => s.variables?.length === 1, 'the first list');
    bridge.emit('notebook.kernelStatus', {
      path: 'a.ipynb',
      kernel: { status: 'busy', name: 'python3', displayName: 'Python 3', language: 'python' },
    });
    bridge.emit('notebook.kernelStatus', {
      path: 'a.ipynb',
      kernel: { status: 'idle', name: 'python3', displayName: 'Python 3', language: 'python' },
    });
    bridge.emit('notebook.variablesChanged', { path: 'other.ipynb' });
    expect(bridge.sentOn('notebook.variables')).toHaveLength(1);
    bridge.emit('notebook.variablesChanged', { path: 'a.ipynb' });
    expect(bridge.sentOn('notebook.variables')).toHaveLength(2);
    // A restart: the list is stale when it starts and when the new kernel is idle.
    for (const status of ['restarting', 'idle'] as const)
      bridge.emit('notebook.kernelStatus', {
        path: 'a.ipynb',
        kernel: { status, name: 'python3', displayName: 'Python 3', language: 'python' },
      });
    expect(bridge.sentOn('notebook.variables')).toHaveLength(4);
    store.dispose();
  });

  it('keeps the last list under a busy note; shows a miss without a list otherwise', async () => {
    let answer: 'ok' | 'busy' | 'unsupported' = 'ok';
    const bridge = new FakeBridge().handle('notebook.variables', () =>
      answer === 'ok'
        ? { status: 'ok', variables: [v('x', 'int', 28)], total: 1 }
        : {
            status: answer,
            message: answer === 'busy' ? 'A cell is running' : 'Variables are shown for Python kernels',
          },
    );
    const store = new VariablesStore(bridge);
    store.follow('a.ipynb');
    store.toggle();
    await untilState(store, (s) => s.variables !== null, 'the first list');
    answer = 'busy';
    await store.refresh();
    expect(store.getState()).toMatchObject({ miss: 'busy', message: 'A cell is running' });
    expect(store.getState().variables).toHaveLength(1);
    answer = 'unsupported';
    await store.refresh();
    expect(store.getState()).toMatchObject({ miss: 'unsupported', variables: null });
    store.dispose();
  });

  it('expands a row lazily, a page at a time, and closes its expanded descendants with it', async () => {
    const items = Array.from({ length: 150 }, (_, i) => ({ ...v(`[${i}]`, 'int', 28), ref: ['many', ['i', i]] }));
    const bridge = new FakeBridge()
      .handle('notebook.variables', () => ({
        status: 'ok',
        variables: [{ ...v('many', 'list', null, 'len 150'), expandable: true }],
        total: 1,
      }))
      .handle('notebook.expandVariable', ({ offset }) => ({
        status: 'ok',
        children: items.slice(offset, offset + 100) as Variable[],
        total: 150,
        offset,
      }));
    const store = new VariablesStore(bridge);
    store.follow('a.ipynb');
    store.toggle();
    await untilState(store, (s) => s.variables !== null, 'the first list');
    store.toggleRow(['many']);
    const first = await untilState(store, (s) => s.expanded.get('["many"]')?.loading === false, 'the first page');
    expect(first.expanded.get('["many"]')!.children).toHaveLength(100);
    store.more(['many']);
    const all = await untilState(store, (s) => s.expanded.get('["many"]')?.children.length === 150, 'the next page');
    expect(all.expanded.get('["many"]')!.total).toBe(150);
    expect(bridge.sentOn('notebook.expandVariable').map((a) => a.offset)).toEqual([0, 100]);
    store.toggleRow(['many', ['i', 3]]);
    expect(store.getState().expanded.size).toBe(2);
    store.toggleRow(['many']);
    expect(store.getState().expanded.size).toBe(0);
    store.dispose();
  });

  it("shows a selected frame's printed value, asked again after a run; other rows close the pane", async () => {
    let printed = 'a\n0  1';
    const frame = v('df', 'DataFrame', 128, '1 × 1');
    const bridge = new FakeBridge()
      .handle('notebook.variables', () => ({ status: 'ok', variables: [frame, v('x', 'int', 28)], total: 2 }))
      .handle('notebook.variableValue', ({ name }) => ({
        status: 'ok',
        text: `${name}: ${printed}`,
        route: 'debugger',
      }));
    const store = new VariablesStore(bridge);
    store.follow('a.ipynb');
    store.toggle();
    await untilState(store, (s) => s.variables?.length === 2, 'the list');
    store.select(frame);
    await untilState(store, (s) => s.selected?.text === 'df: a\n0  1', 'the value');
    printed = 'a\n0  2';
    bridge.emit('notebook.variablesChanged', { path: 'a.ipynb' });
    await untilState(store, (s) => s.selected?.text === 'df: a\n0  2', 'the value after a run');
    store.select(v('x', 'int', 28));
    expect(store.getState().selected).toBeNull();
    expect(bridge.sentOn('notebook.variableValue')).toHaveLength(2);
    // Paused in Debug Cell: the region says where the frame's variables are, and stops saying so on continue.
    bridge.emit('debugger.state', { path: 'a.ipynb', status: 'paused', frames: [] });
    expect(store.getState().paused).toBe(true);
    bridge.emit('debugger.state', { path: 'a.ipynb', status: 'running', frames: [] });
    expect(store.getState().paused).toBe(false);
    store.dispose();
  });
});
