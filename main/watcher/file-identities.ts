import path from 'node:path';

/** How many files' identities are kept at most (the most recently seen ones). */
const MAX_KNOWN = 10_000;

/**
 * A file's identity: its inode, and its birth time where the file system keeps one, so that a new file given the
 * inode of one just deleted is not taken for it.
 */
export function fileIdentity(info: { dev: number; ino: number; birthtimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.birthtimeMs}`;
}

/**
 * Tells another program's rename of a file from a delete and a create. The watcher sees a name gone and a name
 * new; with the old name's identity known, the new name carrying it is that file moved. Identities are known only
 * for the files an owner of state keeps (breakpoints), followed through their moves and replacements (an atomic
 * save gives a file a new inode); nothing is looked at for this alone (no stat per file of the workspace), and any
 * other file's rename stays deleted + created, as an open tab's "deleted on disk" expects.
 */
export class FileMoves {
  private readonly identityByPath = new Map<string, string>();
  private readonly pathByIdentity = new Map<string, string>();
  /** Known files gone in the current drain, by identity: one that turns up under a new name was moved. */
  private readonly vanished = new Map<string, string>();

  /** `absPath` is the file with this identity (see fileIdentity) now. */
  remember(absPath: string, identity: string): void {
    this.forget(absPath);
    const previous = this.pathByIdentity.get(identity);
    if (previous !== undefined) this.identityByPath.delete(previous);
    this.identityByPath.set(absPath, identity);
    this.pathByIdentity.set(identity, absPath);
    if (this.identityByPath.size > MAX_KNOWN) this.forget(this.identityByPath.keys().next().value!);
  }

  /** A file is gone: true when its identity is known, and it is held until the drain ends (it may reappear). */
  vanish(absPath: string): boolean {
    const identity = this.identityByPath.get(absPath);
    this.forget(absPath);
    if (identity !== undefined) this.vanished.set(identity, absPath);
    return identity !== undefined;
  }

  /** A file is at `absPath`: where it was, when it is a known file gone in this drain under another name. */
  arrived(absPath: string, identity: string, isNewName: boolean): string | undefined {
    const from = isNewName ? this.vanished.get(identity) : undefined;
    if (from !== undefined) this.vanished.delete(identity);
    // A kept file replaced in place (an atomic save) is kept under its new identity.
    if (from !== undefined || this.identityByPath.has(absPath)) this.remember(absPath, identity);
    return from;
  }

  /** The drain ended: the files gone in it that turned up nowhere (deleted). */
  takeUnmatched(): string[] {
    const gone = [...this.vanished.values()];
    this.vanished.clear();
    return gone;
  }

  /** A folder moved from `oldTop` to `newTop`: the files known under it are known at their new paths (returned). */
  moveTree(oldTop: string, newTop: string): Array<[from: string, to: string]> {
    const prefix = oldTop + path.sep;
    const moved: Array<[string, string]> = [];
    for (const [file, identity] of [...this.identityByPath]) {
      if (!file.startsWith(prefix)) continue;
      moved.push([file, newTop + file.slice(oldTop.length)]);
      this.remember(newTop + file.slice(oldTop.length), identity);
    }
    return moved;
  }

  private forget(absPath: string): void {
    const identity = this.identityByPath.get(absPath);
    if (identity === undefined) return;
    this.identityByPath.delete(absPath);
    this.pathByIdentity.delete(identity);
  }
}
