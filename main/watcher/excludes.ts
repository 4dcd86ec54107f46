import { isKilnTempName } from '../workspace';

/** What the watcher leaves alone unless `.kiln/config.yaml` says otherwise (VS Code's defaults). */
export const DEFAULT_WATCH_EXCLUDES: readonly string[] = ['.git', 'node_modules', '__pycache__', '.ipynb_checkpoints'];

/**
 * Matches workspace-relative POSIX paths against exclude patterns. A pattern without '/' matches any
 * entry of that name at any depth (`node_modules`, `*.parquet`); one with '/' matches from the root
 * (`data/raw`, `runs/**`). `*` stays within a name, `**` crosses folders, `?` is one character.
 */
export class ExcludeMatcher {
  /** Plain names (the usual case) are one set lookup; only wildcards cost a regex. */
  private readonly names = new Set<string>();
  private readonly byName: RegExp[] = [];
  private readonly paths = new Set<string>();
  private readonly byPath: RegExp[] = [];

  constructor(patterns: readonly string[]) {
    for (const raw of patterns) {
      const pattern = raw.replace(/^\.?\/+/, '').replace(/\/+$/, '');
      if (!pattern) continue;
      const literal = !/[*?]/.test(pattern);
      if (pattern.includes('/')) {
        if (literal) this.paths.add(pattern);
        else this.byPath.push(globToRegExp(pattern));
      } else if (literal) this.names.add(pattern);
      else this.byName.push(globToRegExp(pattern));
    }
  }

  /** Whether a workspace-relative path or one of its folders is excluded (string work only, no path module). */
  excludesPath(relPath: string): boolean {
    let prefix = '';
    for (const segment of relPath.split('/')) {
      if (!segment) continue;
      prefix = prefix ? `${prefix}/${segment}` : segment;
      if (this.excludes(prefix, segment)) return true;
    }
    return false;
  }

  /** `rel` is the entry's workspace-relative path; `name` its last segment. */
  excludes(rel: string, name: string): boolean {
    if (this.names.has(name) || this.paths.has(rel)) return true;
    // Kiln's own temp files never surface, whatever the config says.
    if (name.startsWith('.kiln-') && isKilnTempName(name)) return true;
    for (const re of this.byName) if (re.test(name)) return true;
    for (const re of this.byPath) if (re.test(rel)) return true;
    return false;
  }
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `a/**/b` also matches `a/b`.
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
