import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Entry } from '../../../shared/contract';
import { errorText, useBridge, useStore } from '../base';
import { useCommands } from '../commands';
import {
  PressedRowTicket,
  desktopApi,
  setDragLabel,
  startDownload,
  useTreeDragInFlight,
  writeTreeDrag,
} from '../drag-out';
import { useOpenFilesStore } from '../editor';
import {
  CollapseIcon,
  ContextMenu,
  EyeIcon,
  NewFileIcon,
  NewFolderIcon,
  copyWorkspacePath,
  isModKey,
  useAsk,
  usePrefs,
  useToasts,
} from '../ui';
import { FileOps } from './file-ops';
import { nameOf, parentOf } from './paths';
import { TreeSelection } from './selection';
import { explorerCommands, navigate, type ExplorerActions } from './tree-keys';
import { explorerMenu } from './tree-menu';
import { DisplayRows, TreeRowList, scrollRowIntoView } from './TreeRowList';
import { ROW_HEIGHT, type RowEvents } from './TreeRowView';
import { TreeStore } from './tree-store';
import { useTreeDrag } from './use-tree-drag';
import { incomingFromInput, pickFiles, useUploads, type IncomingItem } from '../upload';
import { useOsDrop } from './use-os-drop';

const TYPE_TO_FIND_RESET_MS = 800;

type Editing = { mode: 'rename'; path: string } | { mode: 'create'; dir: string; kind: 'file' | 'dir' } | null;
type Clip = { mode: 'copy' | 'cut'; paths: string[] } | null;

/** The left rail: the workspace's files as an ARIA tree, virtualized, with every explorer operation. */
export function Explorer({
  workspaceName,
  activePath,
  onOpen,
}: {
  workspaceName: string;
  /** The file active in the editor; the tree reveals and selects it when it changes elsewhere (tabs, breadcrumb). */
  activePath: string | null;
  onOpen: (path: string) => void;
}) {
  const bridge = useBridge();
  const rowsInFlight = useTreeDragInFlight.of(bridge);
  const ask = useAsk();
  const toasts = useToasts();
  const openFiles = useOpenFilesStore();
  const { prefs, setPref } = usePrefs();
  const tree = useMemo(() => new TreeStore(bridge), [bridge]);
  useEffect(() => () => tree.dispose(), [tree]);
  const { rows, rootListed } = useStore(tree);
  const selection = useMemo(() => new TreeSelection(), []);
  const { selected, focused } = useStore(selection);

  const [editing, setEditing] = useState<Editing>(null);
  const [menu, setMenu] = useState<{ x: number; y: number; entry: Entry | null } | null>(null);
  const [clip, setClip] = useState<Clip>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const revealPending = useRef<string | null>(null);
  const typed = useRef({ text: '', at: 0 });

  /** Selects what an operation made or moved, and scrolls it into view once it is listed. */
  const select = useCallback(
    (paths: string[]) => {
      selection.select(paths);
      revealPending.current = paths[paths.length - 1] ?? null;
    },
    [selection],
  );

  // Follow the editor: a file activated from a tab or the breadcrumb is shown and selected here.
  useEffect(() => {
    // An opened file is not new to the operator any more, however it was opened.
    if (activePath) tree.marks.opened(activePath);
    if (!activePath || selection.has(activePath)) return;
    let live = true;
    void tree.reveal(activePath).then(() => live && select([activePath]));
    return () => {
      live = false;
    };
  }, [activePath, tree, selection, select]);

  const ops = useMemo(
    () => new FileOps({ bridge, ask, toasts, tree, openFiles, select }),
    [bridge, ask, toasts, tree, openFiles, select],
  );

  useEffect(() => {
    tree.onError = (message) => toasts.error(message);
  }, [tree, toasts]);

  // Hidden files follow the stored preference; the first listing waits for it.
  const showHidden = prefs?.showHidden;
  useEffect(() => {
    if (showHidden === undefined) return;
    if (!tree.listing('')) {
      void tree.setShowHidden(showHidden).then(() => tree.load(''));
    } else void tree.setShowHidden(showHidden);
  }, [tree, showHidden]);

  const display = useMemo(() => new DisplayRows(rows, editing?.mode === 'create' ? editing : null), [rows, editing]);

  // After an operation selected something, bring it into view once it is listed.
  useEffect(() => {
    const index = display.indexOf(revealPending.current);
    if (index < 0) return;
    scrollRowIntoView(scrollRef.current, index);
    revealPending.current = null;
  }, [display]);

  const focusRow = (index: number, extend: boolean) => {
    const entry = display.entryAt(Math.max(0, Math.min(index, display.length - 1)));
    if (!entry) return;
    if (extend) selection.extendTo(entry.path, (from, to) => display.pathsBetween(from, to));
    else selection.select([entry.path]);
    scrollRowIntoView(scrollRef.current, display.indexOf(entry.path));
  };

  const activate = (entry: Entry) => {
    if (entry.kind === 'dir') {
      if (tree.isExpanded(entry.path)) tree.collapse(entry.path);
      else void tree.expand(entry.path);
    } else onOpen(entry.path);
  };

  const [pressedTicket] = useState(() => new PressedRowTicket());
  const drag = useTreeDrag({
    scrollRef,
    sourcesFor: (path) => {
      if (selection.has(path)) return [...selection.getState().selected];
      select([path]);
      return [path];
    },
    isExpanded: (dir) => tree.isExpanded(dir),
    expand: (dir) => void tree.expand(dir),
    drop: (sources, target) => void ops.moveInto(sources, target),
    startNative: (event, sources) => {
      const desktop = desktopApi();
      const single = sources.length === 1 ? tree.entry(sources[0]!) : undefined;
      if (event.dataTransfer) {
        writeTreeDrag(event.dataTransfer, {
          paths: sources,
          // Out of the browser, one row downloads (a folder as a zip); Electron drags the real files instead.
          downloadUrl: single ? pressedTicket.take(single.path) : undefined,
          kind: single?.kind === 'dir' ? 'dir' : 'file',
        });
        event.dataTransfer.effectAllowed = 'copyMove';
        setDragLabel(event.dataTransfer, single ? single.name : `${sources.length} items`);
      }
      rowsInFlight.begin(sources);
      if (desktop) {
        event.preventDefault();
        desktop.startDrag(sources);
      }
    },
  });

  // Files from the desktop: dropped on the tree (webkitGetAsEntry, or real paths in Electron) or chosen.
  const uploads = useUploads();
  const uploadJob = useStore(uploads, (s) => s.job);
  const bringIn = async (items: Promise<IncomingItem[]> | IncomingItem[], dir: string, move = false) => {
    const written = await uploads.bringIn(await items, dir, { ask, toasts, move });
    if (!written.length) return;
    if (dir) await tree.expand(dir);
    select(written);
  };
  const osDrop = useOsDrop({
    scrollRef,
    isExpanded: (dir) => tree.isExpanded(dir),
    expand: (dir) => void tree.expand(dir),
    drop: (items, target, move) => void bringIn(items, target, move),
  });

  const onRowClick = (event: React.MouseEvent, entry: Entry) => {
    if (drag.suppressClick.current || editing?.mode === 'rename') return;
    event.stopPropagation();
    if (isModKey(event)) selection.toggle(entry.path);
    else if (event.shiftKey && selection.hasAnchor) focusRow(display.indexOf(entry.path), true);
    else {
      selection.select([entry.path]);
      activate(entry);
    }
  };

  // Read from the store, not this render: a right-click moves focus just before its menu item runs.
  const focusedEntry = () => {
    const path = selection.focused;
    return path ? tree.entry(path) : undefined;
  };
  /** The folder an action aimed at the focused entry works in: the folder itself, or a file's folder. */
  const folderForFocused = (): string => {
    const entry = focusedEntry();
    return !entry ? '' : entry.kind === 'dir' ? entry.path : parentOf(entry.path);
  };

  const startCreate = async (dir: string, kind: 'file' | 'dir') => {
    if (dir) await tree.expand(dir);
    setEditing({ mode: 'create', dir, kind });
  };

  const paste = async (dir: string) => {
    if (!clip) return;
    if (clip.mode === 'copy') await ops.copyInto(clip.paths, dir);
    else {
      setClip(null);
      await ops.moveInto(clip.paths, dir);
    }
  };

  const actions: ExplorerActions = {
    runContributed: (item, path) => void item.run({ bridge, path }),
    treeFocused: () => document.activeElement === scrollRef.current,
    focusedEntry,
    targets: () => selection.targets(),
    activate,
    startRename: (path) => setEditing({ mode: 'rename', path }),
    startCreate: (kind) => void startCreate(folderForFocused(), kind),
    remove: (paths) => void ops.delete(paths),
    clip: (mode, paths) => setClip({ mode, paths }),
    hasClip: () => Boolean(clip),
    paste: () => void paste(folderForFocused()),
    undo: () => void ops.undo(),
    selectAll: () => selection.selectAll(rows.pathsBetween(0, rows.length - 1)),
    clearSelection: () => {
      selection.collapse();
      if (clip?.mode === 'cut') setClip(null);
    },
    copyPath: (absolute) => void copyWorkspacePath(bridge, toasts, focusedEntry()?.path ?? '', absolute),
    collapseAll: () => tree.collapseAll(),
    host: desktopApi() ? 'electron' : 'web',
    download: (path) =>
      void startDownload(bridge, path).catch((err) =>
        toasts.error(`Could not download ${path || workspaceName}: ${errorText(err)}`),
      ),
    revealInFileManager: (path) =>
      void desktopApi()
        ?.reveal(path)
        .catch((err) => toasts.error(errorText(err))),
    openWithSystem: (path) =>
      void desktopApi()
        ?.openWithSystem(path)
        .then((result) => {
          if (!result.opened && result.message) toasts.error(`Could not open ${nameOf(path)}: ${result.message}`);
        }),
    hiddenShown: () => Boolean(showHidden),
    toggleHidden: () => setPref('showHidden', !showHidden),
    upload: (folder) => {
      const dir = folderForFocused();
      void pickFiles(folder).then((files) => bringIn(incomingFromInput(files), dir));
    },
  };
  const commands = explorerCommands(actions);
  useCommands(commands);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.target !== event.currentTarget) return;
    const index = display.indexOf(focused);
    const moved = navigate(event.key, event.shiftKey, {
      index,
      entry: focusedEntry(),
      page: Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 220) / ROW_HEIGHT) - 1),
      last: display.length - 1,
      focusRow,
      indexOf: (path) => display.indexOf(path),
      isExpanded: (dir) => tree.isExpanded(dir),
      expand: (dir) => void tree.expand(dir),
      collapse: (dir) => tree.collapse(dir),
    });
    if (!moved && !findByTyping(event, index)) return;
    event.preventDefault();
    event.stopPropagation();
  };

  /** Type-to-find: jumps to the next row whose name starts with what was typed. */
  const findByTyping = (event: React.KeyboardEvent, index: number): boolean => {
    const key = event.key;
    if (key.length !== 1 || isModKey(event) || event.altKey || key === ' ') return false;
    const now = Date.now();
    typed.current = { text: now - typed.current.at > TYPE_TO_FIND_RESET_MS ? key : typed.current.text + key, at: now };
    const needle = typed.current.text.toLowerCase();
    const start = typed.current.text.length === 1 ? index + 1 : Math.max(index, 0);
    for (let step = 0; step < display.length; step++) {
      const i = (start + step) % display.length;
      if (display.entryAt(i)?.name.toLowerCase().startsWith(needle)) {
        focusRow(i, false);
        break;
      }
    }
    return true;
  };

  const onContextMenu = (event: React.MouseEvent) => {
    event.preventDefault();
    const path = (event.target as HTMLElement).closest<HTMLElement>('[data-path]')?.dataset.path;
    const entry = path !== undefined ? (tree.entry(path) ?? null) : null;
    selection.pointAt(entry?.path ?? null);
    scrollRef.current?.focus();
    setMenu({ x: event.clientX, y: event.clientY, entry });
  };

  const finishEditing = (refocus = true) => {
    setEditing(null);
    if (refocus) requestAnimationFrame(() => scrollRef.current?.focus());
  };

  // Rows are memoized; they call the latest handlers through one stable object.
  const pointerDown = (event: React.PointerEvent, path: string) => {
    drag.onRowPointerDown(event, path);
    // In the browser a press may become a drag out of the window: its download ticket is asked for now.
    if (event.button === 0 && !desktopApi()) void pressedTicket.press(bridge, path);
  };
  const latest = useRef({ onRowClick, finishEditing, ops, pointerDown, dragStart: drag.onRowDragStart });
  latest.current = { onRowClick, finishEditing, ops, pointerDown, dragStart: drag.onRowDragStart };
  const rowEvents = useMemo<RowEvents>(
    () => ({
      click: (e, entry) => latest.current.onRowClick(e, entry),
      pointerDown: (e, path) => latest.current.pointerDown(e, path),
      dragStart: (e, path) => latest.current.dragStart(e, path),
      commitRename: (path, name) => {
        latest.current.finishEditing();
        void latest.current.ops.rename(path, name);
      },
      cancelRename: () => latest.current.finishEditing(),
    }),
    [],
  );

  const onCreate = async (dir: string, kind: 'file' | 'dir', name: string) => {
    finishEditing();
    const created = await ops.create(dir, name, kind);
    if (created && kind === 'file') onOpen(created);
  };

  const dragState = drag.drag;
  const dropState = dragState ?? osDrop.over;
  const writing = writingRow(uploadJob?.current ?? null, uploadJob?.currentFraction ?? 0, display);
  // Drop targets elsewhere (composers, editors) know the tree's rows only while its drag is on.
  const dragging = dragState !== null;
  useEffect(() => {
    if (!dragging) rowsInFlight.end();
  }, [dragging, rowsInFlight]);
  const cutPaths = useMemo(() => (clip?.mode === 'cut' ? new Set(clip.paths) : null), [clip]);
  const focusedIndex = display.indexOf(focused);

  return (
    <div className="explorer">
      <div className="rail-header">
        <span className="rail-title" title={workspaceName}>
          {workspaceName || 'Explorer'}
        </span>
        <span className="rail-actions">
          <button
            type="button"
            className="icon-btn"
            aria-label="New File"
            title="New File"
            onClick={() => actions.startCreate('file')}
          >
            <NewFileIcon />
          </button>
          <button
            type="button"
            className="icon-btn"
            aria-label="New Folder"
            title="New Folder"
            onClick={() => actions.startCreate('dir')}
          >
            <NewFolderIcon />
          </button>
          <button
            type="button"
            className="icon-btn"
            aria-label="Collapse Folders"
            title="Collapse Folders"
            onClick={actions.collapseAll}
          >
            <CollapseIcon />
          </button>
          <button
            type="button"
            className="icon-btn"
            aria-label="Show hidden files"
            aria-pressed={Boolean(showHidden)}
            title={showHidden ? 'Hide hidden files' : 'Show hidden files'}
            onClick={actions.toggleHidden}
          >
            <EyeIcon crossed={!showHidden} />
          </button>
        </span>
      </div>
      <div
        ref={scrollRef}
        className={`tree${dropState?.target === '' ? (dropState.valid ? ' drop-root' : ' drop-root-invalid') : ''}${dragState ? ' dragging' : ''}`}
        role="tree"
        aria-label="Files"
        aria-multiselectable="true"
        tabIndex={0}
        aria-activedescendant={focusedIndex >= 0 ? `treeitem-${focusedIndex}` : undefined}
        data-drop-target={dropState?.target ?? undefined}
        data-drop-valid={dropState ? String(dropState.valid) : undefined}
        onDragOver={osDrop.onDragOver}
        onDragLeave={osDrop.onDragLeave}
        onDrop={osDrop.onDrop}
        onKeyDown={onKeyDown}
        onContextMenu={onContextMenu}
        onClick={(e) => {
          if (e.target === e.currentTarget || (e.target as HTMLElement).classList.contains('tree-inner'))
            selection.clear();
        }}
      >
        <TreeRowList
          scrollRef={scrollRef}
          display={display}
          selected={selected}
          focused={focused}
          cut={cutPaths}
          marks={tree.marks}
          drag={dropState}
          writing={writing}
          renaming={editing?.mode === 'rename' ? editing.path : null}
          events={rowEvents}
          onCreate={(dir, kind, name) => void onCreate(dir, kind, name)}
          onCancelCreate={() => finishEditing()}
        />
        {!rows.length && rootListed && !editing && <div className="tree-empty">This folder is empty.</div>}
      </div>
      {dragState && dragState.target !== undefined && (
        <div
          className={`drag-ghost${dragState.valid || dragState.target === null ? '' : ' invalid'}`}
          style={{ left: dragState.x + 14, top: dragState.y + (dragState.native ? 34 : 10) }}
          aria-hidden
          hidden={dragState.native && (dragState.target === null || (dragState.valid && dragState.same))}
        >
          {dragState.target !== null && !dragState.valid
            ? `Can't move a folder into itself`
            : dragState.native
              ? null
              : dragState.sources.length === 1
                ? nameOf(dragState.sources[0])
                : `${dragState.sources.length} items`}
          {dragState.target !== null && dragState.valid && !dragState.same && (
            <span className="drag-ghost-target">
              {' '}
              → {dragState.target === '' ? workspaceName || 'root' : nameOf(dragState.target)}
            </span>
          )}
        </div>
      )}
      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          label={menu.entry ? `Actions for ${menu.entry.name}` : 'Workspace actions'}
          items={explorerMenu(commands)}
          onClose={() => setMenu(null)}
        />
      )}
    </div>
  );
}

/** The row that shows an upload's progress: the file being written once listed, else its nearest listed folder. */
function writingRow(
  current: string | null,
  fraction: number,
  display: DisplayRows,
): { path: string; fraction: number } | null {
  for (let path = current; path; path = parentOf(path)) {
    if (display.indexOf(path) >= 0) return { path, fraction };
  }
  return null;
}
