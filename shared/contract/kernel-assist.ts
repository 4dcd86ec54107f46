import { z } from 'zod';
import { request } from './define';
import { MimeBundle } from './notebook';
import { RelPath } from './workspace';

/*
 * The live kernel helping to write code: completion (complete_request) and inspection (inspect_request)
 * of a notebook's kernel. Offsets are JavaScript string offsets (UTF-16) into `code`; main converts them
 * to the protocol's code points. These requests never start a kernel and never fail for a busy, dead or
 * restarting one: they answer with a status the editor shows (or ignores) instead.
 */

/** Why the kernel gave no answer: it is running something (past the bound), has none / is dead or restarting, or a newer request replaced this one. */
export const AssistMiss = z.object({ status: z.enum(['busy', 'unavailable', 'cancelled']) });
export type AssistMiss = z.infer<typeof AssistMiss>;

/** One entry of IPython's `_jupyter_types_experimental`: a match with its kind ('function', 'module', ...). */
export const CompletionType = z.object({
  text: z.string(),
  type: z.string().nullable(),
  start: z.number().int(),
  end: z.number().int(),
  signature: z.string().optional(),
});
export type CompletionType = z.infer<typeof CompletionType>;

export const CompleteResult = z.union([
  z.object({
    status: z.literal('ok'),
    matches: z.array(z.string()),
    /** The range of `code` the matches replace (UTF-16 offsets). */
    cursorStart: z.number().int(),
    cursorEnd: z.number().int(),
    /** Kinds per match, where the kernel sends them (offsets converted like cursorStart). */
    types: z.array(CompletionType),
  }),
  AssistMiss,
]);
export type CompleteResult = z.infer<typeof CompleteResult>;

export const InspectResult = z.union([
  z.object({
    status: z.literal('ok'),
    found: z.boolean(),
    /** The kernel's bundle: text/plain (with ANSI colours), often text/markdown or text/html too. */
    data: MimeBundle,
  }),
  AssistMiss,
]);
export type InspectResult = z.infer<typeof InspectResult>;

export const kernelAssistRequests = {
  /**
   * The kernel's completions at `cursor` in `code` (the cell's text up to the cursor, as JupyterLab sends it).
   * Sent only when the kernel's shell is free: while a cell runs the request waits, at most 1.5 s, then answers
   * 'busy' (so it does when the kernel takes over 5 s to answer); it never queues behind the running cell. A newer request of the same
   * notebook replaces a waiting one ('cancelled'), as does notebook.cancelAssist.
   */
  'notebook.complete': request(
    z.object({ path: RelPath, code: z.string(), cursor: z.number().int().min(0), requestId: z.number().int() }),
    CompleteResult,
  ),
  /** The kernel's inspection (docstring, signature) of the name at `cursor`; detail 1 adds the source, as `obj??`. Same bound as completion. */
  'notebook.inspect': request(
    z.object({
      path: RelPath,
      code: z.string(),
      cursor: z.number().int().min(0),
      detailLevel: z.union([z.literal(0), z.literal(1)]).default(0),
      requestId: z.number().int(),
    }),
    InspectResult,
  ),
  /** The cursor moved on: the request `requestId` of this notebook answers 'cancelled' if it was not sent to the kernel yet. */
  'notebook.cancelAssist': request(
    z.object({ path: RelPath, requestId: z.number().int() }),
    z.object({ cancelled: z.boolean() }),
  ),
} as const;
