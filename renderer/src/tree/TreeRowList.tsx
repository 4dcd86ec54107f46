import { useCallback, useEffect, useLayoutEffect, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import type { Entry } from '../../../shared/contract';
import type { ChangeMarks } from './change-marks';
import type { DragState } from './use-tree-drag';
import { CreateRowView, ROW_HEIGHT, TreeRowView, type RowEvents } from './TreeRowView';
import type { TreeRow, TreeRows } from './tree-rows';

/** Rows drawn beyond the visible ones, so a small scroll shows rows already there. */
const OVERSCAN = 10;

export type DisplayRow =
  { type: 'entry'; row: TreeRow } | { type: 'create'; dir: string; kind: 'file' | 'dir'; depth: number };

/** The tree's rows plus, while the operator names a new file or folder, its input row under that folder. */
export class DisplayRows {
  readonly length: number;
  /** Where the input row is, or -1. */
  private readonly createAt: number;
  private readonly createDepth: number;

  constructor(
    readonly rows: TreeRows,
    private readonly creating: { dir: string; kind: 'file' | 'dir' } | null,
  ) {
    const dirRow = creating && creating.dir !== '' ? rows.indexOf(creating.dir) : -1;
    this.createAt = creating ? dirRow + 1 : -1;
    this.createDepth = dirRow < 0 ? 0 : rows.at(dirRow)!.depth + 1;
    this.length = rows.length + (creating ? 1 : 0);
  }

  at(index: number): DisplayRow | undefined {
    if (this.creating && index === this.createAt)
      return { type: 'create', dir: this.creating.dir, kind: this.creating.kind, depth: this.createDepth };
    const row = this.rows.at(this.createAt >= 0 && index > this.createAt ? index - 1 : index);
    return row && { type: 'entry', row };
  }

  entryAt(index: number): Entry | undefined {
    const d = this.at(index);
    return d?.type === 'entry' ? d.row.entry : undefined;
  }

  indexOf(path: string | null): number {
    const index = this.rows.indexOf(path);
    return index >= 0 && this.createAt >= 0 && index >= this.createAt ? index + 1 : index;
  }

  /** The entry paths from one path's row to another's, in display order. */
  pathsBetween(from: string, to: string): string[] {
    return this.rows.pathsBetween(this.rows.indexOf(from), this.rows.indexOf(to));
  }
}

/** Scrolls the least that shows a row whole. */
export function scrollRowIntoView(scroller: HTMLElement | null, index: number): void {
  if (!scroller || index < 0) return;
  const top = index * ROW_HEIGHT;
  if (top < scroller.scrollTop) scroller.scrollTop = top;
  else if (top + ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight)
    scroller.scrollTop = top + ROW_HEIGHT - scroller.clientHeight;
}

/**
 * The rows in view of a scroller whose rows all have one height: two divisions per scroll, no per-row
 * measurement, so a folder of 100,000 files costs nothing more than one of 100. Rendered in the scroll
 * event itself, so a fast scroll never shows a blank frame. The range does not depend on the row count:
 * rows that come or go keep the rows in view mounted (the same elements).
 */
function useRowWindow(scrollRef: RefObject<HTMLElement | null>): { first: number; last: number } {
  const [range, setRange] = useState({ first: 0, last: 0 });
  const update = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const first = Math.max(0, Math.floor(el.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.ceil((el.scrollTop + el.clientHeight) / ROW_HEIGHT) + OVERSCAN;
    setRange((prev) => (prev.first === first && prev.last === last ? prev : { first, last }));
  }, [scrollRef]);
  useLayoutEffect(update, [update]);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onScroll = () => flushSync(update);
    el.addEventListener('scroll', onScroll, { passive: true });
    const resize = new ResizeObserver(update);
    resize.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      resize.disconnect();
    };
  }, [scrollRef, update]);
  return range;
}

export interface TreeRowListProps {
  scrollRef: RefObject<HTMLDivElement | null>;
  display: DisplayRows;
  selected: ReadonlySet<string>;
  focused: string | null;
  cut: ReadonlySet<string> | null;
  marks: ChangeMarks;
  drag: DragState | null;
  /** The row of what an upload is writing now (the file, else its nearest listed folder), and how far it is. */
  writing?: { path: string; fraction: number } | null;
  renaming: string | null;
  events: RowEvents;
  onCreate: (dir: string, kind: 'file' | 'dir', name: string) => void;
  onCancelCreate: () => void;
}

/** The rows in view, positioned in a spacer as tall as all rows; it alone re-renders as the tree scrolls. */
export function TreeRowList({
  scrollRef,
  display,
  selected,
  focused,
  cut,
  marks,
  drag,
  writing,
  renaming,
  events,
  onCreate,
  onCancelCreate,
}: TreeRowListProps) {
  const { first, last } = useRowWindow(scrollRef);
  const items = [];
  for (let index = first; index < Math.min(last, display.length); index++) {
    const d = display.at(index);
    if (!d) break;
    if (d.type === 'create') {
      items.push(
        <CreateRowView
          key="creating"
          index={index}
          depth={d.depth}
          kind={d.kind}
          onCancel={onCancelCreate}
          onCommit={(name) => onCreate(d.dir, d.kind, name)}
        />,
      );
      continue;
    }
    const { entry, depth, expanded, loading } = d.row;
    const dropHere = drag && drag.target !== null && drag.target !== '' && entry.path === drag.target;
    items.push(
      <TreeRowView
        key={entry.path}
        index={index}
        entry={entry}
        depth={depth}
        expanded={expanded}
        loading={loading}
        selected={selected.has(entry.path)}
        focused={entry.path === focused}
        cut={Boolean(cut?.has(entry.path))}
        flash={marks.flashOf(entry.path)}
        newMark={marks.newMarkOf(entry.path)}
        drop={dropHere ? (drag.valid ? 'valid' : 'invalid') : undefined}
        inDropZone={Boolean(drag && drag.target && drag.valid && entry.path.startsWith(`${drag.target}/`))}
        dragSource={Boolean(drag?.sources.includes(entry.path))}
        writing={writing?.path === entry.path ? writing.fraction : undefined}
        renaming={renaming === entry.path}
        events={events}
      />,
    );
  }
  return (
    <div className="tree-inner" style={{ height: display.length * ROW_HEIGHT }}>
      {items}
    </div>
  );
}
