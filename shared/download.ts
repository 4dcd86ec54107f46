/** The web host's download route: `GET /download?path=<workspace-relative path>` (main/download serves it). */
export const DOWNLOAD_ROUTE = '/download';

/** The URL a workspace entry downloads from (the token travels in the cookie, never here). */
export function downloadUrl(origin: string, rel: string): string {
  return `${origin}${DOWNLOAD_ROUTE}?path=${encodeURIComponent(rel)}`;
}
