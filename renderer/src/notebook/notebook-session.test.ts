import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NotebookCell } from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { fakeBridge } from '../../../test-support/fake-bridge';
import { codeCell, notebookDoc } from '../../../test-support/notebook-doc';
import { untilState } from '../../../test-support/until';
import { OpenFilesStore } from '../editor/open-files';
import { NotebookSession } from './notebook-session';
import { NotebookSessions } from './notebook-sessions';

const code = codeCell;
const doc = notebookDoc;

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (cb: () => void) => setTimeout(cb, 0));
  vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
});
afterEach(() => vi.unstubAllGlobals());

describe('NotebookSession', () => {
  it('shows why a notebook could not be opened, with its code', async () => {
    const { bridge } = fakeBridge({
      'notebook.open': () => {
        throw new KilnError('E_INVALID_NOTEBOOK', 'not JSON');
      },
    });
    const session = new NotebookSession(bridge, 'a.ipynb');
    await session.load();
    expect(session.getState().status).toBe('error');
    expect(session.getState().error).toEqual({ code: 'E_INVALID_NOTEBOOK', message: 'not JSON' });
    session.dispose();
  });

  it('reports a missing Jupyter from the kernelspec request, and only that', async () => {
    let failure: KilnError = new KilnError('E_NO_JUPYTER', 'no jupyter');
    const { bridge } = fakeBridge({
      'notebook.kernelSpecs': () => {
        throw failure;
      },
    });
    const session = new NotebookSession(bridge, 'a.ipynb');
    failure = new KilnError('E_TIMEOUT', 'slow');
    await session.loadSpecs();
    expect(session.getState().jupyterError).toBeNull();
    failure = new KilnError('E_NO_JUPYTER', 'no jupyter');
    await session.loadSpecs();
    expect(session.getState().jupyterError?.code).toBe('E_NO_JUPYTER');
    session.dispose();
  });

  it('ignores output events already in the loaded document and appends later ones', async () => {
    const stream = { output_type: 'stream', name: 'stdout', text: ['a\n', 'b\n'] };
    const { bridge, emit } = fakeBridge({
      'notebook.open': () => doc([code('c1', 'print()', [stream])], 5),
      'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
    });
    const session = new NotebookSession(bridge, 'a.ipynb');
    await session.load();
    emit('notebook.output', {
      path: 'a.ipynb',
      cellId: 'c1',
      rev: 5,
      change: { kind: 'appendText', index: 0, text: 'old\n' },
    });
    emit('notebook.output', {
      path: 'other.ipynb',
      cellId: 'c1',
      rev: 9,
      change: { kind: 'appendText', index: 0, text: 'elsewhere\n' },
    });
    emit('notebook.output', {
      path: 'a.ipynb',
      cellId: 'c1',
      rev: 6,
      change: { kind: 'appendText', index: 0, text: 'c\n' },
    });
    expect(session.cell('c1')?.cell.outputs[0]).toMatchObject({ text: 'a\nb\nc\n' });
    session.dispose();
  });

  it('keeps typing that a reload from disk overtook, sends it again and raises a conflict', async () => {
    vi.useFakeTimers();
    try {
      const { bridge, emit } = fakeBridge({
        'notebook.open': () => doc([code('c1', 'x = 1')]),
        'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
        'notebook.editCell': () => ({ rev: 6, dirty: true }),
      });
      const session = new NotebookSession(bridge, 'a.ipynb');
      await session.load();
      session.editSource('c1', 'x = 2');
      emit('notebook.changed', { path: 'a.ipynb', reason: 'reloaded', document: doc([code('c1', 'x = disk')], 7) });
      expect(session.cell('c1')?.cell.source).toBe('x = 2');
      expect(session.getState().conflict).toMatch(/your edits are kept/);
      await session.flushEdits();
      expect(bridge.sentOn('notebook.editCell').map((args) => args.source)).toEqual(['x = 2']);

      // An agent's edit is not a conflict: the document simply replaces what is shown.
      emit('notebook.changed', {
        path: 'a.ipynb',
        reason: 'edited',
        document: doc([code('c1', 'x = agent')], 8, true),
      });
      expect(session.cell('c1')?.cell.source).toBe('x = agent');
      session.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('follows a move of its file or of a folder holding it: edits and events use the new path', async () => {
    const { bridge, emit, calls } = fakeBridge({
      'notebook.open': () => doc([code('c1', 'a = 1')]),
      'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
      'notebook.editCell': () => ({ rev: 6, dirty: true }),
    });
    const session = new NotebookSession(bridge, 'a.ipynb');
    await session.load();
    session.editSource('c1', 'a = 2');
    emit('fs.change', { type: 'moved', from: 'a.ipynb', to: 'b.ipynb', isDir: false, origin: 'operator' });
    // Moves of other entries, and of the root (which never moves), leave it alone.
    emit('fs.change', { type: 'moved', from: 'elsewhere', to: 'x', isDir: true, origin: 'operator' });
    emit('fs.change', { type: 'moved', from: '', to: 'never', isDir: true, origin: 'operator' });
    expect(session.path).toBe('b.ipynb');
    await session.flushEdits();
    expect(calls.find((c) => c.channel === 'notebook.editCell')?.args).toMatchObject({
      path: 'b.ipynb',
      source: 'a = 2',
    });
    emit('notebook.dirty', { path: 'b.ipynb', dirty: false, rev: 7 });
    emit('notebook.dirty', { path: 'a.ipynb', dirty: true, rev: 8 });
    // An event for the new path that comes after the old path's: once it shows, the old one was ignored.
    emit('notebook.kernelStatus', {
      path: 'b.ipynb',
      kernel: { status: 'idle', name: 'python3', displayName: 'Python 3', language: 'python' },
    });
    await untilState(session, (s) => s.kernel.status === 'idle', 'the kernel status for the new path');
    expect(session.getState().dirty).toBe(false);
    emit('fs.change', { type: 'moved', from: 'b.ipynb', to: 'nb/deep/b.ipynb', isDir: false, origin: 'agent' });
    emit('fs.change', { type: 'moved', from: 'nb', to: 'books', isDir: true, origin: 'external' });
    expect(session.path).toBe('books/deep/b.ipynb');
    session.dispose();
  });

  it('reports a notebook that is not open in main, without sending again when its file did not move', async () => {
    const { bridge } = fakeBridge({
      'notebook.open': () => doc([code('c1', 'a = 1')]),
      'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
      'notebook.editCell': () => {
        throw new KilnError('E_NOT_FOUND', 'The notebook a.ipynb is not open');
      },
    });
    const session = new NotebookSession(bridge, 'a.ipynb');
    await session.load();
    session.editSource('c1', 'a = 2');
    await session.flushEdits();
    expect(bridge.sentOn('notebook.editCell')).toHaveLength(1);
    expect(session.getState().jupyterError).toMatchObject({ code: 'E_NOT_FOUND' });
    session.dispose();
  });
});

describe('NotebookSession, opening a big notebook', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => code(`c${i}`, `x = ${i}`));

  /** Main holding `cells`: an open answers with the first ones, notebook.cells with ranges while at revision 5. */
  function bigNotebook(cells: NotebookCell[], options: { rev?: () => number } = {}) {
    let releaseRanges: () => void = () => undefined;
    const rangesHeld = new Promise<void>((resolve) => (releaseRanges = resolve));
    const fake = fakeBridge({
      'notebook.open': (a) => ({
        ...doc(cells.slice(0, a.firstCells ?? cells.length), 5),
        ...(a.firstCells ? { pendingCells: Math.max(0, cells.length - a.firstCells) } : {}),
      }),
      'notebook.cells': async (a) => {
        await rangesHeld;
        return (options.rev?.() ?? 5) === a.rev
          ? { cells: cells.slice(a.from, a.from + a.count), stale: false }
          : { cells: [], stale: true };
      },
      'notebook.get': () => doc(cells, options.rev?.() ?? 5),
      'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
      'notebook.editCell': () => ({ rev: 6, dirty: true }),
    });
    return { ...fake, releaseRanges };
  }

  it('shows the first cells before the rest arrive, then all of them; edits wait for the whole document', async () => {
    const cells = many(130);
    const { bridge, releaseRanges } = bigNotebook(cells);
    const session = new NotebookSession(bridge, 'a.ipynb');
    const loaded = session.load();
    await untilState(session, (s) => s.status === 'ready');
    const first = session.getState();
    expect(first.cells.length).toBeLessThan(cells.length);
    expect(first.allCellsLoaded).toBe(false);
    // An edit made now is held until every cell is in: it may address cells not arrived yet.
    session.editSource('c0', 'x = -1');
    const flushed = session.flushEdits();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(bridge.sentOn('notebook.editCell')).toHaveLength(0);
    releaseRanges();
    await loaded;
    await flushed;
    expect(session.getState().allCellsLoaded).toBe(true);
    expect(session.getState().cells.map((c) => c.cell.id)).toEqual(cells.map((c) => c.id));
    expect(bridge.sentOn('notebook.cells').every((a) => a.rev === 5 && a.diskHash === 'h')).toBe(true);
    expect(bridge.sentOn('notebook.editCell')).toHaveLength(1);
    session.dispose();
  });

  it('takes the whole document when the notebook changed in main before the rest was sent', async () => {
    const cells = many(60);
    let rev = 5;
    const { bridge, releaseRanges } = bigNotebook(cells, { rev: () => rev });
    const session = new NotebookSession(bridge, 'a.ipynb');
    const loaded = session.load();
    await untilState(session, (s) => s.status === 'ready');
    rev = 9;
    releaseRanges();
    await loaded;
    expect(bridge.sentOn('notebook.get')).toHaveLength(1);
    expect(session.getState()).toMatchObject({ allCellsLoaded: true });
    expect(session.getState().cells).toHaveLength(cells.length);
    session.dispose();
  });

  it('stops fetching the rest when a whole document replaced the open one meanwhile (a reload)', async () => {
    const cells = many(60);
    const { bridge, emit, releaseRanges } = bigNotebook(cells);
    const session = new NotebookSession(bridge, 'a.ipynb');
    const loaded = session.load();
    await untilState(session, (s) => s.status === 'ready');
    const reloaded = [code('r1', 'reloaded')];
    emit('notebook.changed', { path: 'a.ipynb', document: doc(reloaded, 0), reason: 'reloaded' });
    releaseRanges();
    await loaded;
    expect(session.getState().cells.map((c) => c.cell.id)).toEqual(['r1']);
    expect(session.getState().allCellsLoaded).toBe(true);
    session.dispose();
  });
});

describe('NotebookSessions', () => {
  it('one session per tab answers for it: Save, the dirty dot, and closing it closes the notebook in main', async () => {
    const { bridge, emit, calls } = fakeBridge({
      'workspace.read': ({ path }) => ({
        path,
        text: '{}',
        binary: false,
        encoding: 'utf8',
        truncated: false,
        size: 2,
        hash: 'h',
        mtimeMs: 1,
      }),
      'notebook.open': () => doc([code('c1')]),
      'notebook.kernelSpecs': () => ({ default: null, specs: [] }),
      'notebook.save': () => ({ saved: true, diskHash: 'h2', rev: 6 }),
      'notebook.close': () => ({ closed: true }),
    });
    const openFiles = new OpenFilesStore(bridge);
    const sessions = new NotebookSessions(bridge, openFiles);
    await openFiles.open('a.ipynb');
    const tab = openFiles.get('a.ipynb')!;
    const session = sessions.sessionFor(tab.id, 'a.ipynb');
    expect(sessions.sessionFor(tab.id, 'a.ipynb')).toBe(session);
    await untilState(session, (s) => s.status === 'ready');

    emit('notebook.dirty', { path: 'a.ipynb', dirty: true, rev: 6 });
    await untilState(openFiles, (s) => s.files[0].dirty);
    await openFiles.save('a.ipynb');
    expect(calls.filter((c) => c.channel === 'notebook.save')).toHaveLength(1);
    expect(calls.some((c) => c.channel === 'workspace.write')).toBe(false);

    openFiles.close('a.ipynb');
    expect(bridge.sentOn('notebook.close').map((args) => args.path)).toEqual(['a.ipynb']);
    expect(session.isDisposed).toBe(true);
    openFiles.dispose();
  });

  it('a notebook opened as text becomes an ordinary file tab', async () => {
    const { bridge, calls } = fakeBridge({
      'workspace.read': ({ path }) => ({
        path,
        text: 'not json',
        binary: false,
        encoding: 'utf8',
        truncated: false,
        size: 8,
        hash: 'h',
        mtimeMs: 1,
      }),
      'notebook.open': () => {
        throw new KilnError('E_INVALID_NOTEBOOK', 'not JSON');
      },
      'notebook.close': () => ({ closed: true }),
      'workspace.write': ({ path }) => ({ path, hash: 'h2', mtimeMs: 2, size: 9 }),
    });
    const openFiles = new OpenFilesStore(bridge);
    const sessions = new NotebookSessions(bridge, openFiles);
    await openFiles.open('bad.ipynb');
    const tab = openFiles.get('bad.ipynb')!;
    sessions.sessionFor(tab.id, 'bad.ipynb');
    sessions.release(tab.id);
    openFiles.setView('bad.ipynb', 'notebook-text');
    openFiles.setBuffer('bad.ipynb', 'not json!');
    expect(openFiles.get('bad.ipynb')).toMatchObject({ dirty: true, view: 'notebook-text' });
    await openFiles.save('bad.ipynb');
    expect(calls.find((c) => c.channel === 'workspace.write')?.args).toMatchObject({
      path: 'bad.ipynb',
      text: 'not json!',
    });
    openFiles.dispose();
  });
});
