/**
 * The web host's download route: `GET /download?path=<workspace-relative path>&ticket=<ticket>` (main/download
 * serves it). The ticket comes from `download.ticket`, names that one path and works once; the token never
 * appears in a download URL.
 */
export const DOWNLOAD_ROUTE = '/download';

/** A download's URL relative to the host's origin. */
export function downloadPath(rel: string, ticket: string): string {
  return `${DOWNLOAD_ROUTE}?path=${encodeURIComponent(rel)}&ticket=${encodeURIComponent(ticket)}`;
}
