import { UploadConflict } from '../../shared/contract';
import type { ErrorCode } from '../../shared/errors';

export type UploadRequest = { ok: true; path: string; conflict: UploadConflict } | { ok: false; message: string };

/**
 * Reads `PUT /upload?path=…&conflict=…`. The path is only checked for being there and plain text here: whether it
 * stays inside the workspace is the path guard's decision, made when the file is pinned.
 */
export function parseUploadRequest(method: string | undefined, url: URL): UploadRequest {
  if (method !== 'PUT') return { ok: false, message: 'Uploads are PUT requests' };
  const path = url.searchParams.get('path');
  if (!path || path.length > 4096) return { ok: false, message: 'An upload names its target with ?path=' };
  const conflict = UploadConflict.safeParse(url.searchParams.get('conflict') ?? 'reject');
  if (!conflict.success) return { ok: false, message: 'conflict= is reject or overwrite' };
  return { ok: true, path, conflict: conflict.data };
}

/** The HTTP status an upload's failure answers with; the body carries the contract's error as well. */
export function uploadStatusOf(code: ErrorCode | undefined): number {
  switch (code) {
    case 'E_BAD_REQUEST':
      return 400;
    case 'E_OUTSIDE_WORKSPACE':
    case 'E_PERMISSION':
      return 403;
    case 'E_NOT_FOUND':
      return 404;
    case 'E_EXISTS':
    case 'E_IS_A_DIRECTORY':
    case 'E_NOT_A_DIRECTORY':
    case 'E_NOT_REGULAR_FILE':
      return 409;
    case 'E_CANCELLED':
      return 499;
    default:
      return 500;
  }
}
