import path from 'node:path';

/** A workspace path that stays inside it (no `..` out, not absolute, no NUL). */
export function staysInside(rel: string): boolean {
  const normal = path.posix.normalize(rel);
  return !path.posix.isAbsolute(rel) && normal !== '..' && !normal.startsWith('../') && !rel.includes('\0');
}

/** A Python file's workspace path; one that would leave the workspace is none. */
export function isPython(rel: string): boolean {
  return staysInside(rel) && /\.pyi?$/i.test(rel);
}
