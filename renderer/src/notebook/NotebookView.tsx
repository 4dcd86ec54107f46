import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { dataViewerTab } from '../../../shared/contract';
import { nameOf } from '../../../shared/paths';
import { errorText, perBridge, useBridge, useStore } from '../base';
import { CodeDocument, monaco, useOpenFilesStore, useReveals } from '../editor';
import { PlusIcon, useColorScheme, usePrefs, useToasts } from '../ui';
import { registerNotebookEditTarget } from '../language';
import { NotebookMergeView } from '../notebook-merge';
import { Banners, CannotOpen } from './Banners';
import { Cell, type SectionState } from './Cell';
import { CellRows } from './cell-rows';
import { takeCellDrops, useCellDrags } from './cell-drag';
import { CollapseActions } from './collapse';
import { FindBar } from './find/FindBar';
import { FindContext } from './find/find-context';
import { OpenDataContext } from './output-data';
import { FindController } from './find/find-controller';
import { useFindAndCollapseKeys } from './find/find-keys';
import { showNotebookOutline } from './outline-feed';
import { cellHeading, hiddenBySections, isHeadingCollapsed, sectionSize } from './sections';
import { navigationStep, useNotebookKeys } from './key-table';
import { CellTimings } from './cell-timing';
import { useKernelAssistCommands } from './kernel-assist-commands';
import { useKernelAssistSource } from './kernel-assist-source';
import { useCellNumbers } from './language';
import { NotebookController } from './notebook-controller';
import type { NotebookSession } from './notebook-session';
import { NotebookSessions } from './notebook-sessions';
import { useMountedCells } from './progressive-mount';
import { useAgentCellMarks } from '../agent-review';
import { registerNotebookRestoreTarget } from '../notebook-targets';
import { Toolbar } from './Toolbar';
import './notebook.css';

const useNotebookSessions = perBridge((bridge) => new NotebookSessions(bridge, useOpenFilesStore.of(bridge)));

/** The document view id of a notebook shown as plain text (for one that can't be parsed). */
export const NOTEBOOK_AS_TEXT = 'notebook-text';

/** The centre view for a `.ipynb` file: its tab's session, shown once it is there. */
export function NotebookView({ path }: { path: string }) {
  const tabId = useStore(useOpenFilesStore(), (s) => s.files.find((f) => f.path === path)?.id);
  const sessions = useNotebookSessions();
  if (tabId === undefined) return null;
  // Keyed by the tab, not the path: a renamed or moved notebook keeps its view, selection and session.
  return <NotebookEditor key={tabId} session={sessions.sessionFor(tabId, path)} tabId={tabId} />;
}

/** A notebook shown as text, with the way back. */
export function NotebookAsText({ path }: { path: string }) {
  const openFiles = useOpenFilesStore();
  return (
    <div className="nb-as-text">
      <div className="info-bar" role="note">
        <span>Showing {nameOf(path)} as text.</span>
        <button type="button" className="btn btn-small" onClick={() => openFiles.setView(path, null)}>
          Open as notebook
        </button>
      </div>
      <CodeDocument path={path} />
    </div>
  );
}

function NotebookEditor({ session, tabId }: { session: NotebookSession; tabId: number }) {
  const openFiles = useOpenFilesStore();
  const sessions = useNotebookSessions();
  const toasts = useToasts();
  const scheme = useColorScheme();
  const notebook = useMemo(
    () =>
      new NotebookController(session, {
        onError: (err) => toasts.error(errorText(err)),
        retarget: (from, to) => openFiles.retarget(from, to),
      }),
    [session, toasts, openFiles],
  );
  const collapse = useMemo(
    () => new CollapseActions(session, (err) => toasts.error(errorText(err))),
    [session, toasts],
  );
  const sectionRef = useRef<HTMLElement>(null);
  const find = useMemo(
    () =>
      new FindController(session, {
        onError: (err) => toasts.error(errorText(err)),
        replaceSources: (edits) => notebook.replaceSources(edits),
        undo: () => notebook.undo(),
        // A match in a folded section opens it; its cell comes into view (its editor then scrolls to the match).
        reveal: (match) =>
          void collapse.reveal(match.cellIndex).then(() =>
            requestAnimationFrame(() => {
              const el = notebook.cellElements.get(match.cellId);
              const target = match.area === 'output' ? el?.querySelector('.nb-outputs') : el;
              target?.scrollIntoView({ block: 'nearest' });
            }),
          ),
      }),
    [session, toasts, collapse, notebook],
  );
  useEffect(() => () => find.dispose(), [find]);
  const findViews = useMemo(() => ({ now: find, later: find.later }), [find]);
  const state = useStore(session);
  const { activeId, mode, unrendered, focusTick, selected, lineNumbers, allLineNumbers } = useStore(notebook);
  const cellsRef = useRef<HTMLDivElement>(null);
  const dropLine = useRef<HTMLDivElement>(null);
  const bridge = useBridge();
  const reveals = useReveals.of(bridge);
  const { prefs, setPref } = usePrefs();
  const assist = useKernelAssistSource(session, bridge, prefs);
  useKernelAssistCommands(prefs, setPref);
  const timings = useMemo(() => new CellTimings(bridge, () => session.path), [bridge, session]);
  useEffect(() => () => timings.dispose(), [timings]);
  const path = session.path;
  const name = nameOf(path);
  const agentMarks = useAgentCellMarks(path);
  const openData = useCallback((handle: string) => void openFiles.open(dataViewerTab(path, handle)), [openFiles, path]);

  useEffect(() => notebook.keepSelection(), [notebook, state.status, state.cells]);
  // The Problems panel names this notebook's cells by the numbers shown here.
  useEffect(() => useCellNumbers.of(bridge).track(session), [bridge, session]);
  // A rename or quick fix from anywhere that reaches this notebook edits its cells here: one undoable step.
  useEffect(
    () =>
      registerNotebookEditTarget(bridge, {
        path: () => session.path,
        sourceOf: (cellId) => session.cell(cellId)?.cell.source,
        numberOf: (cellId) => (session.indexOf(cellId) >= 0 ? session.indexOf(cellId) + 1 : null),
        replaceSources: (edits) => notebook.replaceSources(edits),
      }),
    [bridge, session, notebook],
  );

  // The Timeline puts an older version's cell back here, and the Edit assistant its accepted cells: undoable edits.
  useEffect(
    () =>
      registerNotebookRestoreTarget(bridge, {
        path: () => session.path,
        holdsNotebook: () => session.getState().status === 'ready',
        cellIds: () => session.getState().cells.map((c) => c.cell.id),
        putCell: (cell, at) => notebook.putCell(cell, at),
        takeCell: (cellId) => notebook.takeCell(cellId),
        flushEdits: () => session.flushEdits(),
      }),
    [bridge, session, notebook],
  );

  useEffect(
    () => showNotebookOutline(bridge, path, { session, selection: notebook }),
    [bridge, path, session, notebook],
  );

  // Cells after the first screen mount once they have all arrived (they follow the first ones' paint).
  const mounted = useMountedCells(state.cells.length, state.status === 'ready' && state.allCellsLoaded);
  // Find in Files and the outline ask for a place in this notebook: a cell, and a range in its source (once
  // every cell is mounted, so the one asked for has its element).
  const ready = state.status === 'ready' && mounted.all;
  useEffect(() => {
    if (!ready) return;
    const reveal = () => {
      const target = reveals.take(session.path);
      const cells = session.getState().cells;
      const index = target?.cellId !== undefined ? cells.findIndex((c) => c.cell.id === target.cellId) : target?.cell;
      const cellId = index === undefined ? undefined : cells[index]?.cell.id;
      if (!target || !cellId) return;
      void collapse.reveal(index!).then(() => {
        // A match selects its text; a place of the language server (a definition, a problem) puts the cursor there.
        if (target.end > target.start || target.cellId !== undefined) notebook.editors.get(cellId)?.select(target);
        else notebook.focus(cellId, 'command');
        requestAnimationFrame(() => notebook.cellElements.get(cellId)?.scrollIntoView({ block: 'start' }));
      });
    };
    reveal();
    return reveals.onRequest((requested) => requested === session.path && reveal());
  }, [ready, session, notebook, collapse, reveals]);

  // Cells dropped on this notebook's tab land at its end (undoable, selected, in view).
  useEffect(() => {
    if (!ready) return;
    return useCellDrags.of(bridge).takeTabDrops(
      () => session.path,
      (cells) =>
        void notebook.pasteAt(session.getState().cells.length, cells).then(() => {
          const id = notebook.getState().activeId;
          if (id) requestAnimationFrame(() => notebook.cellElements.get(id)?.scrollIntoView({ block: 'nearest' }));
        }),
    );
  }, [bridge, ready, session, notebook]);

  const hidden = useMemo(() => hiddenBySections(state.cells.map((c) => c.cell)), [state.cells]);
  // A folded section's state as last given, while it holds the same cells: its heading cell (memoized) is not
  // re-rendered by every change elsewhere in the notebook.
  const sections = useRef(new Map<string, SectionState>());
  const sameSection = (section: SectionState): SectionState => {
    const key = section.hiddenIds[0];
    if (!key) return section;
    const last = sections.current.get(key);
    if (
      last &&
      last.hiddenIds.length === section.hiddenIds.length &&
      last.hiddenIds.every((id, i) => id === section.hiddenIds[i])
    )
      return last;
    sections.current.set(key, section);
    return section;
  };

  // The rows shown (a folded section's cells are not): React renders them in CellRows' order, which puts them in
  // the notebook's order after the render.
  const gridRef = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => new CellRows(), []);
  const shownCells = (mounted.all ? state.cells : state.cells.slice(0, mounted.count)).flatMap((view, index) =>
    hidden.has(view.cell.id) ? [] : [{ view, index }],
  );
  const shownIds = shownCells.map(({ view }) => view.cell.id);
  const byId = new Map(shownCells.map((shown) => [shown.view.cell.id, shown]));
  const renderOrder = rows.renderOrderFor(shownIds);
  // Before the browser paints, and before the cells' own effects look for their place on screen.
  useLayoutEffect(() => {
    if (gridRef.current) rows.arrange(gridRef.current, shownIds);
  });

  useEffect(() => {
    monaco.editor.setTheme(scheme === 'dark' ? 'vs-dark' : 'vs');
  }, [scheme]);

  // Focus follows selection: the cell itself in command mode, its editor in edit mode.
  useEffect(() => {
    if (!activeId || focusTick === 0) return;
    if (mode === 'edit') {
      const editor = notebook.editors.get(activeId);
      if (editor) {
        if (!editor.hasTextFocus()) editor.focus();
        return;
      }
    }
    const el = notebook.cellElements.get(activeId);
    if (el && document.activeElement !== el) el.focus({ preventScroll: true });
    el?.scrollIntoView({ block: 'nearest' });
  }, [notebook, activeId, mode, focusTick]);

  /** JupyterLab's command mode: focus is on a cell (or the list), not in an editor. */
  const inCommandMode = () => {
    const el = document.activeElement;
    return Boolean(notebook.getState().activeId && el && cellsRef.current?.contains(el) && isCellOrList(el));
  };
  /** Edit mode: typing in the active cell's editor. */
  const inEditMode = () => {
    const { activeId: id, mode: current } = notebook.getState();
    return current === 'edit' && Boolean(id && notebook.editors.get(id)?.hasTextFocus());
  };
  useNotebookKeys(notebook, inCommandMode, inEditMode);

  // Dragging cells: a line shows where they would land; the DOM is touched directly, so a drag re-renders nothing.
  const listShown = state.status === 'ready';
  useEffect(() => {
    if (!listShown || !cellsRef.current || !dropLine.current) return;
    return takeCellDrops(useCellDrags.of(bridge), cellsRef.current, dropLine.current, notebook);
  }, [bridge, listShown, notebook]);
  useFindAndCollapseKeys({
    find,
    collapse,
    notebook,
    inCommandMode,
    hasFocus: () => Boolean(sectionRef.current?.contains(document.activeElement)),
    selectedText: () => {
      const editor = monaco.editor.getEditors().find((e) => e.hasTextFocus());
      const selection = editor?.getSelection();
      const text = selection && !selection.isEmpty() ? editor?.getModel()?.getValueInRange(selection) : undefined;
      return text && !text.includes('\n') ? text : undefined;
    },
  });

  const onCommandKey = (event: React.KeyboardEvent) => {
    const step = navigationStep(event);
    if (step === null || !activeId || !isCellOrList(event.target as HTMLElement)) return;
    notebook.selectBy(step);
    event.preventDefault();
    event.stopPropagation();
  };

  if (state.status === 'loading') return <div className="notice">Opening {name}…</div>;
  if (state.status === 'error') {
    const openAsText = () => {
      sessions.release(tabId);
      openFiles.setView(path, NOTEBOOK_AS_TEXT);
    };
    // git left conflict markers in it: the three-way resolver, and the notebook once it is saved.
    if (state.error?.code === 'E_NOTEBOOK_CONFLICT')
      return <NotebookMergeView path={path} onSaved={() => void session.load()} onOpenAsText={openAsText} />;
    return (
      <CannotOpen
        name={name}
        message={state.error?.message ?? ''}
        onOpenAsText={openAsText}
        onRetry={() => void session.load()}
      />
    );
  }

  const language = String(
    (state.metadata.kernelspec as { language?: unknown } | undefined)?.language ?? state.kernel.language ?? 'python',
  );
  // Why the running and queued cells are stuck (the server is not answering, or the kernel is gone), shown on them.
  const kernelTrouble =
    state.kernel.status === 'disconnected' || state.kernel.status === 'dead' ? state.kernel.message : undefined;
  return (
    <section ref={sectionRef} className="nb" aria-label={name} data-path={path}>
      <Toolbar notebook={notebook} state={state} />
      <FindBar find={find} onClose={() => notebook.focus(notebook.getState().activeId, notebook.getState().mode)} />
      <Banners notebook={notebook} state={state} />
      <FindContext.Provider value={findViews}>
        <OpenDataContext.Provider value={openData}>
          <div ref={cellsRef} className="nb-cells" tabIndex={-1} onKeyDown={onCommandKey}>
            <div ref={dropLine} className="nb-drop-line" aria-hidden hidden />
            <div
              ref={gridRef}
              role="grid"
              aria-label="Cells"
              aria-multiselectable="true"
              className="nb-cell-grid"
              data-all-mounted={mounted.all}
            >
              {renderOrder.map((id) => {
                const { view, index } = byId.get(id)!;
                const collapsed = cellHeading(view.cell) !== null && isHeadingCollapsed(view.cell);
                const isSelected = selected.size ? selected.has(view.cell.id) : view.cell.id === activeId;
                // The list is a grid of one-cell rows, so each cell can say whether it is selected.
                return (
                  <div
                    key={view.cell.id}
                    ref={rows.refFor(view.cell.id)}
                    role="row"
                    aria-label={`Cell ${index + 1}`}
                    aria-selected={isSelected}
                  >
                    <div role="gridcell">
                      <Cell
                        view={view}
                        waitNote={view.state !== 'idle' ? kernelTrouble : undefined}
                        agentMark={agentMarks[view.cell.id]}
                        index={index}
                        count={state.cells.length}
                        active={view.cell.id === activeId}
                        selected={isSelected}
                        // Only selected cells speak of "selected cells": a growing selection re-renders just them.
                        multiple={selected.size > 1 && selected.has(view.cell.id)}
                        lineNumbers={allLineNumbers !== lineNumbers.has(view.cell.id)}
                        editing={view.cell.id === activeId && mode === 'edit'}
                        unrendered={
                          unrendered.has(view.cell.id) ||
                          (view.cell.cell_type === 'markdown' &&
                            !view.cell.source.trim() &&
                            view.cell.id === activeId &&
                            mode === 'edit')
                        }
                        generation={state.generation}
                        language={language}
                        actions={notebook}
                        assist={assist}
                        timings={timings}
                        section={cellHeading(view.cell) ? sameSection(sectionOf(state.cells, index, collapsed)) : null}
                        collapse={collapse}
                      />
                    </div>
                  </div>
                );
              })}
            </div>
            {ADD_AT_END.map(({ type, label }) => (
              <button
                key={type}
                type="button"
                className="nb-add-bottom"
                onClick={() => void notebook.insertAt(state.cells.length, type, 'edit')}
              >
                <PlusIcon /> {label}
              </button>
            ))}
          </div>
        </OpenDataContext.Provider>
      </FindContext.Provider>
    </section>
  );
}

/** The buttons under the last cell, one per kind of cell they add. */
const ADD_AT_END = [
  { type: 'code', label: 'Code' },
  { type: 'markdown', label: 'Markdown' },
] as const;

function isCellOrList(el: Element): boolean {
  return el.classList.contains('nb-cell') || el.classList.contains('nb-cells');
}

/** A heading cell's section: collapsed or not, and the cells the collapse hides. */
function sectionOf(
  cells: readonly { cell: Parameters<typeof sectionSize>[0][number] }[],
  index: number,
  collapsed: boolean,
): { collapsed: boolean; hiddenIds: string[] } {
  if (!collapsed) return NOT_COLLAPSED;
  const size = sectionSize(
    cells.map((c) => c.cell),
    index,
  );
  return { collapsed, hiddenIds: cells.slice(index + 1, index + 1 + size).map((c) => c.cell.id) };
}

const NOT_COLLAPSED = { collapsed: false, hiddenIds: [] };
