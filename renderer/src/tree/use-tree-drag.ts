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
}

interface DragOptions {
  scrollRef: RefObject<HTMLElement | null>;
  /** Which paths a drag starting on this row carries (the selection if the row is in it). */
  sourcesFor: (path: string) => string[];
  isExpanded: (dir: string) => boolean;
  expand: (dir: string) => void;
  drop: (sources: string[], target: string) => void;
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
    const onUp = () => end(true);
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && dragRef.current) {
        event.preventDefault();
        end(false);
      }
    };
    const onCancel = () => end(false);
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    window.addEventListener('pointercancel', onCancel);
    window.addEventListener('keydown', onKey, true);
    return () => {
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

  return { drag, onRowPointerDown, suppressClick };
}
