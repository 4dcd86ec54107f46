import { useEffect, useState } from 'react';

/** Cells mounted with a notebook's first paint: more than a screen (outputs are deferred separately). */
export const FIRST_MOUNT = 20;
/** Cells mounted per task after that: small enough that no task grows long, big enough to finish soon. */
const MOUNT_CHUNK = 25;

/**
 * How many of a notebook's cells to mount. A 1,000-cell notebook's first screen paints after its first
 * FIRST_MOUNT cells are built, not after all of them (building every cell was most of its open time); the
 * rest follow a chunk per task, each after the browser had its chance to paint. Once every cell is mounted
 * the count follows the notebook, so a cell inserted later appears at once.
 */
export function useMountedCells(total: number, loaded: boolean): { count: number; all: boolean } {
  const [progress, setProgress] = useState(FIRST_MOUNT);
  const all = progress === Infinity || (loaded && progress >= total);
  useEffect(() => {
    if (!loaded) return;
    if (all) {
      if (progress !== Infinity) setProgress(Infinity);
      return;
    }
    // A frame first (the chunk before it paints), then a task: the next chunk never delays that paint.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setProgress((p) => p + MOUNT_CHUNK));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [loaded, all, progress]);
  return { count: all ? total : progress, all };
}
