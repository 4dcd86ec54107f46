/** Workspace-relative POSIX path helpers; '' is the root. */
import { isWithin } from '../../../shared/fs-change';

export { isWithin };
export { joinPath, nameOf, parentOf } from '../../../shared/paths';

/** Drops paths that sit inside another path of the list (moving a folder moves its contents). */
export function topMost(paths: string[]): string[] {
  return paths.filter((p) => !paths.some((other) => other !== p && isWithin(p, other)));
}

/** The range a rename should select: the stem, leaving the extension alone (dotfiles: everything). */
export function stemRange(name: string, isDir: boolean): [number, number] {
  const dot = name.lastIndexOf('.');
  return !isDir && dot > 0 ? [0, dot] : [0, name.length];
}
