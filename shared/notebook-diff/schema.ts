import { z } from 'zod';
import type {
  CellDiff,
  KeyChange,
  LineHunk,
  MimeChange,
  NotebookDiff,
  NotebookDiffOptions,
  NotebookLevelDiff,
  OutputDiff,
} from './types';

/*
 * The diff as it crosses the contract (main computes it, the view shows it): a contract channel uses these
 * schemas, and the checks at the end keep them and types.ts the same shape.
 */

const Index = z.number().int().min(0);
const KeyStatus = z.enum(['added', 'deleted', 'changed']);

export const KeyChangeSchema = z.object({
  key: z.string(),
  status: KeyStatus,
  old: z.unknown().optional(),
  new: z.unknown().optional(),
});

export const LineHunkSchema = z.object({ oldStart: Index, oldLines: Index, newStart: Index, newLines: Index });

export const MimeChangeSchema = z.object({
  mime: z.string(),
  status: KeyStatus,
  binary: z.boolean(),
  oldBytes: Index.optional(),
  newBytes: Index.optional(),
});

export const OutputDiffSchema = z.object({
  status: z.enum(['unchanged', 'added', 'deleted', 'changed']),
  oldIndex: Index.nullable(),
  newIndex: Index.nullable(),
  outputType: z.string(),
  mimes: z.array(MimeChangeSchema),
  fields: z.array(z.string()),
});

export const CellDiffSchema = z.object({
  changeId: z.string(),
  status: z.enum(['unchanged', 'added', 'deleted', 'modified']),
  kinds: z.array(
    z.enum(['added', 'deleted', 'moved', 'source', 'outputs', 'executionCount', 'metadata', 'cellType', 'other']),
  ),
  oldIndex: Index.nullable(),
  newIndex: Index.nullable(),
  oldCellId: z.string().nullable(),
  newCellId: z.string().nullable(),
  cellType: z.string(),
  source: z.object({ old: z.string(), new: z.string(), hunks: z.array(LineHunkSchema) }).optional(),
  outputs: z.array(OutputDiffSchema).optional(),
  executionCount: z.object({ old: z.unknown(), new: z.unknown() }).optional(),
  metadata: z.array(KeyChangeSchema).optional(),
  fields: z.array(KeyChangeSchema).optional(),
});

export const NotebookLevelDiffSchema = z.object({
  changeId: z.literal('notebook'),
  metadata: z.array(KeyChangeSchema),
  fields: z.array(KeyChangeSchema),
});

export const NotebookDiffSchema = z.object({
  cells: z.array(CellDiffSchema),
  notebook: NotebookLevelDiffSchema.nullable(),
  changeIds: z.array(z.string()),
});

/** nbdime's options as a request carries them (exactNumberText stays in main). */
export const NotebookDiffOptionsSchema = z.object({
  ignoreOutputs: z.boolean().optional(),
  ignoreMetadata: z.boolean().optional(),
  ignoreExecutionCounts: z.boolean().optional(),
  similarityThreshold: z.number().min(0).max(1).optional(),
});

/** Compile-time: each schema's type and its interface are the same shape, both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const shapes: [
  Same<z.infer<typeof KeyChangeSchema>, KeyChange>,
  Same<z.infer<typeof LineHunkSchema>, LineHunk>,
  Same<z.infer<typeof MimeChangeSchema>, MimeChange>,
  Same<z.infer<typeof OutputDiffSchema>, OutputDiff>,
  Same<z.infer<typeof CellDiffSchema>, CellDiff>,
  Same<z.infer<typeof NotebookLevelDiffSchema>, NotebookLevelDiff>,
  Same<z.infer<typeof NotebookDiffSchema>, NotebookDiff>,
  Same<z.infer<typeof NotebookDiffOptionsSchema>, Omit<NotebookDiffOptions, 'exactNumberText'>>,
] = [true, true, true, true, true, true, true, true];
void shapes;
