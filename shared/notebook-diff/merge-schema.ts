import { z } from 'zod';
import type {
  CellConflictItem,
  MergeCellText,
  MergedCellItem,
  NotebookKeyConflict,
  NotebookMerge,
  NotebookMergeItem,
} from './merge-types';

/* The three-way merge as it crosses the contract (main computes it, the resolver shows it). */

const Index = z.number().int().min(0);

export const MergeResolutionSchema = z.enum(['ours', 'theirs', 'both']);

export const MergeCellTextSchema = z.object({
  index: Index,
  id: z.string().nullable(),
  cellType: z.string(),
  source: z.string(),
});

export const MergedCellItemSchema = z.object({
  kind: z.literal('cell'),
  origin: z.enum(['unchanged', 'ours', 'theirs', 'merged']),
  cellType: z.string(),
  source: z.string(),
  base: Index.nullable(),
  ours: Index.nullable(),
  theirs: Index.nullable(),
});

export const CellConflictItemSchema = z.object({
  kind: z.literal('conflict'),
  conflictId: z.string(),
  reason: z.enum(['both-modified', 'delete-modified', 'both-added']),
  parts: z.array(z.enum(['source', 'outputs', 'metadata', 'cellType', 'other'])),
  metadataKeys: z.array(z.string()),
  base: MergeCellTextSchema.nullable(),
  ours: z.array(MergeCellTextSchema),
  theirs: z.array(MergeCellTextSchema),
});

export const NotebookMergeItemSchema = z.discriminatedUnion('kind', [MergedCellItemSchema, CellConflictItemSchema]);

export const NotebookKeyConflictSchema = z.object({
  conflictId: z.string(),
  scope: z.enum(['metadata', 'field']),
  key: z.string(),
  base: z.unknown().optional(),
  ours: z.unknown().optional(),
  theirs: z.unknown().optional(),
});

export const NotebookMergeSchema = z.object({
  items: z.array(NotebookMergeItemSchema),
  notebookConflicts: z.array(NotebookKeyConflictSchema),
  conflictIds: z.array(z.string()),
});

/** Compile-time: each schema's type and its interface are the same shape, both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const shapes: [
  Same<z.infer<typeof MergeCellTextSchema>, MergeCellText>,
  Same<z.infer<typeof MergedCellItemSchema>, MergedCellItem>,
  Same<z.infer<typeof CellConflictItemSchema>, CellConflictItem>,
  Same<z.infer<typeof NotebookMergeItemSchema>, NotebookMergeItem>,
  Same<z.infer<typeof NotebookKeyConflictSchema>, NotebookKeyConflict>,
  Same<z.infer<typeof NotebookMergeSchema>, NotebookMerge>,
] = [true, true, true, true, true, true];
void shapes;
