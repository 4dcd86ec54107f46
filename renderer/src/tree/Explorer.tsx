import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Entry, FsChange } from '../../../shared/contract';
import { useBridge, useKilnEvent } from '../base';
import { useCommands } from '../commands';
import { useOpenFilesStore } from '../editor';
import { GitMark, useGitDecoration } from '../git';
import { rowTitle, type FlashMark, type NewMark } from './change-marks';
import { NewBadge } from './NewBadge';
import {
  ChevronIcon, CollapseIcon, ContextMenu, EyeIcon, FileIcon, FolderIcon, MOD, NewFileIcon, NewFolderIcon,
  copyWorkspacePath, isModKey, useAsk, usePrefs, useToasts, type MenuItem,
} from '../ui';
import { FileOps } from './file-ops';
import { nameOf, parentOf, stemRange } from './paths';
import { TreeStore, type TreeRow } from './tree-store';
import { useTreeDrag } from './use-tree-drag';

const ROW_HEIGHT = 22;
const INDENT = 12;
const TYPE_TO_FIND_RESET_MS = 800;

type DisplayRow = { type: 'entry'; row: TreeRow } | { type: 'create'; dir: string; kind: 'file' | 'dir'; depth: number };
type Editing = { mode: 'rename'; path: string } | { mode: 'create'; dir: string; kind: 'file' | 'dir' } | null;
type Clip = { mode: 'copy' | 'cut'; paths: string[] } | null;

/** The left rail: the workspace's files as an ARIA tree, virtualized, with every explorer operation. */
export function Explorer({ workspaceName, activePath, onOpen }: {
  workspaceName: string;
  /** The file active in the editor; the tree reveals and selects it when it changes elsewhere (tabs, breadcrumb). */
  activePath: string | null;
  onOpen: (path: string) => void;
}) {
  const bridge = useBridge();
  const ask = useAsk();
  const toasts = useToasts();
  const openFiles = useOpenFilesStore();
  const { prefs, setPref } = usePrefs();
  const tree = useMemo(() => new TreeStore(bridge), [bridge]);
  useEffect(() => () => tree.dispose(), [tree]);
  useSyncExternalStore(tree.subscribe, tree.getVersion);

  const [selection, setSelection] = useState<Set<string>>(new Set());
  const [focused, setFocused] = useState<string | null>(null);
  const anchor = useRef<string | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
  const [menu, setMenu] = useState<{ x: number; y: number; entry: Entry | null } | null>(null);
  const [clip, setClip] = useState<Clip>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const revealPending = useRef<string | null>(null);
  const typed = useRef({ text: '', at: 0 });

  const select = useCallback((paths: string[]) => {
    setSelection(new Set(paths));
    const last = paths[paths.length - 1] ?? null;
    setFocused(last);
    anchor.current = paths[0] ?? null;
    revealPending.current = last;
  }, []);

  // Follow the editor: a file activated from a tab or the breadcrumb is shown and selected here.
  const selectionRef = useRef(selection);
  selectionRef.current = selection;
  useEffect(() => {
    // An opened file is not new to the operator any more, however it was opened.
    if (activePath) tree.marks.opened(activePath);
    if (!activePath || selectionRef.current.has(activePath)) return;
    let live = true;
    void tree.reveal(activePath).then(() => live && select([activePath]));
    return () => {
      live = false;
    };
  }, [activePath, tree, select]);

  const ops = useMemo(() => new FileOps({ bridge, ask, toasts, tree, openFiles, select }), [bridge, ask, toasts, tree, openFiles, select]);

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

  useKilnEvent('fs.change', useCallback((change: FsChange) => tree.handleFsChange(change), [tree]));

  const rows = tree.rows();
  const display = useMemo<DisplayRow[]>(() => {
    const out: DisplayRow[] = rows.map((row) => ({ type: 'entry', row }));
    if (editing?.mode === 'create') {
      const at = editing.dir === '' ? -1 : out.findIndex((d) => d.type === 'entry' && d.row.entry.path === editing.dir);
      const depth = at < 0 ? 0 : (out[at] as { row: TreeRow }).row.depth + 1;
      out.splice(at + 1, 0, { type: 'create', dir: editing.dir, kind: editing.kind, depth });
    }
    return out;
  }, [rows, editing]);
  const indexOf = useCallback((path: string | null) => (path === null ? -1 : display.findIndex((d) => d.type === 'entry' && d.row.entry.path === path)), [display]);

  const virtualizer = useVirtualizer({
    count: display.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });

  // After an operation selected something, bring it into view once it is listed.
  useEffect(() => {
    const path = revealPending.current;
    if (!path) return;
    const index = indexOf(path);
    if (index >= 0) {
      virtualizer.scrollToIndex(index, { align: 'auto' });
      revealPending.current = null;
    }
  }, [indexOf, virtualizer]);

  const entryAt = (index: number): Entry | undefined => {
    const d = display[index];
    return d?.type === 'entry' ? d.row.entry : undefined;
  };

  const focusRow = (index: number, extend: boolean) => {
    const entry = entryAt(Math.max(0, Math.min(index, display.length - 1)));
    if (!entry) return;
    setFocused(entry.path);
    if (extend && anchor.current) {
      const a = indexOf(anchor.current);
      const b = indexOf(entry.path);
      const range = display.slice(Math.min(a, b), Math.max(a, b) + 1).flatMap((d) => (d.type === 'entry' ? [d.row.entry.path] : []));
      setSelection(new Set(range));
    } else {
      setSelection(new Set([entry.path]));
      anchor.current = entry.path;
    }
    virtualizer.scrollToIndex(indexOf(entry.path), { align: 'auto' });
  };

  const activate = (entry: Entry) => {
    if (entry.kind === 'dir') {
      if (tree.isExpanded(entry.path)) tree.collapse(entry.path);
      else void tree.expand(entry.path);
    } else onOpen(entry.path);
  };

  const drag = useTreeDrag({
    scrollRef,
    sourcesFor: (path) => {
      if (selection.has(path)) return [...selection];
      select([path]);
      return [path];
    },
    isExpanded: (dir) => tree.isExpanded(dir),
    expand: (dir) => void tree.expand(dir),
    drop: (sources, target) => void ops.moveInto(sources, target),
  });

  const onRowClick = (event: React.MouseEvent, entry: Entry) => {
    if (drag.suppressClick.current || editing?.mode === 'rename') return;
    event.stopPropagation();
    if (isModKey(event)) {
      const next = new Set(selection);
      if (next.has(entry.path)) next.delete(entry.path);
      else next.add(entry.path);
      setSelection(next);
      setFocused(entry.path);
      anchor.current = entry.path;
      return;
    }
    if (event.shiftKey && anchor.current) {
      focusRow(indexOf(entry.path), true);
      return;
    }
    setSelection(new Set([entry.path]));
    setFocused(entry.path);
    anchor.current = entry.path;
    activate(entry);
  };

  /** The folder an action aimed at this entry works in: the folder itself, or a file's folder. */
  const folderFor = (entry: Entry | null | undefined): string => (!entry ? '' : entry.kind === 'dir' ? entry.path : parentOf(entry.path));
  const focusedEntry = focused ? entryAt(indexOf(focused)) : undefined;
  const selected = () => (selection.size ? [...selection] : focused ? [focused] : []);

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

  const copyPath = (path: string, absolute: boolean) => copyWorkspacePath(bridge, toasts, path, absolute);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.target !== event.currentTarget) return;
    const index = indexOf(focused);
    const entry = focusedEntry;
    const mod = isModKey(event);
    const key = event.key;
    if (key === 'ArrowDown') focusRow(index + 1, event.shiftKey);
    else if (key === 'ArrowUp') focusRow(index < 0 ? 0 : index - 1, event.shiftKey);
    else if (key === 'Home') focusRow(0, event.shiftKey);
    else if (key === 'End') focusRow(display.length - 1, event.shiftKey);
    else if (key === 'PageDown' || key === 'PageUp') {
      const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 220) / ROW_HEIGHT) - 1);
      focusRow(index + (key === 'PageDown' ? page : -page), event.shiftKey);
    } else if (key === 'ArrowRight' && entry) {
      if (entry.kind === 'dir' && !tree.isExpanded(entry.path)) void tree.expand(entry.path);
      else if (entry.kind === 'dir') focusRow(index + 1, false);
    } else if (key === 'ArrowLeft' && entry) {
      if (entry.kind === 'dir' && tree.isExpanded(entry.path)) tree.collapse(entry.path);
      else if (parentOf(entry.path) !== '' || entry.path.includes('/')) focusRow(indexOf(parentOf(entry.path)), false);
    } else if (key === 'Enter' && entry) activate(entry);
    else if (key === 'Backspace' && event.metaKey && selected().length) void ops.delete(selected());
    else if (mod && key.toLowerCase() === 'c' && !event.shiftKey && selected().length) setClip({ mode: 'copy', paths: selected() });
    else if (mod && key.toLowerCase() === 'x' && selected().length) setClip({ mode: 'cut', paths: selected() });
    else if (mod && key.toLowerCase() === 'v') void paste(folderFor(entry));
    else if (mod && key.toLowerCase() === 'z' && !event.shiftKey) void ops.undo();
    else if (mod && key.toLowerCase() === 'a') setSelection(new Set(rows.map((r) => r.entry.path)));
    else if (key === 'Escape') {
      setSelection(new Set(focused ? [focused] : []));
      if (clip?.mode === 'cut') setClip(null);
    } else if (key.length === 1 && !mod && !event.altKey && key !== ' ') {
      // Type-to-find: jump to the next row whose name starts with what was typed.
      const now = Date.now();
      typed.current = { text: now - typed.current.at > TYPE_TO_FIND_RESET_MS ? key : typed.current.text + key, at: now };
      const needle = typed.current.text.toLowerCase();
      const start = typed.current.text.length === 1 ? index + 1 : Math.max(index, 0);
      for (let step = 0; step < display.length; step++) {
        const i = (start + step) % display.length;
        if (entryAt(i)?.name.toLowerCase().startsWith(needle)) {
          focusRow(i, false);
          break;
        }
      }
    } else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const treeFocused = () => document.activeElement === scrollRef.current;
  useCommands([
    { id: 'explorer.rename', title: 'Rename', category: 'Explorer', keys: 'F2', when: () => treeFocused() && Boolean(focusedEntry), run: () => focusedEntry && setEditing({ mode: 'rename', path: focusedEntry.path }) },
    { id: 'explorer.delete', title: 'Delete', category: 'Explorer', keys: 'Delete', when: () => treeFocused() && selected().length > 0, run: () => ops.delete(selected()) },
    { id: 'explorer.newFile', title: 'New File', category: 'Explorer', run: () => startCreate(folderFor(focusedEntry), 'file') },
    { id: 'explorer.newFolder', title: 'New Folder', category: 'Explorer', run: () => startCreate(folderFor(focusedEntry), 'dir') },
    { id: 'explorer.collapseAll', title: 'Collapse Folders', category: 'Explorer', run: () => tree.collapseAll() },
    { id: 'explorer.toggleHidden', title: showHidden ? 'Hide hidden files' : 'Show hidden files', category: 'View', run: () => setPref('showHidden', !showHidden) },
  ]);

  const onContextMenu = (event: React.MouseEvent) => {
    event.preventDefault();
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-path]');
    const path = row?.dataset.path;
    const entry = path !== undefined ? entryAt(indexOf(path)) ?? null : null;
    if (entry) {
      if (!selection.has(entry.path)) {
        setSelection(new Set([entry.path]));
        anchor.current = entry.path;
      }
      setFocused(entry.path);
    } else {
      setSelection(new Set());
      setFocused(null);
    }
    scrollRef.current?.focus();
    setMenu({ x: event.clientX, y: event.clientY, entry });
  };

  const menuItems = (entry: Entry | null): MenuItem[] => {
    const targets = entry ? (selection.has(entry.path) ? [...selection] : [entry.path]) : [];
    const dir = folderFor(entry);
    const path = entry?.path ?? '';
    return [
      { label: 'New File', onSelect: () => void startCreate(dir, 'file') },
      { label: 'New Folder', onSelect: () => void startCreate(dir, 'dir') },
      'separator',
      { label: 'Cut', shortcut: `${MOD}X`, disabled: !entry, onSelect: () => setClip({ mode: 'cut', paths: targets }) },
      { label: 'Copy', shortcut: `${MOD}C`, disabled: !entry, onSelect: () => setClip({ mode: 'copy', paths: targets }) },
      { label: 'Paste', shortcut: `${MOD}V`, disabled: !clip, onSelect: () => void paste(dir) },
      'separator',
      { label: 'Copy Path', onSelect: () => void copyPath(path, false) },
      { label: 'Copy Absolute Path', onSelect: () => void copyPath(path, true) },
      'separator',
      { label: 'Rename', shortcut: 'F2', disabled: !entry, onSelect: () => entry && setEditing({ mode: 'rename', path: entry.path }) },
      { label: 'Delete', shortcut: 'Delete', disabled: !entry, onSelect: () => void ops.delete(targets) },
    ];
  };

  // Rows are memoized; they call the latest handlers through one stable object.
  const latest = useRef({ onRowClick, renameTo: (path: string, name: string) => void ops.rename(path, name), pointerDown: drag.onRowPointerDown, finishEditing: (_refocus?: boolean) => {} });
  const rowEvents = useMemo<RowEvents>(
    () => ({
      click: (e, entry) => latest.current.onRowClick(e, entry),
      pointerDown: (e, path) => latest.current.pointerDown(e, path),
      commitRename: (path, name) => {
        latest.current.finishEditing();
        latest.current.renameTo(path, name);
      },
      cancelRename: () => latest.current.finishEditing(),
    }),
    [],
  );

  const finishEditing = (refocus = true) => {
    setEditing(null);
    if (refocus) requestAnimationFrame(() => scrollRef.current?.focus());
  };

  latest.current = { onRowClick, renameTo: (path, name) => void ops.rename(path, name), pointerDown: drag.onRowPointerDown, finishEditing };
  const dragState = drag.drag;
  const cutPaths = clip?.mode === 'cut' ? new Set(clip.paths) : null;
  const focusedIndex = indexOf(focused);

  return (
    <div className="explorer">
      <div className="rail-header">
        <span className="rail-title" title={workspaceName}>{workspaceName || 'Explorer'}</span>
        <span className="rail-actions">
          <button type="button" className="icon-btn" aria-label="New File" title="New File" onClick={() => void startCreate(folderFor(focusedEntry), 'file')}>
            <NewFileIcon />
          </button>
          <button type="button" className="icon-btn" aria-label="New Folder" title="New Folder" onClick={() => void startCreate(folderFor(focusedEntry), 'dir')}>
            <NewFolderIcon />
          </button>
          <button type="button" className="icon-btn" aria-label="Collapse Folders" title="Collapse Folders" onClick={() => tree.collapseAll()}>
            <CollapseIcon />
          </button>
          <button
            type="button"
            className="icon-btn"
            aria-label="Show hidden files"
            aria-pressed={Boolean(showHidden)}
            title={showHidden ? 'Hide hidden files' : 'Show hidden files'}
            onClick={() => setPref('showHidden', !showHidden)}
          >
            <EyeIcon crossed={!showHidden} />
          </button>
        </span>
      </div>
      <div
        ref={scrollRef}
        className={`tree${dragState?.target === '' ? (dragState.valid ? ' drop-root' : ' drop-root-invalid') : ''}${dragState ? ' dragging' : ''}`}
        role="tree"
        aria-label="Files"
        aria-multiselectable="true"
        tabIndex={0}
        aria-activedescendant={focusedIndex >= 0 ? `treeitem-${focusedIndex}` : undefined}
        data-drop-target={dragState?.target ?? undefined}
        data-drop-valid={dragState ? String(dragState.valid) : undefined}
        onKeyDown={onKeyDown}
        onContextMenu={onContextMenu}
        onClick={(e) => {
          if (e.target === e.currentTarget || (e.target as HTMLElement).classList.contains('tree-inner')) {
            setSelection(new Set());
            setFocused(null);
          }
        }}
      >
        <div className="tree-inner" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const d = display[item.index];
            const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
            if (d.type === 'create') {
              return (
                <div key="creating" className="tree-row editing" style={{ ...style, paddingLeft: 6 + d.depth * INDENT + 16 }}>
                  {d.kind === 'dir' ? <FolderIcon open={false} /> : <FileIcon name="" />}
                  <NameInput
                    initial=""
                    label={d.kind === 'dir' ? 'New folder name' : 'New file name'}
                    select={[0, 0]}
                    onCancel={() => finishEditing()}
                    onCommit={async (name) => {
                      finishEditing();
                      const created = await ops.create(d.dir, name, d.kind);
                      if (created && d.kind === 'file') onOpen(created);
                    }}
                  />
                </div>
              );
            }
            const { entry, depth, expanded, loading } = d.row;
            const dropHere = dragState && dragState.target !== null && dragState.target !== '' && entry.path === dragState.target;
            return (
              <TreeRowView
                key={entry.path}
                index={item.index}
                start={item.start}
                entry={entry}
                depth={depth}
                expanded={expanded}
                loading={loading}
                selected={selection.has(entry.path)}
                focused={entry.path === focused}
                cut={Boolean(cutPaths?.has(entry.path))}
                flash={tree.marks.flashOf(entry.path)}
                newMark={tree.marks.newMarkOf(entry.path)}
                drop={dropHere ? (dragState.valid ? 'valid' : 'invalid') : undefined}
                inDropZone={Boolean(dragState && dragState.target && dragState.valid && entry.path.startsWith(`${dragState.target}/`))}
                dragSource={Boolean(dragState?.sources.includes(entry.path))}
                renaming={editing?.mode === 'rename' && editing.path === entry.path}
                events={rowEvents}
              />
            );
          })}
        </div>
        {!rows.length && tree.listing('') && !editing && <div className="tree-empty">This folder is empty.</div>}
      </div>
      {dragState && dragState.target !== undefined && (
        <div className={`drag-ghost${dragState.valid || dragState.target === null ? '' : ' invalid'}`} style={{ left: dragState.x + 14, top: dragState.y + 10 }} aria-hidden>
          {dragState.target !== null && !dragState.valid
            ? `Can't move a folder into itself`
            : dragState.sources.length === 1
              ? nameOf(dragState.sources[0])
              : `${dragState.sources.length} items`}
          {dragState.target !== null && dragState.valid && !dragState.same && (
            <span className="drag-ghost-target"> → {dragState.target === '' ? workspaceName || 'root' : nameOf(dragState.target)}</span>
          )}
        </div>
      )}
      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          label={menu.entry ? `Actions for ${menu.entry.name}` : 'Workspace actions'}
          items={menuItems(menu.entry)}
          onClose={() => {
            setMenu(null);
          }}
        />
      )}
    </div>
  );
}

interface RowEvents {
  click: (event: React.MouseEvent, entry: Entry) => void;
  pointerDown: (event: React.PointerEvent, path: string) => void;
  commitRename: (path: string, name: string) => void;
  cancelRename: () => void;
}

interface TreeRowProps {
  index: number;
  start: number;
  entry: Entry;
  depth: number;
  expanded: boolean;
  loading: boolean;
  selected: boolean;
  focused: boolean;
  cut: boolean;
  flash: FlashMark | undefined;
  newMark: NewMark | undefined;
  drop: 'valid' | 'invalid' | undefined;
  inDropZone: boolean;
  dragSource: boolean;
  renaming: boolean;
  events: RowEvents;
}

/** One tree entry; memoized so scrolling re-renders only the rows that come into view. */
const TreeRowView = memo(function TreeRowView(props: TreeRowProps) {
  const { index, start, entry, depth, expanded, loading, selected, focused, cut, flash, newMark, drop, inDropZone, dragSource, renaming, events } = props;
  const git = useGitDecoration(entry.path, entry.kind === 'dir');
  const classes = [
    'tree-row',
    selected && 'selected',
    focused && 'focused',
    cut && 'cut',
    flash && (flash.origin === 'agent' ? 'flash-agent' : 'flash'),
    drop && (drop === 'valid' ? 'drop-target' : 'drop-invalid'),
    inDropZone && 'drop-zone',
    dragSource && 'drag-source',
    git && `git-${git.state}`,
  ].filter(Boolean).join(' ');
  return (
    <div
      id={`treeitem-${index}`}
      role="treeitem"
      aria-label={entry.name}
      aria-level={depth + 1}
      aria-expanded={entry.kind === 'dir' ? expanded : undefined}
      aria-selected={selected}
      aria-busy={loading || undefined}
      aria-description={git?.description}
      data-path={entry.path}
      data-kind={entry.kind}
      data-drop={drop}
      data-origin={newMark?.origin ?? flash?.origin}
      className={classes}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT, paddingLeft: 6 + depth * INDENT }}
      title={rowTitle(entry.path, newMark, flash)}
      onPointerDown={(e) => !renaming && events.pointerDown(e, entry.path)}
      onClick={(e) => events.click(e, entry)}
    >
      {Array.from({ length: depth }, (_, i) => (
        <span key={i} className="indent-guide" style={{ left: 6 + i * INDENT + 7 }} aria-hidden />
      ))}
      <span className="twisty" aria-hidden>{entry.kind === 'dir' && <ChevronIcon open={expanded} />}</span>
      {entry.kind === 'dir' ? <FolderIcon open={expanded} /> : <FileIcon name={entry.name} />}
      {renaming ? (
        <NameInput
          initial={entry.name}
          label="New name"
          select={stemRange(entry.name, entry.kind === 'dir')}
          onCancel={events.cancelRename}
          onCommit={(name) => events.commitRename(entry.path, name)}
        />
      ) : (
        <span className={`tree-name${entry.hidden ? ' hidden-entry' : ''}`}>{entry.name}</span>
      )}
      <NewBadge mark={newMark} />
      <GitMark decoration={git} />
    </div>
  );
});

/** The inline name box for rename and create: Enter commits, Escape cancels, leaving commits. */
function NameInput({ initial, label, select, onCommit, onCancel }: {
  initial: string;
  label: string;
  select: [number, number];
  onCommit: (name: string) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useLayoutEffect(() => {
    const input = ref.current;
    if (!input) return;
    input.focus();
    input.setSelectionRange(select[0], select[1]);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the selection is set once, when the box opens
  }, []);
  const finish = (commit: boolean) => {
    if (done.current) return;
    done.current = true;
    const value = ref.current?.value ?? '';
    if (commit && value.trim() && value !== initial) onCommit(value);
    else onCancel();
  };
  return (
    <input
      ref={ref}
      className="tree-input"
      aria-label={label}
      defaultValue={initial}
      spellCheck={false}
      onPointerDown={(e) => e.stopPropagation()}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Enter') finish(true);
        else if (e.key === 'Escape') finish(false);
      }}
      onBlur={() => finish(true)}
    />
  );
}
