import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { isWithin, parentOf } from './paths';

export interface DragState {
  sources: string[];
  x: number;
  y: number;
  /** The folder a drop would land in ('' = workspace root), or null when outside the tree. */
  target: string | null;
  /** False when a folder would land in itself or a descendant: shown red, drop refused. */
  valid: boolean;
  /** Every source already sits in the target folder: dropping does nothing. */
  same: boolean;
  /** The browser's (or the OS's) drag carries it: it can leave the window; the browser draws its image. */
  native?: boolean;
}

interface DragOptions {
  scrollRef: RefObject<HTMLElement | null>;
  /** Which paths a drag starting on this row carries (the selection if the row is in it). */
  sourcesFor: (path: string) => string[];
  isExpanded: (dir: string) => boolean;
  expand: (dir: string) => void;
  drop: (sources: string[], target: string) => void;
  /**
   * A row's HTML5 drag began: fill its data (the paths, a download) so it can leave the window. Calling
   * `preventDefault` hands the drag to the OS instead (Electron's native file drag); the tree still moves on a drop inside.
   */
  startNative: (event: DragEvent, sources: string[]) => void;
}

const START_DISTANCE = 4;
const HOVER_EXPAND_MS = 550;
const EDGE_PX = 28;
const MAX_SCROLL_STEP = 18;

/**
 * Drag-and-drop in the tree on pointer events, so real mouse input (and Playwright's) drives it the
 * same way. Handles the drop-target guard, hover-to-expand and auto-scroll near the edges.
 */
export function useTreeDrag(options: DragOptions) {
  const opts = useRef(options);
  opts.current = options;
  const [drag, setDrag] = useState<DragState | null>(null);
  const dragRef = useRef<DragState | null>(null);
  const press = useRef<{ x: number; y: number; path: string } | null>(null);
  const suppressClick = useRef(false);
  const hover = useRef<{ dir: string; timer: ReturnType<typeof setTimeout> } | null>(null);
  const pointer = useRef({ x: 0, y: 0 });
  /** The drag is the browser's (rows are draggable so they can leave the window): its events drive it from dragstart on. */
  const native = useRef(false);

  const update = (next: DragState | null) => {
    dragRef.current = next;
    setDrag(next);
  };

  const locate = useCallback(
    (
      x: number,
      y: number,
      sources: string[],
    ): Pick<DragState, 'target' | 'valid' | 'same'> & { hoverDir: string | null } => {
      const tree = opts.current.scrollRef.current;
      const el = document.elementFromPoint(x, y);
      if (!tree || !el || !tree.contains(el)) return { target: null, valid: false, same: false, hoverDir: null };
      const row = el.closest<HTMLElement>('[data-path]');
      let target = '';
      let hoverDir: string | null = null;
      if (row) {
        const path = row.dataset.path ?? '';
        if (row.dataset.kind === 'dir') {
          target = path;
          hoverDir = path;
        } else target = parentOf(path);
      }
      const valid = !sources.some((s) => isWithin(target, s) && target !== '');
      const same = sources.every((s) => parentOf(s) === target);
      return { target, valid, same, hoverDir };
    },
    [],
  );

  const retarget = useCallback(() => {
    const current = dragRef.current;
    if (!current) return;
    const { x, y } = pointer.current;
    const { hoverDir, ...where } = locate(x, y, current.sources);
    if (hover.current?.dir !== hoverDir) {
      if (hover.current) clearTimeout(hover.current.timer);
      hover.current = null;
      if (hoverDir !== null && !opts.current.isExpanded(hoverDir) && where.valid) {
        const dir = hoverDir;
        hover.current = { dir, timer: setTimeout(() => opts.current.expand(dir), HOVER_EXPAND_MS) };
      }
    }
    update({ ...current, x, y, ...where });
  }, [locate]);

  useEffect(() => {
    const onMove = (event: PointerEvent) => {
      pointer.current = { x: event.clientX, y: event.clientY };
      // An OS drag that ended outside the window sends no dragend (Electron's startDrag): the first move after it ends ours.
      if (native.current && dragRef.current && (event.buttons & 1) === 0) return end(false);
      if (dragRef.current) {
        retarget();
        return;
      }
      const start = press.current;
      if (!start || (event.buttons & 1) === 0) return;
      if (Math.hypot(event.clientX - start.x, event.clientY - start.y) < START_DISTANCE) return;
      const sources = opts.current.sourcesFor(start.path);
      dragRef.current = { sources, x: event.clientX, y: event.clientY, target: null, valid: false, same: true };
      retarget();
    };
    const end = (commit: boolean) => {
      const current = dragRef.current;
      press.current = null;
      native.current = false;
      if (hover.current) clearTimeout(hover.current.timer);
      hover.current = null;
      if (!current) return;
      update(null);
      // The click that ends a drag must not open or select the row under it.
      suppressClick.current = true;
      setTimeout(() => (suppressClick.current = false), 0);
      if (commit && current.target !== null && current.valid && !current.same)
        opts.current.drop(current.sources, current.target);
    };
    const onUp = () => end(!native.current);
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && dragRef.current) {
        event.preventDefault();
        end(false);
      }
    };
    // The browser cancels the pointer when its own drag starts: that drag carries on through drag events.
    const onCancel = () => {
      if (!native.current) end(false);
    };
    const onDragOver = (event: DragEvent) => {
      if (!native.current || !dragRef.current) return;
      pointer.current = { x: event.clientX, y: event.clientY };
      retarget();
      const current = dragRef.current;
      if (current.target === null) return; // over another drop target (a composer, an editor): theirs to accept
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = current.valid && !current.same ? 'move' : 'none';
    };
    const onDrop = (event: DragEvent) => {
      if (!native.current || !dragRef.current) return;
      pointer.current = { x: event.clientX, y: event.clientY };
      retarget();
      if (dragRef.current.target === null) return;
      // The tree's own rows, dropped in the tree: a move, never an OS drop to copy in.
      event.preventDefault();
      event.stopPropagation();
      end(true);
    };
    const onDragEnd = () => {
      if (native.current) end(false);
    };
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    window.addEventListener('pointercancel', onCancel);
    window.addEventListener('keydown', onKey, true);
    // dragenter too: a target that does not cancel it is not the drop target, and its dragovers may never come.
    window.addEventListener('dragenter', onDragOver, true);
    window.addEventListener('dragover', onDragOver, true);
    window.addEventListener('drop', onDrop, true);
    window.addEventListener('dragend', onDragEnd, true);
    return () => {
      window.removeEventListener('dragenter', onDragOver, true);
      window.removeEventListener('dragover', onDragOver, true);
      window.removeEventListener('drop', onDrop, true);
      window.removeEventListener('dragend', onDragEnd, true);
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      window.removeEventListener('pointercancel', onCancel);
      window.removeEventListener('keydown', onKey, true);
    };
  }, [retarget]);

  // Near the top or bottom edge, scroll the tree while the pointer rests there.
  const dragging = drag !== null;
  useEffect(() => {
    if (!dragging) return;
    let frame = 0;
    const tick = () => {
      const tree = opts.current.scrollRef.current;
      if (tree) {
        const box = tree.getBoundingClientRect();
        const { x, y } = pointer.current;
        const inside = x >= box.left && x <= box.right;
        let step = 0;
        if (inside && y < box.top + EDGE_PX && y > box.top - EDGE_PX)
          step = -Math.ceil((((box.top + EDGE_PX - y) / EDGE_PX) * MAX_SCROLL_STEP) / 2);
        else if (inside && y > box.bottom - EDGE_PX && y < box.bottom + EDGE_PX)
          step = Math.ceil((((y - (box.bottom - EDGE_PX)) / EDGE_PX) * MAX_SCROLL_STEP) / 2);
        if (step) {
          const before = tree.scrollTop;
          tree.scrollTop += step;
          if (tree.scrollTop !== before) retarget();
        }
      }
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [dragging, retarget]);

  const onRowPointerDown = useCallback((event: React.PointerEvent, path: string) => {
    if (event.button !== 0) return;
    press.current = { x: event.clientX, y: event.clientY, path };
    pointer.current = { x: event.clientX, y: event.clientY };
  }, []);

  const onRowDragStart = useCallback(
    (event: React.DragEvent, path: string) => {
      const sources = dragRef.current?.sources ?? opts.current.sourcesFor(path);
      native.current = true;
      pointer.current = { x: event.clientX, y: event.clientY };
      dragRef.current = {
        ...(dragRef.current ?? { target: null, valid: false, same: true }),
        sources,
        x: event.clientX,
        y: event.clientY,
        native: true,
      };
      opts.current.startNative(event.nativeEvent, sources);
      retarget();
    },
    [retarget],
  );

  return { drag, onRowPointerDown, onRowDragStart, suppressClick };
}
