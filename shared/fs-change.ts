import type { FsChange } from './contract';

/** True when `path` is `dir` itself or lies inside it ('' is the root and holds everything). */
export function isWithin(path: string, dir: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/**
 * Where `path` lives after `from` moved to `to`: the new path when the move carried it (the entry itself
 * or anything inside a moved folder), else null. Every owner of path-keyed state re-keys through this.
 */
export function pathAfterMove(path: string, from: string, to: string): string | null {
  if (from === '' || !isWithin(path, from)) return null;
  return to + path.slice(from.length);
}

/** The paths a change is about: both ends of a move, else its one path. */
export function changedPaths(change: FsChange): string[] {
  return change.type === 'moved' ? [change.from, change.to] : [change.path];
}

/** True when the change concerns `path` (the entry itself or a folder holding it). */
export function changeTouches(change: FsChange, path: string): boolean {
  return changedPaths(change).some((p) => isWithin(path, p) && p !== '');
}
