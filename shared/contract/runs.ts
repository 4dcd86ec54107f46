// What every run of the one run engine shares, whichever assistant runs it.
import { z } from 'zod';

/** Session kinds of the one run engine: `edit` is the Edit assistant (one file), `workspace` the Agent. */
export const SessionKind = z.enum(['edit', 'workspace']);
export type SessionKind = z.infer<typeof SessionKind>;

export const RunState = z.enum(['idle', 'running', 'error']);
export type RunState = z.infer<typeof RunState>;

export const TranscriptEntryBase = z.object({
  /** Stable id; a transcript event with the same id replaces the entry (upsert). */
  id: z.string(),
  /** Epoch ms. */
  at: z.number(),
});
