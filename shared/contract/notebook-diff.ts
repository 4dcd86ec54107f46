import { z } from 'zod';
import { NotebookDiffOptionsSchema, NotebookDiffSchema } from '../notebook-diff/schema';
import { request } from './define';
import { JsonObject, MimeBundle, NotebookOutput } from './notebook';
import { RelPath } from './workspace';

/*
 * The cell-level diff of two notebooks, computed in main (which parses notebooks exactly, numbers as written)
 * and drawn by the renderer's NotebookDiffView. Used wherever a notebook is compared: the Timeline, the
 * changed-on-disk compare, and later the Edit assistant's and the Agent's reviews.
 */

/** One side of a comparison: notebook text, or the notebook at a path as the operator sees it now. */
export const NotebookDiffSide = z.union([
  z.object({ text: z.string().max(256 * 1024 * 1024) }),
  /** The open notebook with its unsaved edits when it has some, else the file on disk. */
  z.object({ path: RelPath }),
  /** The file on disk, whatever the open notebook holds (the changed-on-disk compare). */
  z.object({ file: RelPath }),
  /**
   * The file at git HEAD, read by main (an empty notebook when HEAD has none): a 20 MB notebook's HEAD text
   * need not cross the socket to the page and back.
   */
  z.object({ head: RelPath }),
]);
export type NotebookDiffSide = z.infer<typeof NotebookDiffSide>;

/**
 * A cell as the view draws it. Sources of every cell come along (unchanged runs expand to them), but outputs
 * only where the diff says they changed, or the cell was added or deleted: a 20 MB notebook's unchanged plots
 * would otherwise cross the bridge twice to be drawn nowhere. `outputsSent` says which.
 */
export const NotebookDiffCell = z.object({
  /** The cell's id in its notebook; null for a cell without one (nbformat 4.4). */
  id: z.string().nullable(),
  cell_type: z.string(),
  source: z.string(),
  metadata: JsonObject,
  outputs: z.array(NotebookOutput),
  outputsSent: z.boolean(),
  execution_count: z.number().int().nullable(),
  attachments: z.record(z.string(), MimeBundle).optional(),
  /** As NotebookCell's: number literals a plain number would print otherwise, so a restored cell keeps them. */
  exactNumbers: z.record(z.string(), z.string()).optional(),
});
export type NotebookDiffCell = z.infer<typeof NotebookDiffCell>;

export const NotebookDiffResult = z.object({
  diff: NotebookDiffSchema,
  /** The old notebook's cells and the new one's, indexed by the diff's oldIndex / newIndex. */
  base: z.array(NotebookDiffCell),
  next: z.array(NotebookDiffCell),
  /** Whether each side is an open notebook's unsaved state (a `path` side whose notebook has unsaved edits). */
  unsaved: z.object({ base: z.boolean(), next: z.boolean() }),
});
export type NotebookDiffResult = z.infer<typeof NotebookDiffResult>;

export const notebookDiffRequests = {
  /** Diffs two notebooks cell by cell. E_INVALID_NOTEBOOK (saying which side) when either is not a notebook. */
  'notebook.diff': request(
    z.object({ base: NotebookDiffSide, next: NotebookDiffSide, options: NotebookDiffOptionsSchema.optional() }),
    NotebookDiffResult,
  ),
} as const;
