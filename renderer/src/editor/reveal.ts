/** A place in a file to show and select once its editor has it: Find in Files opens results this way. */
export interface RevealTarget {
  /** 1-based. */
  line: number;
  /** UTF-16 offsets within the line. */
  start: number;
  end: number;
}

const pending = new Map<string, RevealTarget>();
const listeners = new Set<(path: string) => void>();

/** Asks the editor showing `path` (now or once it opens) to select this range and scroll it into view. */
export function requestReveal(path: string, target: RevealTarget): void {
  pending.set(path, target);
  for (const listener of listeners) listener(path);
}

/** The editor takes the request for its path, once. */
export function takeReveal(path: string): RevealTarget | undefined {
  const target = pending.get(path);
  pending.delete(path);
  return target;
}

export function onRevealRequest(listener: (path: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
