export { diffNotebooks, lineHunks, planNotebookDiff, type NotebookDiffPlan } from './diff';
export { sourceSimilarity, type CellMatching } from './match';
export type { Stretch } from './layout';
export type {
  CellChangeKind,
  CellDiff,
  CellLike,
  ExactNumberText,
  KeyChange,
  KeyStatus,
  LineHunk,
  MimeChange,
  NotebookDiff,
  NotebookDiffOptions,
  NotebookLevelDiff,
  NotebookLike,
  OutputDiff,
  SourceDiff,
} from './types';
export {
  CellDiffSchema,
  KeyChangeSchema,
  LineHunkSchema,
  MimeChangeSchema,
  NotebookDiffOptionsSchema,
  NotebookDiffSchema,
  NotebookLevelDiffSchema,
  OutputDiffSchema,
} from './schema';
export {
  buildMergedNotebook,
  mergeNotebooks,
  type CellConflictItem,
  type MergeCellPart,
  type MergeCellText,
  type MergeResolution,
  type MergedCellItem,
  type NotebookKeyConflict,
  type NotebookMerge,
  type NotebookMergeItem,
  type NotebookMergeOptions,
} from './merge';
export {
  CellConflictItemSchema,
  MergeCellTextSchema,
  MergeResolutionSchema,
  MergedCellItemSchema,
  NotebookKeyConflictSchema,
  NotebookMergeItemSchema,
  NotebookMergeSchema,
} from './merge-schema';
