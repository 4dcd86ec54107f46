/*
 * Open notebooks as targets of a rename's or quick fix's edits. Main hands a notebook's edits back as new cell
 * sources (never writing the file); the notebook's view applies them through its own edit path, so they are
 * one step of its undo and make it dirty like typing does, and the operator saves. Registered by each
 * notebook view while it is open, in its window's set; the preview also names cells by the numbers the view shows.
 */
import type { KilnBridge } from '../../../shared/contract';
import { perBridge } from '../base';

export interface NotebookEditTarget {
  /** The notebook's path now (it follows moves). */
  path(): string;
  /** A cell's source as the notebook holds it; undefined for a cell it does not have. */
  sourceOf(cellId: string): string | undefined;
  /** The 1-based number the view shows for a cell; null when it has no such cell. */
  numberOf(cellId: string): number | null;
  /** New sources for several cells as one undoable edit. */
  replaceSources(edits: { cellId: string; source: string }[]): Promise<unknown>;
}

const targetsOf = perBridge(() => new Set<NotebookEditTarget>());

/** Offers an open notebook of the window for edits. Returns what withdraws it. */
export function registerNotebookEditTarget(bridge: KilnBridge, target: NotebookEditTarget): () => void {
  const targets = targetsOf.of(bridge);
  targets.add(target);
  return () => void targets.delete(target);
}

export function notebookEditTarget(bridge: KilnBridge, path: string): NotebookEditTarget | null {
  for (const target of targetsOf.of(bridge)) if (target.path() === path) return target;
  return null;
}
