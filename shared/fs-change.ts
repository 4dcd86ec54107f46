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

/** The paths a change is about: both ends of a move, every file of a batch, else its one path. */
export function changedPaths(change: FsChange): string[] {
  if (change.type === 'createdFiles') return createdPaths(change);
  return change.type === 'moved' ? [change.from, change.to] : [change.path];
}

export type FsCreatedFiles = Extract<FsChange, { type: 'createdFiles' }>;

/** The paths of a batch's new files. */
export function createdPaths(change: FsCreatedFiles): string[] {
  return change.names.map((name) => (change.dir ? `${change.dir}/${name}` : name));
}

/** A change as single-path changes: a batch as one `created` per file, any other change as itself. */
export function singleChanges(change: FsChange): FsChange[] {
  if (change.type !== 'createdFiles') return [change];
  return createdPaths(change).map((path) => ({ type: 'created', path, isDir: false, origin: change.origin }));
}

/** True when the change concerns `path` (the entry itself or a folder holding it). */
export function changeTouches(change: FsChange, path: string): boolean {
  return changedPaths(change).some((p) => isWithin(path, p) && p !== '');
}

/**
 * Re-keys a path-keyed map in place after `from` moved to `to`; returns what moved, as
 * [old path, new path, value], so an owner can update the values that carry their path.
 */
export function rekeyAfterMove<V>(entries: Map<string, V>, from: string, to: string): [string, string, V][] {
  const moved: [string, string, V][] = [];
  for (const [path, value] of entries) {
    const next = pathAfterMove(path, from, to);
    if (next !== null) moved.push([path, next, value]);
  }
  for (const [path] of moved) entries.delete(path);
  for (const [, next, value] of moved) entries.set(next, value);
  return moved;
}
