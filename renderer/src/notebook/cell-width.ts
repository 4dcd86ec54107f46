/**
 * Each observed element's width as the last frame laid it out, through one ResizeObserver shared by every cell
 * (as near-view.ts shares its IntersectionObserver): read from here, a width costs no forced layout.
 */
// process-wide: one ResizeObserver for the page's elements, whichever window they belong to.
const listeners = new Map<Element, (width: number) => void>();
let observer: ResizeObserver | null = null;

/** Calls `onWidth` with `el`'s content width (whole pixels, as clientWidth gives) after each layout that changed it. */
export function observeWidth(el: Element, onWidth: (width: number) => void): () => void {
  observer ??= new ResizeObserver((entries) => {
    for (const entry of entries) listeners.get(entry.target)?.(Math.round(entry.contentRect.width));
  });
  listeners.set(el, onWidth);
  observer.observe(el);
  return () => {
    listeners.delete(el);
    observer?.unobserve(el);
  };
}
