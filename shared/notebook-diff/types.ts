/*
 * The cell-level notebook diff: plain data (JSON-safe), so main can compute it and send it to the view, and every
 * consumer (Edit assistant review, the Agent's Keep/Undo, Timeline, git, the three-way merge) reads one shape.
 * Cells are addressed by their index in the old (base) and new notebook; the notebooks themselves hold the content.
 */

/** Which old cell is which new cell (match.ts computes it). */
export interface CellMatching {
  /** For each old cell, the new cell it is (or -1: deleted). */
  oldToNew: Int32Array;
  /** For each new cell, the old cell it was (or -1: added). */
  newToOld: Int32Array;
  /** For each new cell, whether its pair is an anchor (kept its order relative to the other anchors). */
  anchored: Uint8Array;
}

/** The parts of a notebook the diff reads; main's NotebookJson fits it. Unknown fields are compared too. */
export interface NotebookLike {
  cells: readonly CellLike[];
  metadata?: unknown;
  nbformat?: unknown;
  nbformat_minor?: unknown;
  [key: string]: unknown;
}

export interface CellLike {
  id?: unknown;
  cell_type?: unknown;
  source?: unknown;
  metadata?: unknown;
  outputs?: unknown;
  execution_count?: unknown;
  [key: string]: unknown;
}

/**
 * The text to write for `container[key]` when it is a number read from a file whose literal a JavaScript number
 * does not carry (2.0, 1e+20): main passes exact-json's exactNumberText so 2.0 and 2 differ, as they do on disk.
 */
export type ExactNumberText = (container: object, key: string | number) => string | undefined;

/** nbdime's options. Ignored parts are neither reported nor make a cell count as changed. */
export interface NotebookDiffOptions {
  ignoreOutputs?: boolean;
  /** Cell metadata and notebook metadata. */
  ignoreMetadata?: boolean;
  /** A code cell's execution_count and an execute_result's. */
  ignoreExecutionCounts?: boolean;
  /** How alike two sources must be (0..1, default 0.6) for cells without a shared id to count as one cell edited. */
  similarityThreshold?: number;
  exactNumberText?: ExactNumberText;
}

/** What changed in a cell; a matched cell may have several. `executionCount` alone is "execution count only". */
export type CellChangeKind =
  | 'added'
  | 'deleted'
  | 'moved'
  | 'source'
  | 'outputs'
  | 'executionCount'
  | 'metadata'
  | 'cellType'
  /** Attachments, the id, or a field nbformat does not define. */
  | 'other';

export type KeyStatus = 'added' | 'deleted' | 'changed';

/** One key of an object (metadata, a notebook's top level) that differs; values as read (absent when absent). */
export interface KeyChange {
  key: string;
  status: KeyStatus;
  old?: unknown;
  new?: unknown;
}

/** Changed lines of a source, 0-based; a pure insertion has oldLines 0 (at oldStart), a deletion newLines 0. */
export interface LineHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

export interface SourceDiff {
  old: string;
  new: string;
  /** Empty when the texts are equal. */
  hunks: LineHunk[];
}

/** One MIME type of a display_data / execute_result that differs. */
export interface MimeChange {
  mime: string;
  status: KeyStatus;
  /** Base64 payload (images but SVG): compared by its bytes, and sized for "image changed (12 KB → 14 KB)". */
  binary: boolean;
  oldBytes?: number;
  newBytes?: number;
}

/** Outputs aligned old to new: unchanged ones too, so the view can show both lists side by side. */
export interface OutputDiff {
  status: 'unchanged' | 'added' | 'deleted' | 'changed';
  oldIndex: number | null;
  newIndex: number | null;
  outputType: string;
  /** For `changed`: the MIME types of `data` that differ. */
  mimes: MimeChange[];
  /** For `changed`: other fields that differ (`text`, `name`, `ename`, `evalue`, `traceback`, `metadata`, …). */
  fields: string[];
}

export interface CellDiff {
  /**
   * The change's stable id (the same for the same two notebooks, whatever the options): what accept/reject sends
   * back. `cell:<id>` for a cell matched by id, `added:<id>` / `deleted:<id>`, and index-based forms
   * (`cell:o3-n5`, `added:n5`, `deleted:o3`) for cells without a usable id.
   */
  changeId: string;
  status: 'unchanged' | 'added' | 'deleted' | 'modified';
  /** Empty for an unchanged cell; for a modified one in a fixed order (moved, source, outputs, …). */
  kinds: CellChangeKind[];
  oldIndex: number | null;
  newIndex: number | null;
  /** The cell's id on each side, when it has one. */
  oldCellId: string | null;
  newCellId: string | null;
  /** The new side's type (the old one's for a deletion). */
  cellType: string;
  /** When the source changed, or the cell was added or deleted (then the missing side is ''). */
  source?: SourceDiff;
  /** When outputs changed (and are not ignored). */
  outputs?: OutputDiff[];
  executionCount?: { old: unknown; new: unknown };
  metadata?: KeyChange[];
  /** For cellType / other: the cell's own keys that differ (cell_type, attachments, id, unknown ones). */
  fields?: KeyChange[];
}

/** Everything outside the cells: metadata per key, and nbformat, nbformat_minor and unknown top-level keys. */
export interface NotebookLevelDiff {
  changeId: 'notebook';
  metadata: KeyChange[];
  fields: KeyChange[];
}

export interface NotebookDiff {
  /**
   * Every cell of both notebooks once, in display order: the new notebook's order, a deleted cell where it stood
   * among its old neighbours, a moved cell at its new place (its oldIndex says where it came from).
   */
  cells: CellDiff[];
  /** Null when nothing outside the cells differs. */
  notebook: NotebookLevelDiff | null;
  /** Every change id (changed cells in display order, then `notebook`): "Accept all" is this list. */
  changeIds: string[];
}
