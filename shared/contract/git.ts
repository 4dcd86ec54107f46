import { z } from 'zod';
import { MergeResolutionSchema, NotebookMergeSchema } from '../notebook-diff/merge-schema';
import { request } from './define';
import { RelPath, WriteResult } from './workspace';

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

/** A conflicted notebook's three-way merge, from git's index stages (1 base, 2 ours, 3 theirs). */
export const NotebookMergeResult = z.object({
  path: RelPath,
  /** The conflicted file's hash when read: a save writes only over that content. */
  fileHash: z.string(),
  /** Names the three versions merged (their blob ids): a save is refused once git's versions are others. */
  versions: z.string(),
  /** No stage 1: both sides added the file; what they have in common stands for the base. */
  addedOnBothSides: z.boolean(),
  merge: NotebookMergeSchema,
});
export type NotebookMergeResult = z.infer<typeof NotebookMergeResult>;

/** A file and its version at git's HEAD, for "Open Changes". */
export const GitOpenChanges = z.object({
  path: RelPath,
  /** The text at HEAD; null when HEAD has no such file (new, or no commit yet). */
  head: z.string().nullable(),
  /** The working file's text; null when it is gone or not text. */
  working: z.string().nullable(),
  /** The working file's hash; null when it is gone or the texts were not asked for. */
  workingHash: z.string().nullable(),
  /** Whether HEAD has the file (as text or not), said even when the texts were not asked for. */
  inHead: z.boolean(),
});
export type GitOpenChanges = z.infer<typeof GitOpenChanges>;

export const gitRequests = {
  'git.status': request(z.object({}), GitStatus),
  /**
   * The three-way merge of a notebook git left in conflict. E_NOT_FOUND when git holds no conflict for it (or
   * without git or a repository), E_UNTRUSTED in an untrusted folder, E_BAD_REQUEST when one side deleted it,
   * E_INVALID_NOTEBOOK when a version is not a notebook.
   */
  'git.notebookMerge': request(z.object({ path: RelPath }), NotebookMergeResult),
  /**
   * Writes the resolved notebook (one resolution per conflict id) through the workspace, as Jupyter writes it;
   * never stages it. E_CHANGED_ON_DISK when the file moved on from `fileHash`, E_BAD_REQUEST when git's versions
   * moved on from `versions` or a resolution is missing or unknown.
   */
  'git.saveNotebookMerge': request(
    z.object({
      path: RelPath,
      fileHash: z.string(),
      versions: z.string(),
      resolutions: z.record(z.string(), MergeResolutionSchema),
    }),
    WriteResult,
  ),
  /** `git add` of one file, when the operator says so; a notebook still holding conflict markers: E_NOTEBOOK_CONFLICT. */
  'git.stage': request(z.object({ path: RelPath }), GitStatus),
  /** The working file and its version at HEAD (both texts), for a diff of "Open Changes". */
  'git.openChanges': request(
    z.object({
      path: RelPath,
      /**
       * false: head, working and workingHash come back null and neither file is read (a notebook's compare reads
       * them in main).
       */
      texts: z.boolean().default(true),
    }),
    GitOpenChanges,
  ),
} as const;

export const gitEvents = {
  /** After each refresh (a change in the workspace, a commit, a checkout) whose result differs. */
  'git.changed': GitStatus,
} as const;
