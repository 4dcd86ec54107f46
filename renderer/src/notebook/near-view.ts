/**
 * Whether an element is near the visible part of its scroller, through one IntersectionObserver per root and
 * margin shared by every cell that asks. One observer per cell (about 500 in a long notebook) made Chromium
 * compute each observer's root and margin in every frame after a layout change, such as a moved cell.
 */

type Listener = (near: boolean) => void;

interface SharedObserver {
  observer: IntersectionObserver;
  listeners: Map<Element, Listener>;
}

/** Keyed by root (the document for the viewport), then by margin. */
// process-wide: DOM observers keyed by their DOM root, which no two windows share.
const shared = new WeakMap<Element | Document, Map<string, SharedObserver>>();

/** Calls `onChange` with whether `el` is within `margin` of `root` (the viewport when null), now and on each change. */
export function observeNearView(
  el: Element,
  options: { root: Element | null; margin: string },
  onChange: Listener,
): () => void {
  const key = options.root ?? document;
  const byMargin = shared.get(key) ?? new Map<string, SharedObserver>();
  shared.set(key, byMargin);
  let entry = byMargin.get(options.margin);
  if (!entry) {
    const listeners = new Map<Element, Listener>();
    const observer = new IntersectionObserver(
      (entries) => {
        // A batch can hold several entries for one element: the latest says where it is now.
        const latest = new Map<Element, boolean>();
        for (const e of entries) latest.set(e.target, e.isIntersecting);
        for (const [target, near] of latest) listeners.get(target)?.(near);
      },
      { root: options.root, rootMargin: options.margin },
    );
    entry = { observer, listeners };
    byMargin.set(options.margin, entry);
  }
  const { observer, listeners } = entry;
  listeners.set(el, onChange);
  observer.observe(el);
  return () => {
    if (listeners.get(el) !== onChange) return;
    listeners.delete(el);
    observer.unobserve(el);
    if (listeners.size === 0) {
      observer.disconnect();
      byMargin.delete(options.margin);
    }
  };
}
