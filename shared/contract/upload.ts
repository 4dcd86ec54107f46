import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/*
 * Files from the operator's desktop into the workspace ("Into Kiln").
 *
 * Web host: each file is one streamed HTTP PUT to UPLOAD_ENDPOINT (`Authorization: Bearer <token>`, Host and Origin checks as for
 * every request, the path guard on the target). A PUT body streams from the browser's File straight into a
 * private temp file, with TCP back-pressure bounding the host's memory; the same bytes over the WebSocket would
 * be base64 in JSON frames (a third larger, parsed whole per frame, and one socket shared with every other
 * request). Measured on the same machine: 1 GB through the endpoint took 11 s (`bench/upload.ts`, 1.9x `cp`),
 * while 512 MB as 4 MiB base64 JSON frames over a WebSocket, acknowledged one by one, took 33 s: six times slower.
 *
 * Electron: the page has the dropped files' real paths (`webUtils.getPathForFile` in the preload), and main copies
 * them with the workspace's own copy (`upload.copyIn`). The web host refuses that channel: there the paths would
 * name the host's files, not the operator's.
 */

/** The HTTP endpoint of the web host's uploads: `PUT /upload?path=<RelPath>&conflict=<UploadConflict>`. */
export const UPLOAD_ENDPOINT = '/upload';
/** `reject` answers 409 (E_EXISTS) when something is there; `overwrite` replaces a file. */
export const UploadConflict = z.enum(['reject', 'overwrite']);
export type UploadConflict = z.infer<typeof UploadConflict>;

/** What a PUT answers, as JSON in the contract's envelope (`{ ok: true, value }` or `{ ok: false, error }`). */
export const UploadResult = z.object({ path: RelPath, size: z.number() });
export type UploadResult = z.infer<typeof UploadResult>;

/** What to do when an entry of that name is already in the target folder. */
export const CopyInConflict = z.enum(['reject', 'overwrite', 'keepBoth']);
export type CopyInConflict = z.infer<typeof CopyInConflict>;

export const uploadRequests = {
  /** Electron only: copies (or moves) one entry from an absolute path outside into a workspace folder. */
  'upload.copyIn': request(
    z.object({
      source: z.string().min(1).max(4096),
      toDir: RelPath,
      onConflict: CopyInConflict.default('reject'),
      /** The platform's move modifier was held: move instead of copy (a rename when on the same device). */
      move: z.boolean().default(false),
      jobId: z.string().optional(),
    }),
    z.object({ path: RelPath }),
  ),
} as const;
