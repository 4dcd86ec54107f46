import { useEffect, useRef, useState } from 'react';

/** Cells mounted with a notebook's first paint: more than a screen (outputs are deferred separately). */
export const FIRST_MOUNT = 20;
/** The most cells mounted per task after that. */
const MAX_CHUNK = 25;
/** What one mounting task may take: the page keeps painting and answering input between chunks. */
const CHUNK_BUDGET_MS = 30;

/** How many cells the next task mounts, from what the last chunk cost per cell (a cell with a long output costs more). */
export function nextChunkSize(lastChunk: number, lastMs: number): number {
  if (lastChunk <= 0 || lastMs <= 0) return MAX_CHUNK;
  return Math.max(1, Math.min(MAX_CHUNK, Math.floor((CHUNK_BUDGET_MS * lastChunk) / lastMs)));
}

/**
 * How many of a notebook's cells to mount. A 1,000-cell notebook's first screen paints after its first
 * FIRST_MOUNT cells are built, not after all of them (building every cell was most of its open time); the
 * rest follow a chunk per task, each after the browser had its chance to paint, each sized from what the
 * last one cost so that no task grows long (25 cells with big outputs took half a second, holding the
 * frame after the first paint). Once every cell is mounted the count follows the notebook, so a cell
 * inserted later appears at once.
 */
export function useMountedCells(total: number, loaded: boolean): { count: number; all: boolean } {
  const [progress, setProgress] = useState(FIRST_MOUNT);
  // One cell first: its cost sizes the chunks after it (a first chunk of big cells would hold the next frame).
  const chunk = useRef({ size: 0, startedAt: 0, next: 1 });
  const all = progress === Infinity || (loaded && progress >= total);
  useEffect(() => {
    if (!loaded) return;
    // This effect runs after the cells' own effects: the chunk that just mounted is fully built.
    const last = chunk.current;
    if (last.size > 0) last.next = nextChunkSize(last.size, performance.now() - last.startedAt);
    last.size = 0;
    if (all) {
      if (progress !== Infinity) setProgress(Infinity);
      return;
    }
    // A frame first (the chunk before it paints), then a task: the next chunk never delays that paint.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        const size = Math.min(last.next, total - progress);
        chunk.current = { size, startedAt: performance.now(), next: last.next };
        setProgress((p) => p + size);
      });
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [loaded, all, progress, total]);
  return { count: all ? total : progress, all };
}
