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
export { buildMergedNotebook, mergeNotebooks } from './merge';
export type {
  CellConflictItem,
  MergeCellPart,
  MergeCellText,
  MergeResolution,
  MergedCellItem,
  NotebookKeyConflict,
  NotebookMerge,
  NotebookMergeItem,
  NotebookMergeOptions,
} from './merge-types';
export {
  CellConflictItemSchema,
  MergeCellTextSchema,
  MergeResolutionSchema,
  MergedCellItemSchema,
  NotebookKeyConflictSchema,
  NotebookMergeItemSchema,
  NotebookMergeSchema,
} from './merge-schema';
