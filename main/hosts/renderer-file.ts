import path from 'node:path';

/**
 * The built renderer's file for a URL path, or null when the path is malformed or leads outside
 * the renderer folder. Both hosts serve the renderer through this one check.
 */
export function rendererFile(rendererDir: string, urlPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath === '/' ? '/index.html' : urlPath);
  } catch {
    return null;
  }
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, `.${rel}`);
  return file.startsWith(root + path.sep) ? file : null;
}
