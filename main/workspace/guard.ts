import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { KilnError } from '../../shared/errors';

/**
 * The one path guard. Every workspace-relative path that crosses the contract is resolved here;
 * anything that could land outside the root is refused with E_OUTSIDE_WORKSPACE.
 */
export class PathGuard {
  /** @param root absolute, already realpath'd workspace root */
  constructor(readonly root: string) {}

  /** Lexical resolution: refuses NUL, absolute paths and `..` that climbs above the root. */
  resolveLexically(rel: string): string {
    if (typeof rel !== 'string') throw outside(String(rel), 'not a string');
    if (rel.includes('\0')) throw outside(rel, 'contains a NUL byte');
    const unified = rel.replace(/\\/g, '/');
    if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified)) throw outside(rel, 'absolute paths are not accepted');
    const segments: string[] = [];
    for (const segment of unified.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (segments.length === 0) throw outside(rel, 'it climbs above the workspace root');
        segments.pop();
        continue;
      }
      segments.push(segment);
    }
    return segments.length ? path.join(this.root, ...segments) : this.root;
  }

  /**
   * Full resolution: lexical, then the deepest existing ancestor (or the path itself) is realpath'd so a
   * symlink pointing outside is refused, also when the path is about to be created.
   */
  async resolve(rel: string): Promise<string> {
    const abs = this.resolveLexically(rel);
    let probe = abs;
    for (;;) {
      try {
        const real = await realpath(probe);
        if (!this.contains(real)) throw outside(rel, 'a symbolic link leads outside the workspace');
        return abs;
      } catch (err) {
        if (err instanceof KilnError) throw err;
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
        if (probe === this.root) return abs;
        probe = path.dirname(probe);
      }
    }
  }

  contains(absReal: string): boolean {
    return absReal === this.root || absReal.startsWith(this.root.endsWith(path.sep) ? this.root : this.root + path.sep);
  }

  relative(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join('/');
  }
}

function outside(rel: string, why: string): KilnError {
  return new KilnError('E_OUTSIDE_WORKSPACE', `Path "${rel.replace(/\0/g, '\\0')}" is outside the workspace: ${why}`);
}
