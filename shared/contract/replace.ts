import { z } from 'zod';
import { request } from './define';
import { SearchMatch, SearchQuery } from './search';
import { RelPath } from './workspace';

export const ReplaceFileOutcome = z.object({
  path: RelPath,
  /**
   * written: the file on disk (local history keeps what it held); model: an open notebook with unsaved changes took
   * the replacement in its model, left unsaved; refused: nothing changed, `message` says why.
   */
  status: z.enum(['written', 'model', 'refused']),
  replaced: z.number().int(),
  message: z.string().optional(),
});
export type ReplaceFileOutcome = z.infer<typeof ReplaceFileOutcome>;

export const replaceRequests = {
  /**
   * Replace in Files: replaces the matches a search reported, each only where it still is (the line as previewed,
   * the query matching there); a file whose matches moved since the search is refused whole, never written over.
   */
  'search.replace': request(
    z.object({
      query: SearchQuery,
      replacement: z.string().max(100_000),
      files: z
        .array(z.object({ path: RelPath, matches: z.array(SearchMatch).min(1).max(100_000) }))
        .min(1)
        .max(20_000),
    }),
    z.object({ replaceId: z.string(), files: z.array(ReplaceFileOutcome) }),
  ),
  /** Puts back what a replace wrote, file by file, where the file still holds what the replace wrote. */
  'search.undoReplace': request(
    z.object({ replaceId: z.string().min(1).max(100) }),
    z.object({ files: z.array(ReplaceFileOutcome) }),
  ),
} as const;
