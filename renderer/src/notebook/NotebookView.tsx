import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { CellType, KilnBridge, NotebookCell } from '../../../shared/contract';
import { pathAfterMove, rekeyAfterMove } from '../../../shared/fs-change';
import { useBridge } from '../base';
import { useCommands, type Command } from '../commands';
import { useColorScheme } from '../app/use-color-scheme';
import { CodeDocument } from '../editor/CodeDocument';
import { monaco } from '../editor/monaco-setup';
import { useOpenFilesStore, type OpenFilesStore } from '../editor/open-files';
import { nameOf } from '../tree/paths';
import {
  ClearIcon, PlayIcon, PlusIcon, RestartIcon, RestartRunIcon, RunAllIcon, SaveIcon, StopIcon, messageOf, useToasts,
} from '../ui';
import { Cell, type CellActions } from './Cell';
import type { EditorHandle, EditorKey } from './CellEditor';
import { INITIAL_STATE, NotebookSession } from './notebook-session';
import './notebook.css';

// ---- "Open as text": a per-path switch to the plain text view (for notebooks that can't be parsed) ----

const asText = new Set<string>();
const asTextListeners = new Set<() => void>();

function setOpenAsText(path: string, on: boolean): void {
  if (on) {
    releaseTab(path);
    asText.add(path);
  } else asText.delete(path);
  for (const listener of asTextListeners) listener();
}

function useOpenAsText(path: string): boolean {
  return useSyncExternalStore(
    (notify) => {
      asTextListeners.add(notify);
      return () => asTextListeners.delete(notify);
    },
    () => asText.has(path),
  );
}

// ---- The notebook answers for its tab ----
// Save (Ctrl/Cmd+S, the header button, "Save" when closing) and the tab's dirty dot go through the
// notebook the main process holds; closing the tab, once the operator has chosen, closes it there.
/** A notebook tab this view answers for; `path` follows the file through moves. */
interface ClaimedTab {
  path: string;
  release: () => void;
}
const claimed = new Map<string, ClaimedTab>();
/** The session of a notebook on screen: its save first flushes edits still being typed. */
const shown = new Map<string, NotebookSession>();

/** These module-level maps are path-keyed state too: they follow the change feed like every other owner. */
let followingMoves = false;
function followMoves(bridge: KilnBridge): void {
  if (followingMoves) return;
  followingMoves = true;
  bridge.on('fs.change', (change) => {
    if (change.type === 'moved') rekeyNotebookViews(change.from, change.to);
  });
}

/** The notebook at `from` is now at `to` (moved, or saved under a new name). */
function rekeyNotebookViews(from: string, to: string): void {
  for (const [, next, tab] of rekeyAfterMove(claimed, from, to)) tab.path = next;
  rekeyAfterMove(shown, from, to);
  for (const path of [...asText]) {
    const next = pathAfterMove(path, from, to);
    if (next === null) continue;
    asText.delete(path);
    asText.add(next);
  }
}

function claimTab(store: OpenFilesStore, bridge: KilnBridge, path: string): void {
  followMoves(bridge);
  if (claimed.has(path)) return;
  const tab: ClaimedTab = { path, release: () => undefined };
  const offDirty = bridge.on('notebook.dirty', (event) => {
    if (event.path === tab.path) store.setDirty(tab.path, event.dirty);
  });
  const release = store.claim(path, {
    save: async () => {
      const session = shown.get(tab.path);
      if (session) await session.save();
      else await bridge.request('notebook.save', { path: tab.path });
    },
    closed: () => {
      offDirty();
      claimed.delete(tab.path);
      setOpenAsText(tab.path, false);
      void bridge.request('notebook.close', { path: tab.path }).catch(() => undefined);
    },
  });
  tab.release = () => {
    offDirty();
    release();
    claimed.delete(tab.path);
  };
  claimed.set(path, tab);
}

/** Shown as text (a corrupt notebook), the file is an ordinary text tab again. */
function releaseTab(path: string): void {
  claimed.get(path)?.release();
}

/** The centre view for a `.ipynb` file. */
export function NotebookView({ path }: { path: string }) {
  const text = useOpenAsText(path);
  const store = useOpenFilesStore();
  const tabId = useSyncExternalStore(store.subscribe, () => store.get(path)?.id) ?? path;
  if (text) {
    return (
      <div className="nb-as-text">
        <div className="info-bar" role="note">
          <span>Showing {nameOf(path)} as text.</span>
          <button type="button" className="btn btn-small" onClick={() => setOpenAsText(path, false)}>
            Open as notebook
          </button>
        </div>
        <CodeDocument path={path} />
      </div>
    );
  }
  // Keyed by the tab, not the path: a renamed or moved notebook keeps its view, selection and session.
  return <NotebookEditor key={tabId} path={path} />;
}

function useSession(path: string): NotebookSession | null {
  const bridge = useBridge();
  const store = useOpenFilesStore();
  const [session, setSession] = useState<NotebookSession | null>(null);
  useEffect(() => {
    // A session that followed its file through a move goes on under the new path, unsaved edits and all.
    const followed = shown.get(path);
    const s = followed ?? new NotebookSession(bridge, path);
    if (!followed) {
      shown.set(path, s);
      void s.load();
    }
    setSession(s);
    claimTab(store, bridge, path);
    return () => {
      // Moved away: the effect for the new path takes the session over.
      if (s.path !== path) return;
      if (shown.get(path) === s) shown.delete(path);
      s.dispose();
    };
  }, [bridge, store, path]);
  return session;
}

const noSubscribe = () => () => undefined;

const STATUS_TEXT: Record<string, string> = {
  none: 'no kernel',
  starting: 'starting',
  idle: 'idle',
  busy: 'busy',
  restarting: 'restarting',
  dead: 'dead',
  disconnected: 'disconnected',
};

const INSTALL_HINT =
  'You can still edit and save this notebook. To use a particular Jupyter, set jupyter.command (a local jupyter) or ' +
  'jupyter.url (a running server) in .kiln/config.yaml and restart Kiln.';

function NotebookEditor({ path }: { path: string }) {
  const session = useSession(path);
  const store = useOpenFilesStore();
  const state = useSyncExternalStore(session?.subscribe ?? noSubscribe, session?.getState ?? (() => INITIAL_STATE));
  const toasts = useToasts();
  const scheme = useColorScheme();
  const name = nameOf(path);

  const [activeId, setActiveId] = useState<string | null>(null);
  const [mode, setMode] = useState<'command' | 'edit'>('command');
  const [unrendered, setUnrendered] = useState<Set<string>>(() => new Set());
  const [focusTick, setFocusTick] = useState(0);
  const [saving, setSaving] = useState(false);
  const editors = useRef(new Map<string, EditorHandle>());
  const cellEls = useRef(new Map<string, HTMLDivElement>());
  const deleted = useRef<{ cell: NotebookCell; index: number }[]>([]);
  const cellsRef = useRef<HTMLDivElement>(null);

  // Latest values for the stable action callbacks.
  const live = useRef({ session, state, activeId, mode });
  live.current = { session, state, activeId, mode };

  useEffect(() => {
    monaco.editor.setTheme(scheme === 'dark' ? 'vs-dark' : 'vs');
  }, [scheme]);

  useEffect(() => store.setDirty(path, state.dirty), [store, path, state.dirty]);

  // The first cell is selected once the notebook is there.
  useEffect(() => {
    if (state.status !== 'ready') return;
    if (!activeId || !state.cells.some((c) => c.cell.id === activeId)) setActiveId(state.cells[0]?.cell.id ?? null);
  }, [state.status, state.cells, activeId]);

  // Focus follows selection: the cell itself in command mode, its editor in edit mode.
  useEffect(() => {
    if (!activeId || focusTick === 0) return;
    if (mode === 'edit') {
      const editor = editors.current.get(activeId);
      if (editor) {
        if (!editor.hasTextFocus()) editor.focus();
        return;
      }
    }
    const el = cellEls.current.get(activeId);
    if (el && document.activeElement !== el) el.focus({ preventScroll: true });
    el?.scrollIntoView({ block: 'nearest' });
  }, [activeId, mode, focusTick]);

  const focus = useCallback((cellId: string | null, nextMode: 'command' | 'edit') => {
    if (!cellId) return;
    setActiveId(cellId);
    setMode(nextMode);
    if (nextMode === 'edit') {
      const cell = live.current.session?.cell(cellId)?.cell;
      if (cell?.cell_type === 'markdown') setUnrendered((set) => (set.has(cellId) ? set : new Set(set).add(cellId)));
    }
    setFocusTick((n) => n + 1);
  }, []);

  const fail = useCallback((err: unknown) => toasts.error(messageOf(err)), [toasts]);

  const save = useCallback(async (force = false) => {
    const s = live.current.session;
    if (!s) return;
    setSaving(true);
    try {
      await s.save(force);
    } catch (err) {
      fail(err);
    } finally {
      setSaving(false);
    }
  }, [fail]);

  // The notebook goes on at a new file; its tab and this view's registries follow it there.
  const saveAs = useCallback(async (target: string) => {
    const s = live.current.session;
    if (!s) return;
    const from = s.path;
    try {
      const to = await s.saveAs(target);
      rekeyNotebookViews(from, to);
      store.retarget(from, to);
    } catch (err) {
      fail(err);
      throw err;
    }
  }, [fail, store]);

  const insertAt = useCallback(async (index: number, type: CellType, nextMode: 'command' | 'edit') => {
    const s = live.current.session;
    if (!s) return;
    try {
      const id = await s.insertCell(index, type);
      if (type === 'markdown') setUnrendered((set) => new Set(set).add(id));
      focus(id, nextMode);
    } catch (err) {
      fail(err);
    }
  }, [focus, fail]);

  const actions = useMemo<CellActions>(() => {
    const s = () => live.current.session;
    const indexOf = (id: string) => s()?.indexOf(id) ?? -1;
    const cellAt = (i: number) => s()?.getState().cells[i]?.cell.id ?? null;

    const run: CellActions['run'] = (cellId, then) => {
      const session = s();
      const view = session?.cell(cellId);
      if (!session || !view) return;
      if (view.cell.cell_type === 'markdown') {
        setUnrendered((set) => {
          if (!set.has(cellId)) return set;
          const next = new Set(set);
          next.delete(cellId);
          return next;
        });
        void session.flushEdits();
      } else if (view.cell.cell_type === 'code') {
        void session.runCell(cellId);
      }
      const index = indexOf(cellId);
      if (then === 'advance') {
        const next = cellAt(index + 1);
        if (next) focus(next, 'command');
        else void insertAt(index + 1, 'code', 'edit');
      } else if (then === 'insert') {
        void insertAt(index + 1, 'code', 'edit');
      } else if (view.cell.cell_type === 'markdown' || live.current.mode !== 'edit') {
        focus(cellId, 'command');
      }
    };

    return {
      select: (cellId, nextMode) => {
        if (live.current.activeId === cellId && live.current.mode === nextMode) return;
        if (nextMode === 'edit') {
          setActiveId(cellId);
          setMode('edit');
          const cell = s()?.cell(cellId)?.cell;
          if (cell?.cell_type === 'markdown') {
            setUnrendered((set) => (set.has(cellId) ? set : new Set(set).add(cellId)));
            setFocusTick((n) => n + 1);
          }
        } else focus(cellId, 'command');
      },
      run,
      runScope: (cellId, scope) => void s()?.runCells(scope, cellId),
      edit: (cellId, source) => s()?.editSource(cellId, source),
      editorKey: (cellId, key: EditorKey) => {
        const index = indexOf(cellId);
        if (key === 'escape') focus(cellId, 'command');
        else if (key === 'run') run(cellId, 'stay');
        else if (key === 'run-advance') run(cellId, 'advance');
        else if (key === 'run-insert') run(cellId, 'insert');
        else if (key === 'up-out' && index > 0) focus(cellAt(index - 1), 'edit');
        else if (key === 'down-out' && cellAt(index + 1)) focus(cellAt(index + 1), 'edit');
      },
      move: (cellId, by) => {
        const index = indexOf(cellId);
        s()?.moveCell(cellId, index + by).then(() => focus(cellId, 'command'), fail);
      },
      remove: (cellId) => {
        const session = s();
        if (!session) return;
        const index = indexOf(cellId);
        session.deleteCell(cellId).then((removed) => {
          deleted.current.push(removed);
          const cells = session.getState().cells;
          focus(cells[Math.min(index, cells.length - 1)]?.cell.id ?? null, 'command');
        }, fail);
      },
      insert: (cellId, where) => void insertAt(indexOf(cellId) + (where === 'below' ? 1 : 0), 'code', 'command'),
      setType: (cellId, type) => {
        s()?.setCellType(cellId, type).then(() => {
          if (type === 'markdown') setUnrendered((set) => new Set(set).add(cellId));
          focus(cellId, 'command');
        }, fail);
      },
      clear: (cellId) => void s()?.clearOutputs(cellId).catch(fail),
      answer: (cellId, value) => void s()?.answerInput(cellId, value),
      registerEditor: (cellId, editor) => {
        if (editor) editors.current.set(cellId, editor);
        else editors.current.delete(cellId);
      },
      registerCell: (cellId, el) => {
        if (el) cellEls.current.set(cellId, el);
        else cellEls.current.delete(cellId);
      },
    };
  }, [focus, insertAt, fail]);

  const undoDelete = useCallback(() => {
    const last = deleted.current.pop();
    const s = live.current.session;
    if (!last || !s) return;
    s.restoreCell(last.cell, last.index).then(() => focus(last.cell.id, 'command'), fail);
  }, [focus, fail]);

  /** JupyterLab's command mode: focus is on a cell (or the list), not in an editor. */
  const inCommandMode = () => {
    const el = document.activeElement;
    return Boolean(activeId && el && cellsRef.current?.contains(el) && (el.classList.contains('nb-cell') || el.classList.contains('nb-cells')));
  };
  const onActive = (act: (id: string) => void) => () => {
    if (activeId) act(activeId);
  };
  const cellCommand = (id: string, title: string, keys: string, run: (cellId: string) => void): Command => ({
    id: `notebook.${id}`, title, category: 'Notebook', keys, when: inCommandMode, run: onActive(run),
  });
  useCommands([
    cellCommand('runCellAdvance', 'Run Cell and Select Below', 'Shift+Enter', (id) => actions.run(id, 'advance')),
    cellCommand('runCell', 'Run Cell', 'Mod+Enter', (id) => actions.run(id, 'stay')),
    cellCommand('runCellInsert', 'Run Cell and Insert Below', 'Alt+Enter', (id) => actions.run(id, 'insert')),
    cellCommand('editCell', 'Edit Cell', 'Enter', (id) => focus(id, 'edit')),
    cellCommand('insertAbove', 'Insert Cell Above', 'A', (id) => actions.insert(id, 'above')),
    cellCommand('insertBelow', 'Insert Cell Below', 'B', (id) => actions.insert(id, 'below')),
    cellCommand('toMarkdown', 'Change Cell to Markdown', 'M', (id) => actions.setType(id, 'markdown')),
    cellCommand('toCode', 'Change Cell to Code', 'Y', (id) => actions.setType(id, 'code')),
    cellCommand('toRaw', 'Change Cell to Raw', 'R', (id) => actions.setType(id, 'raw')),
    cellCommand('deleteCell', 'Delete Cell', 'D D', (id) => actions.remove(id)),
    { id: 'notebook.undoDelete', title: 'Undo Cell Deletion', category: 'Notebook', keys: 'Z', when: inCommandMode, run: undoDelete },
  ]);

  /** Moving between cells in command mode stays here: arrows and j/k are navigation, not commands. */
  const onCommandKey = (event: React.KeyboardEvent) => {
    const target = event.target as HTMLElement;
    if (!target.classList.contains('nb-cell') && !target.classList.contains('nb-cells')) return;
    const id = activeId;
    if (!id || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const index = state.cells.findIndex((c) => c.cell.id === id);
    const key = event.key;
    if (key === 'ArrowUp' || key === 'k') focus(state.cells[Math.max(0, index - 1)]?.cell.id ?? null, 'command');
    else if (key === 'ArrowDown' || key === 'j') focus(state.cells[Math.min(state.cells.length - 1, index + 1)]?.cell.id ?? null, 'command');
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  if (!session || state.status === 'loading') return <div className="notice">Opening {name}…</div>;

  if (state.status === 'error') {
    return (
      <div className="nb-error-view">
        <div role="alert" className="nb-alert nb-alert-error">
          <strong>{name} can’t be opened as a notebook.</strong>
          <div className="nb-alert-detail">{state.error?.message}</div>
          <div className="nb-alert-detail nb-dim">Kiln never overwrites it. Open it as text to see or fix the JSON.</div>
          <div className="nb-alert-actions">
            <button type="button" className="btn btn-small btn-primary" onClick={() => setOpenAsText(path, true)}>
              Open as text
            </button>
            <button type="button" className="btn btn-small" onClick={() => void session.load()}>
              Try again
            </button>
          </div>
        </div>
      </div>
    );
  }

  const kernel = state.kernel;
  const status = STATUS_TEXT[kernel.status] ?? kernel.status;
  const language = String((state.metadata.kernelspec as { language?: unknown } | undefined)?.language ?? kernel.language ?? 'python');
  const noJupyter = state.jupyterError?.code === 'E_NO_JUPYTER';
  const kernelChoices = state.specs?.specs ?? [];
  const currentKernel = kernel.name ?? String((state.metadata.kernelspec as { name?: unknown } | undefined)?.name ?? '');
  const activeIndex = state.cells.findIndex((c) => c.cell.id === activeId);

  return (
    <section className="nb" aria-label={name} data-path={path}>
      <div className="nb-toolbar" role="toolbar" aria-label="Notebook">
        <button type="button" className="nb-tool" aria-label="Save notebook" title="Save (Ctrl+S)" disabled={saving} onClick={() => void save()}>
          <SaveIcon />
        </button>
        <button
          type="button"
          className="nb-tool"
          aria-label="Add cell"
          title="Add a code cell below the selected one (B)"
          onClick={() => void insertAt(activeIndex >= 0 ? activeIndex + 1 : state.cells.length, 'code', 'edit')}
        >
          <PlusIcon />
        </button>
        <span className="nb-tool-sep" />
        <button type="button" className="nb-tool" aria-label="Run selected cell" title="Run the selected cell and advance (Shift+Enter)" disabled={!activeId} onClick={() => activeId && actions.run(activeId, 'advance')}>
          <PlayIcon />
        </button>
        <button type="button" className="nb-tool nb-tool-text" aria-label="Run all" title="Run all cells" onClick={() => void session.runCells('all')}>
          <RunAllIcon />
          <span>Run all</span>
        </button>
        <button type="button" className="nb-tool" aria-label="Interrupt" title="Interrupt the kernel" onClick={() => void session.interrupt()}>
          <StopIcon size={14} />
        </button>
        <button type="button" className="nb-tool" aria-label="Restart" title="Restart the kernel (variables are lost, outputs stay)" onClick={() => void session.restart()}>
          <RestartIcon />
        </button>
        <button type="button" className="nb-tool" aria-label="Rerun everything in a fresh kernel" title="Restart the kernel and run all cells" onClick={() => void session.restartRunAll()}>
          <RestartRunIcon />
        </button>
        <button type="button" className="nb-tool" aria-label="Clear all outputs" title="Clear all outputs" onClick={() => void session.clearOutputs().catch(fail)}>
          <ClearIcon />
        </button>
        <span className="nb-tool-sep" />
        <select
          className="nb-celltype"
          aria-label="Cell type"
          value={state.cells[activeIndex]?.cell.cell_type ?? 'code'}
          disabled={activeIndex < 0}
          onChange={(e) => activeId && actions.setType(activeId, e.target.value as CellType)}
        >
          <option value="code">Code</option>
          <option value="markdown">Markdown</option>
          <option value="raw">Raw</option>
        </select>
        <span className="spacer" />
        {state.dirty && (
          <span className="nb-dirty" title="Unsaved changes" data-testid="notebook-dirty">
            <span className="nb-dirty-dot" aria-hidden />
            Unsaved
          </span>
        )}
        <select
          className="nb-kernel-picker"
          aria-label="Kernel"
          title="Kernel"
          value={currentKernel}
          disabled={!kernelChoices.length}
          onChange={(e) => void session.setKernel(e.target.value)}
        >
          {!kernelChoices.some((k) => k.name === currentKernel) && <option value={currentKernel}>{kernel.displayName ?? (currentKernel || 'No kernel')}</option>}
          {kernelChoices.map((spec) => (
            <option key={spec.name} value={spec.name}>
              {spec.displayName}
            </option>
          ))}
        </select>
        <span className={`nb-kernel-state nb-kernel-${kernel.status}`} title={`Kernel ${status}`}>
          <span className="nb-kernel-dot" aria-hidden />
          <span role="status">{status}</span>
        </span>
        {(kernel.status === 'disconnected' || kernel.status === 'dead') && (
          <button type="button" className="btn btn-small" onClick={() => void session.reconnect()}>
            Reconnect
          </button>
        )}
      </div>

      {state.conflict && (
        <div className="conflict-bar" role="alert" aria-label="Changed on disk">
          <span className="conflict-icon" aria-hidden>!</span>
          <span className="conflict-text">{state.conflict}</span>
          {state.conflictDeleted && <NotebookSaveAs path={path} onSave={saveAs} />}
          <button type="button" className="btn btn-small btn-primary" onClick={() => void save(true)}>
            Overwrite
          </button>
          <button type="button" className="btn btn-small" onClick={() => void session.revert().catch(fail)}>
            Reload
          </button>
        </div>
      )}
      {noJupyter && (
        <div role="alert" className="nb-alert nb-alert-warn nb-banner">
          <strong>Jupyter is not available, so cells can’t run.</strong>
          <div className="nb-alert-detail">{state.jupyterError?.message}</div>
          <div className="nb-alert-detail nb-dim">{INSTALL_HINT}</div>
          <div className="nb-alert-actions">
            <button type="button" className="btn btn-small" onClick={() => session.dismissJupyterError()}>
              Dismiss
            </button>
          </div>
        </div>
      )}
      {!noJupyter && kernel.status === 'dead' && (
        <div role="alert" className="nb-alert nb-alert-error nb-banner">
          <strong>The kernel died.</strong> The notebook and its outputs are kept; restart the kernel to run cells again.
          <div className="nb-alert-actions">
            <button type="button" className="btn btn-small btn-primary" onClick={() => void session.restart()}>
              Start a new kernel
            </button>
          </div>
        </div>
      )}
      {!noJupyter && kernel.status !== 'dead' && state.jupyterError && (
        <div role="alert" className="nb-alert nb-alert-error nb-banner">
          <span>{state.jupyterError.message}</span>
          <button type="button" className="btn btn-small" onClick={() => session.dismissJupyterError()}>
            Dismiss
          </button>
        </div>
      )}
      {state.warnings.length > 0 && (
        <div className="info-bar nb-warnings" role="note">
          {state.warnings.join(' ')}
        </div>
      )}

      <div ref={cellsRef} className="nb-cells" tabIndex={-1} onKeyDown={onCommandKey}>
        {state.cells.map((view, index) => (
          <Cell
            key={view.cell.id}
            view={view}
            index={index}
            count={state.cells.length}
            active={view.cell.id === activeId}
            editing={view.cell.id === activeId && mode === 'edit'}
            unrendered={unrendered.has(view.cell.id) || (view.cell.cell_type === 'markdown' && !view.cell.source.trim() && view.cell.id === activeId && mode === 'edit')}
            generation={state.generation}
            language={language}
            actions={actions}
          />
        ))}
        <button type="button" className="nb-add-bottom" onClick={() => void insertAt(state.cells.length, 'code', 'edit')}>
          <PlusIcon /> Code
        </button>
        <button type="button" className="nb-add-bottom" onClick={() => void insertAt(state.cells.length, 'markdown', 'edit')}>
          <PlusIcon /> Markdown
        </button>
      </div>
    </section>
  );
}

/** Save As for a notebook whose file went away: a path field, then the notebook carries on at the new file. */
function NotebookSaveAs({ path, onSave }: { path: string; onSave: (target: string) => Promise<void> }) {
  const [target, setTarget] = useState<string | null>(null);
  if (target === null) {
    return (
      <button type="button" className="btn btn-small btn-primary" onClick={() => setTarget(path)}>
        Save As…
      </button>
    );
  }
  return (
    <form className="save-as" onSubmit={(e) => { e.preventDefault(); if (target.trim()) void onSave(target.trim()).then(() => setTarget(null), () => undefined); }}>
      <input aria-label="Save as path" className="save-as-input" value={target} autoFocus onChange={(e) => setTarget(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && setTarget(null)} />
      <button type="submit" className="btn btn-small btn-primary">Save</button>
    </form>
  );
}
