import { useLayoutEffect, useRef, useState, type RefObject } from 'react';

/**
 * The notebook toolbar's overflow: actions that do not fit go into a "More actions" menu, the least important
 * first (as JupyterLab's toolbar collapses), so no label is ever cut. The kernel area is not one of them: it
 * never collapses, and what it says is never clipped silently.
 */

export interface Collapsible {
  id: string;
  /** Higher stays on the bar longer. */
  priority: number;
}

/**
 * The items to move into the menu: none when all fit in `available` pixels, else the lowest priorities until
 * the rest fits beside the "More actions" button (`moreWidth`).
 */
export function itemsToCollapse(
  items: readonly (Collapsible & { width: number })[],
  available: number,
  moreWidth: number,
): Set<string> {
  const hidden = new Set<string>();
  let total = items.reduce((sum, item) => sum + item.width, 0);
  if (total <= available) return hidden;
  const budget = available - moreWidth;
  for (const item of [...items].sort((a, b) => a.priority - b.priority)) {
    if (total <= budget) break;
    hidden.add(item.id);
    total -= item.width;
  }
  return hidden;
}

/**
 * Which of `items` are collapsed for the width of `row` (the part of the toolbar the actions may use), kept
 * up to date as it resizes. Each item's element carries `data-tool="<id>"`; its width is read while it shows
 * and remembered while it is collapsed.
 */
export function useCollapsedTools(
  row: RefObject<HTMLElement | null>,
  items: readonly Collapsible[],
  moreWidth: number,
): ReadonlySet<string> {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const widths = useRef(new Map<string, number>());
  const key = items.map((item) => `${item.id}:${item.priority}`).join(',');
  useLayoutEffect(() => {
    const el = row.current;
    if (!el) return;
    const measure = () => {
      for (const node of el.querySelectorAll<HTMLElement>('[data-tool]')) {
        // A collapsed item is display:none (width 0): keep what it measured while it showed.
        if (node.offsetWidth > 0) widths.current.set(node.dataset.tool!, node.offsetWidth + gapOf(el));
      }
      const next = itemsToCollapse(
        items.map((item) => ({ ...item, width: widths.current.get(item.id) ?? 0 })),
        el.clientWidth,
        moreWidth,
      );
      setHidden((now) => (sameSet(now, next) ? now : next));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
    // `key` stands for `items` (a new array each render with the same content).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [row, key, moreWidth]);
  return hidden;
}

function gapOf(el: HTMLElement): number {
  return parseFloat(getComputedStyle(el).columnGap) || 0;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
