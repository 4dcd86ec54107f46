import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/** What git says of a path, as VS Code marks it: M, A, D, R, U (untracked), ! (conflict), and greyed when ignored. */
export const GitFileState = z.enum(['modified', 'added', 'deleted', 'renamed', 'untracked', 'ignored', 'conflicted']);
export type GitFileState = z.infer<typeof GitFileState>;

export const GitStatus = z.object({
  /** A git repository (the workspace or a parent) and `git` on PATH; false means no decorations at all. */
  available: z.boolean(),
  /** The checked-out branch, or the short commit when detached; null without a repository. */
  branch: z.string().nullable(),
  /** HEAD's commit id; null without a repository or before the first commit. A commit moves it even when no file's state changes. */
  head: z.string().nullable(),
  /**
   * Workspace-relative path → state, for the paths git reports. An untracked or ignored folder stands for
   * everything inside it.
   */
  files: z.record(RelPath, GitFileState),
});
export type GitStatus = z.infer<typeof GitStatus>;

export const gitRequests = {
  'git.status': request(z.object({}), GitStatus),
} as const;

export const gitEvents = {
  /** After each refresh (a change in the workspace, a commit, a checkout) whose result differs. */
  'git.changed': GitStatus,
} as const;
