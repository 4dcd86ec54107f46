import { flushSync } from 'react-dom';

/**
 * Cell editors that came near the view are made one per task, in the order they came: a fast scroll brings
 * dozens of cells near at once, and making all their Monaco editors in one task held the page for half a
 * second. Each cell shows its source as text until its turn, a task or two later.
 *
 * While the page scrolls, none is made: every cell a fast scroll flies past would get an editor (kept from then
 * on) though nobody stopped there, and in a notebook full of formulas and charts each editor costs tens of
 * milliseconds of the frames the scroll needs. Editors come for the cells still near once the scrolling pauses.
 * A pause is SCROLL_QUIET_MS without a scroll and then a whole frame without one: a scroll that moves every frame
 * is still going however long its frames are (a page of formulas and charts on a busy machine took 200 ms a frame,
 * so by the clock alone every frame looked like a pause, and each made an editor, making the next frame longer).
 */
export const SCROLL_QUIET_MS = 150;

// process-wide: the page has one main thread; editors of every window take turns on its frames.
const waiting = new Set<() => void>();
let posted = false;
let lastScroll = Number.NEGATIVE_INFINITY;
/** Scroll events seen so far: whether one came during a frame. */
let scrolls = 0;
/** The count of scrolls when a whole frame last passed without one. */
let quietFrameAt = 0;
const channel = typeof MessageChannel === 'undefined' ? null : new MessageChannel();

function makeNext(): void {
  posted = false;
  const [next] = waiting;
  if (!next) return;
  const quietIn = lastScroll + SCROLL_QUIET_MS - performance.now();
  if (quietIn > 0) {
    posted = true;
    setTimeout(makeNext, quietIn);
    return;
  }
  if (quietFrameAt !== scrolls && typeof requestAnimationFrame === 'function') {
    // A frame runs its scroll events before its animation frame callbacks: one that saw none was not scrolling.
    const before = scrolls;
    posted = true;
    requestAnimationFrame(() => {
      posted = false;
      if (scrolls === before) quietFrameAt = before;
      post();
    });
    return;
  }
  waiting.delete(next);
  // Rendered (and its Monaco made) now, in this task, not batched with the next one.
  flushSync(next);
  post();
}

function post(): void {
  if (posted || waiting.size === 0) return;
  posted = true;
  if (channel) channel.port2.postMessage(null);
  else setTimeout(makeNext);
}

if (channel) channel.port1.onmessage = makeNext;

/** Called for every scroll in the page (the notebook's own list included: scroll events reach a capturing document). */
export function noteScroll(): void {
  lastScroll = performance.now();
  scrolls++;
}

if (typeof document !== 'undefined') document.addEventListener('scroll', noteScroll, { capture: true, passive: true });

/** Runs `make` (which makes one editor live) in a task of its own, after those queued before it; returns a cancel. */
export function makeEditorSoon(make: () => void): () => void {
  waiting.add(make);
  post();
  return () => void waiting.delete(make);
}
