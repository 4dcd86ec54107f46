/** What the watcher leaves alone unless `.kiln/config.yaml` says otherwise (VS Code's defaults). */
export const DEFAULT_WATCH_EXCLUDES: readonly string[] = ['.git', 'node_modules', '__pycache__', '.ipynb_checkpoints'];

/** Kiln's own atomic-write temp files never surface, whatever the config says. */
const KILN_TEMP = /^\.kiln-(?:trash-)?(?:\d+-)?[0-9a-f]+\.tmp$/;

/**
 * Matches workspace-relative POSIX paths against exclude patterns. A pattern without '/' matches any
 * entry of that name at any depth (`node_modules`, `*.parquet`); one with '/' matches from the root
 * (`data/raw`, `runs/**`). `*` stays within a name, `**` crosses folders, `?` is one character.
 */
export class ExcludeMatcher {
  private readonly byName: RegExp[] = [];
  private readonly byPath: RegExp[] = [];

  constructor(patterns: readonly string[]) {
    for (const raw of patterns) {
      const pattern = raw.replace(/^\.?\/+/, '').replace(/\/+$/, '');
      if (!pattern) continue;
      (pattern.includes('/') ? this.byPath : this.byName).push(globToRegExp(pattern));
    }
  }

  /** `rel` is the entry's workspace-relative path; `name` its last segment. */
  excludes(rel: string, name: string): boolean {
    if (KILN_TEMP.test(name)) return true;
    return this.byName.some((re) => re.test(name)) || this.byPath.some((re) => re.test(rel));
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
