import { z } from 'zod';
import { request } from './define';

/*
 * Kiln's own log (main/log): JSON lines in the data folder. "Open Log" shows its newest part read-only; the log
 * never holds secrets or file contents (main redacts them before writing).
 */
export const logRequests = {
  /** The newest part of the log (whole lines, at most about 1 MB); `path` is where the file is, for the operator. */
  'log.read': request(
    z.object({}),
    z.object({ path: z.string(), text: z.string(), truncated: z.boolean(), size: z.number() }),
  ),
} as const;
