import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

export const QuickOpenMatch = z.object({
  path: RelPath,
  /** Indexes into `path` of the matched characters, for highlighting. */
  positions: z.array(z.number().int().min(0)),
  /** Opened recently; these come first. */
  recent: z.boolean(),
});
export type QuickOpenMatch = z.infer<typeof QuickOpenMatch>;

export const QuickOpenResult = z.object({
  matches: z.array(QuickOpenMatch),
  /** How many files matched before the limit. */
  total: z.number().int(),
  /** The first scan is still running; `quickOpen.indexed` tells when it finishes. */
  indexing: z.boolean(),
});
export type QuickOpenResult = z.infer<typeof QuickOpenResult>;

export const quickOpenRequests = {
  'quickOpen.search': request(
    z.object({
      query: z.string().max(1024),
      /** The operator's recently opened files, most recent first. */
      recent: z.array(RelPath).max(500).default([]),
      limit: z.number().int().min(1).max(1000).default(100),
    }),
    QuickOpenResult,
  ),
} as const;

export const quickOpenEvents = {
  'quickOpen.indexed': z.object({ files: z.number().int() }),
} as const;
