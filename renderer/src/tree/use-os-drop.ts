import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { IS_MAC } from '../ui';
import { parentOf } from './paths';
import type { DragState } from './use-tree-drag';
import { carriesOsFiles, readDrop, wantsMove, type IncomingItem } from '../upload';
import { desktopApi } from '../drag-out';

const HOVER_EXPAND_MS = 550;

interface OsDropOptions {
  scrollRef: RefObject<HTMLElement | null>;
  isExpanded: (dir: string) => boolean;
  expand: (dir: string) => void;
  /** Items read from the drop, the folder they land in ('' = root), and whether the move modifier was held. */
  drop: (items: Promise<IncomingItem[]>, target: string, move: boolean) => void;
}

/**
 * Files dragged in from the desktop onto the tree: the folder under the pointer (a file row's folder, empty space
 * the root) highlights and opens after a pause, as in the tree's own drag, and the drop brings the files in.
 * The tree's own drag runs on pointer events and never carries `Files`, so the two never meet.
 */
export function useOsDrop(options: OsDropOptions) {
  const opts = useRef(options);
  opts.current = options;
  const [over, setOver] = useState<DragState | null>(null);
  const hover = useRef<{ dir: string; timer: ReturnType<typeof setTimeout> } | null>(null);

  const stopHover = () => {
    if (hover.current) clearTimeout(hover.current.timer);
    hover.current = null;
  };

  const targetOf = (event: React.DragEvent): { target: string; hoverDir: string | null } => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-path]');
    if (!row) return { target: '', hoverDir: null };
    const path = row.dataset.path ?? '';
    return row.dataset.kind === 'dir' ? { target: path, hoverDir: path } : { target: parentOf(path), hoverDir: null };
  };

  const onDragOver = useCallback((event: React.DragEvent) => {
    if (!carriesOsFiles(event.dataTransfer)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = wantsMove(event, IS_MAC) && desktopApi() ? 'move' : 'copy';
    const { target, hoverDir } = targetOf(event);
    if (hover.current?.dir !== hoverDir) {
      stopHover();
      if (hoverDir !== null && !opts.current.isExpanded(hoverDir)) {
        const dir = hoverDir;
        hover.current = { dir, timer: setTimeout(() => opts.current.expand(dir), HOVER_EXPAND_MS) };
      }
    }
    setOver((prev) =>
      prev?.target === target
        ? prev
        : { sources: [], x: event.clientX, y: event.clientY, target, valid: true, same: false },
    );
  }, []);

  const onDragLeave = useCallback((event: React.DragEvent) => {
    const tree = opts.current.scrollRef.current;
    // Leaving a row for another row is not leaving the tree.
    if (tree && event.relatedTarget instanceof Node && tree.contains(event.relatedTarget)) return;
    stopHover();
    setOver(null);
  }, []);

  const onDrop = useCallback((event: React.DragEvent) => {
    if (!carriesOsFiles(event.dataTransfer)) return;
    event.preventDefault();
    stopHover();
    setOver(null);
    const { target } = targetOf(event);
    opts.current.drop(readDrop(event.dataTransfer), target, wantsMove(event, IS_MAC) && Boolean(desktopApi()));
  }, []);

  useEffect(() => stopHover, []);
  return { over, onDragOver, onDragLeave, onDrop };
}
