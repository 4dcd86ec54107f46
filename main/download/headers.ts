import path from 'node:path';

export { DOWNLOAD_ROUTE } from '../../shared/download';

/**
 * RFC 6266 `attachment` with an ASCII fallback `filename` and the exact name as RFC 8187 `filename*`, so
 * browsers save it under its real name (non-ASCII included) and never render it in the page.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_') || 'download';
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** Common types by extension; a download is never rendered, but the type lets the OS pick the right app. */
const TYPES: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.tsv': 'text/tab-separated-values; charset=utf-8',
  '.py': 'text/x-python; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.json': 'application/json',
  '.ipynb': 'application/x-ipynb+json',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.parquet': 'application/vnd.apache.parquet',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(name: string): string {
  return TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** The headers every download carries besides its type and disposition: never sniffed, cached or run. */
export const DOWNLOAD_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  // Stricter than the page's policy (nothing runs), and no more frameable than it.
  'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
} as const;
