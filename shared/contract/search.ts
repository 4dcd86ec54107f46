import { z } from 'zod';
import { WireErrorSchema } from '../errors';
import { request } from './define';
import { RelPath } from './workspace';

export const SearchQuery = z.object({
  pattern: z.string().min(1).max(2000),
  isRegex: z.boolean().default(false),
  matchCase: z.boolean().default(false),
  wholeWord: z.boolean().default(false),
  /** Comma-separated globs ("src/**, *.py"); empty means everything. */
  include: z.string().max(2000).default(''),
  /** Comma-separated globs to leave out, on top of what is never searched (.git, node_modules…). */
  exclude: z.string().max(2000).default(''),
});
export type SearchQuery = z.input<typeof SearchQuery>;

export const SearchMatch = z.object({
  /** 1-based line number. */
  line: z.number().int().min(1),
  /** The match within the full line, as UTF-16 offsets (what the editor selects). */
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  /** The line, cut around the match when long. */
  preview: z.string(),
  /** Where `preview` starts within the line. */
  previewStart: z.number().int().min(0),
  /** In a notebook: the cell (0-based index, and id when the file has ids); `line` is then the line in its source. */
  cell: z.object({ index: z.number().int().min(0), id: z.string().optional() }).optional(),
});
export type SearchMatch = z.infer<typeof SearchMatch>;

export const SearchFileResult = z.object({ path: RelPath, matches: z.array(SearchMatch) });
export type SearchFileResult = z.infer<typeof SearchFileResult>;

/**
 * A file's matches as `search.results` carries them: columns instead of an object per match (a frequent
 * pattern's 28,672 match objects were most of the event's JSON work on both sides). Match i is
 * `numbers[4i..4i+3]` (line, start, end, previewStart) with `previews[i]`, and `cells[i]` when it is in a
 * notebook's cell (`cells` only when some match is).
 * shared/search-results.ts packs and unpacks it.
 */
export const PackedSearchFile = z.object({
  path: RelPath,
  numbers: z.array(z.number().int().min(0)),
  previews: z.array(z.string()),
  cells: z.array(z.object({ index: z.number().int().min(0), id: z.string().optional() }).nullable()).optional(),
});
export type PackedSearchFile = z.infer<typeof PackedSearchFile>;

export const SearchEngine = z.enum(['ripgrep', 'node']);
export type SearchEngine = z.infer<typeof SearchEngine>;

export const searchRequests = {
  /** Starts a search whose results stream as `search.results`; any search still running is cancelled. */
  'search.start': request(
    SearchQuery.extend({
      searchId: z.string().min(1).max(100),
      /** Stop after this many matches (the rest would not help anyone). */
      maxMatches: z.number().int().min(1).max(100_000).default(20_000),
    }),
    z.object({ searchId: z.string(), engine: SearchEngine }),
  ),
  'search.cancel': request(z.object({ searchId: z.string() }), z.object({ cancelled: z.boolean() })),
} as const;

export const searchEvents = {
  /** A batch of files with their matches (packed); a file appears in one batch only. */
  'search.results': z.object({ searchId: z.string(), files: z.array(PackedSearchFile) }),
  'search.done': z.object({
    searchId: z.string(),
    files: z.number().int(),
    matches: z.number().int(),
    cancelled: z.boolean(),
    /** Stopped at `maxMatches`. */
    limitHit: z.boolean(),
    error: WireErrorSchema.optional(),
  }),
} as const;
