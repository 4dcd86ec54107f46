import path from 'node:path';
import type { GitFileState } from '../../shared/contract';

export interface ParsedStatus {
  branch: string | null;
  /** HEAD's commit id; null before the first commit. */
  head: string | null;
  /** Workspace-relative path → state; folders (untracked or ignored as a whole) without a trailing slash. */
  files: Record<string, GitFileState>;
}

/**
 * Reads `git status --porcelain=v2 -z --branch --ignored`. Paths come relative to the repository's top
 * folder; only those inside the workspace are kept, made relative to it.
 */
export function parsePorcelainV2(output: string, repoTop: string, workspaceRoot: string): ParsedStatus {
  const files: Record<string, GitFileState> = {};
  let head: string | null = null;
  let oid: string | null = null;
  const prefix = path.relative(repoTop, workspaceRoot).split(path.sep).join('/');
  const toWorkspace = (repoPath: string): string | null => {
    const clean = repoPath.endsWith('/') ? repoPath.slice(0, -1) : repoPath;
    if (!prefix) return clean;
    if (clean === prefix) return '';
    return clean.startsWith(`${prefix}/`) ? clean.slice(prefix.length + 1) : null;
  };
  const records = output.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (!record) continue;
    let repoPath: string;
    let state: GitFileState;
    switch (record[0]) {
      case '#': {
        if (record.startsWith('# branch.head ')) head = record.slice(14);
        else if (record.startsWith('# branch.oid ')) oid = record.slice(13);
        continue;
      }
      case '1': {
        // 1 XY sub mH mI mW hH hI path
        repoPath = fieldsAfter(record, 8);
        state = stateOf(record.slice(2, 4));
        break;
      }
      case '2': {
        // 2 XY sub mH mI mW hH hI Xscore path, then the original path as the next record
        repoPath = fieldsAfter(record, 9);
        state = 'renamed';
        i++;
        break;
      }
      case 'u':
        repoPath = fieldsAfter(record, 10);
        state = 'conflicted';
        break;
      case '?':
        repoPath = record.slice(2);
        state = 'untracked';
        break;
      case '!':
        repoPath = record.slice(2);
        state = 'ignored';
        break;
      default:
        continue;
    }
    const rel = toWorkspace(repoPath);
    if (rel) files[rel] = state;
  }
  const branch = head && head !== '(detached)' ? head : oid && oid !== '(initial)' ? oid.slice(0, 8) : head;
  return { branch, head: oid && oid !== '(initial)' ? oid : null, files };
}

/** The record's text after its first `n` space-separated fields (a path may itself hold spaces). */
function fieldsAfter(record: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}

function stateOf(xy: string): GitFileState {
  const [index, tree] = xy;
  if (index === 'D' || tree === 'D') return 'deleted';
  if (index === 'A') return 'added';
  if (index === 'R' || index === 'C') return 'renamed';
  return 'modified';
}
