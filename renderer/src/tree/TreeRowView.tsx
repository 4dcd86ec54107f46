import { memo, useLayoutEffect, useRef } from 'react';
import type { Entry } from '../../../shared/contract';
import { GitMark, useGitDecoration } from '../git';
import { ChevronIcon, FileIcon, FolderIcon } from '../ui';
import { rowTitle, type FlashMark, type NewMark } from './change-marks';
import { NewBadge } from './NewBadge';
import { stemRange } from './paths';

export const ROW_HEIGHT = 22;
export const INDENT = 12;

/** What a row reports; one stable object, so memoized rows don't re-render when the handlers change. */
export interface RowEvents {
  click: (event: React.MouseEvent, entry: Entry) => void;
  pointerDown: (event: React.PointerEvent, path: string) => void;
  /** The browser's drag of the row (rows are draggable so a drag can leave the window). */
  dragStart: (event: React.DragEvent, path: string) => void;
  commitRename: (path: string, name: string) => void;
  cancelRename: () => void;
}

export interface TreeRowProps {
  index: number;
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
  /** An upload is writing this entry (or into this folder): how far, 0..1. */
  writing?: number;
  renaming: boolean;
  events: RowEvents;
}

/** One tree entry; memoized so scrolling renders only the rows that come into view. */
export const TreeRowView = memo(function TreeRowView(props: TreeRowProps) {
  const {
    index,
    entry,
    depth,
    expanded,
    loading,
    selected,
    focused,
    cut,
    flash,
    newMark,
    drop,
    inDropZone,
    dragSource,
    writing,
    renaming,
    events,
  } = props;
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
  ]
    .filter(Boolean)
    .join(' ');
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
      data-writing={writing === undefined ? undefined : 'true'}
      data-origin={newMark?.origin ?? flash?.origin}
      className={classes}
      style={{ transform: `translateY(${index * ROW_HEIGHT}px)`, height: ROW_HEIGHT, paddingLeft: 6 + depth * INDENT }}
      title={rowTitle(entry.path, newMark, flash)}
      draggable={!renaming}
      onDragStart={(e) => events.dragStart(e, entry.path)}
      onPointerDown={(e) => !renaming && events.pointerDown(e, entry.path)}
      onClick={(e) => events.click(e, entry)}
    >
      {Array.from({ length: depth }, (_, i) => (
        <span key={i} className="indent-guide" style={{ left: 6 + i * INDENT + 7 }} aria-hidden />
      ))}
      <span className="twisty" aria-hidden>
        {entry.kind === 'dir' && <ChevronIcon open={expanded} />}
      </span>
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
      {writing !== undefined && (
        <span className="row-writing" style={{ width: `${Math.round(writing * 100)}%` }} aria-hidden />
      )}
      <NewBadge mark={newMark} />
      <GitMark decoration={git} />
    </div>
  );
});

/** The row where a new file or folder is named. */
export function CreateRowView({
  index,
  depth,
  kind,
  onCommit,
  onCancel,
}: {
  index: number;
  depth: number;
  kind: 'file' | 'dir';
  onCommit: (name: string) => void;
  onCancel: () => void;
}) {
  return (
    <div
      className="tree-row editing"
      style={{
        transform: `translateY(${index * ROW_HEIGHT}px)`,
        height: ROW_HEIGHT,
        paddingLeft: 6 + depth * INDENT + 16,
      }}
    >
      {kind === 'dir' ? <FolderIcon open={false} /> : <FileIcon name="" />}
      <NameInput
        initial=""
        label={kind === 'dir' ? 'New folder name' : 'New file name'}
        select={[0, 0]}
        onCancel={onCancel}
        onCommit={onCommit}
      />
    </div>
  );
}

/** The inline name box for rename and create: Enter commits, Escape cancels, leaving commits. */
function NameInput({
  initial,
  label,
  select,
  onCommit,
  onCancel,
}: {
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
