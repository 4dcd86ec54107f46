import type { ExactNumberText } from './types';

/* The three-way notebook merge's shapes: what the resolver shows (JSON-safe, it crosses the contract) and its options. */

export type MergeResolution = 'ours' | 'theirs' | 'both';
/** The parts of a cell merged on their own; `outputs` carries the execution count with it. */
export type MergeCellPart = 'source' | 'outputs' | 'metadata' | 'cellType' | 'other';

/** One cell of one side as the resolver shows it. */
export interface MergeCellText {
  index: number;
  id: string | null;
  cellType: string;
  source: string;
}

export interface MergedCellItem {
  kind: 'cell';
  /** Where the cell comes from: unchanged on both sides, one side's change, or parts of both merged. */
  origin: 'unchanged' | 'ours' | 'theirs' | 'merged';
  cellType: string;
  /** The merged cell's source. */
  source: string;
  base: number | null;
  ours: number | null;
  theirs: number | null;
}

export interface CellConflictItem {
  kind: 'conflict';
  /** `cell:o<base index>` for a cell both sides changed (or one deleted), `added:o<k>` / `added:start` for cells both added after base cell k. */
  conflictId: string;
  reason: 'both-modified' | 'delete-modified' | 'both-added';
  /** For both-modified: the parts both sides changed differently (the others merged by themselves). */
  parts: MergeCellPart[];
  /** For a metadata conflict: the keys in conflict. */
  metadataKeys: string[];
  base: MergeCellText | null;
  /** Ours' cells (none for a deletion, one for an edit, any number for both-added). */
  ours: MergeCellText[];
  theirs: MergeCellText[];
}

export type NotebookMergeItem = MergedCellItem | CellConflictItem;

/** A notebook-level key (metadata, or a top-level field) both sides set differently; resolved 'ours' or 'theirs'. */
export interface NotebookKeyConflict {
  /** `metadata:<key>` or `field:<key>`. */
  conflictId: string;
  scope: 'metadata' | 'field';
  key: string;
  /** Values as read; absent when the side has no such key. */
  base?: unknown;
  ours?: unknown;
  theirs?: unknown;
}

export interface NotebookMerge {
  /** The merged notebook's cells top to bottom, conflicts where their cells go. */
  items: NotebookMergeItem[];
  notebookConflicts: NotebookKeyConflict[];
  /** Every conflict id (cells in order, then the notebook's): what a save must resolve. */
  conflictIds: string[];
}

export interface NotebookMergeOptions {
  similarityThreshold?: number;
  /** Main's exact-json: tells 2.0 from 2 when comparing. */
  exactNumberText?: ExactNumberText;
  /** Main's exact-json: records that `container[key]` (a number) is written as `text` (a value copied into a new object). */
  keepExactNumber?: (container: object, key: string, value: number, text: string) => void;
}
