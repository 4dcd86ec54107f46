/** Workspace-relative POSIX path helpers (what the wire carries); '' is the root. */

/** The folder holding `path`: '' for an entry at the root. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The last segment of `path`. */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function joinPath(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

/** Whether a path is absolute (POSIX, a Windows drive or share), not workspace-relative: a library file's tab. */
export function isAbsolutePath(path: string): boolean {
  return /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path);
}
