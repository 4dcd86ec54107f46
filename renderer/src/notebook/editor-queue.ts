import { flushSync } from 'react-dom';

/**
 * Cell editors that came near the view are made one per task, in the order they came: a fast scroll brings
 * dozens of cells near at once, and making all their Monaco editors in one task held the page for half a
 * second. Each cell shows its source as text until its turn, a task or two later.
 */
const waiting = new Set<() => void>();
let posted = false;
const channel = typeof MessageChannel === 'undefined' ? null : new MessageChannel();

function makeNext(): void {
  posted = false;
  const [next] = waiting;
  if (!next) return;
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

/** Runs `make` (which makes one editor live) in a task of its own, after those queued before it; returns a cancel. */
export function makeEditorSoon(make: () => void): () => void {
  waiting.add(make);
  post();
  return () => void waiting.delete(make);
}
