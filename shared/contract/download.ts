import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/*
 * Downloads from the web host are plain browser navigations (a link, a DownloadURL drag), which carry no header:
 * each one takes a single-use ticket the page asks for here. A ticket is random, names one path, expires within a
 * minute and works once. The desktop app saves files itself and refuses this channel.
 */
export const downloadRequests = {
  /** `url` is relative to the host's origin: `/download?path=…&ticket=…`. */
  'download.ticket': request(z.object({ path: RelPath }), z.object({ url: z.string() })),
} as const;
