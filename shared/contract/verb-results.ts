import { z } from 'zod';
import { CellRunResult } from './notebook';
import { RelPath } from './workspace';

// The results of the verbs that run code or change a notebook: their own module, so the chips that summarize them
// (verb-chips.ts) and the verb table that uses both (verbs.ts) each import it, not each other.

/**
 * What a run did to the workspace. `staged`: the code wrote into an overlay and Kiln applied it afterwards, so local
 * history keeps every version it replaced and "Undo this turn" covers it; otherwise the code wrote to disk
 * directly and undo cannot restore what it wrote (`direct_reason` says why).
 */
export const RunChanges = z.object({
  staged: z.boolean(),
  created: z.array(RelPath),
  changed: z.array(RelPath),
  deleted: z.array(RelPath),
  /** Entries changed outside while the run went on: left as they were (a file the run wrote too is `beside`). */
  kept: z.array(z.object({ path: RelPath, why: z.string(), beside: RelPath.optional() })),
  /** Writes under a protected path (.kiln/, .git/, scripts/, Kiln's data): not applied, each with why. */
  refused: z.array(z.object({ path: RelPath, why: z.string() })).optional(),
  direct_reason: z.string().optional(),
});
export type RunChanges = z.infer<typeof RunChanges>;

/** What run-file and execute-code report. A run that hits its time limit has timed_out set and a note at the end of stderr. */
export const VerbRunResult = z.object({
  stdout: z.string(),
  stderr: z.string(),
  /** The process's exit code; negative signal number when it was killed (as Python's subprocess reports it). */
  returncode: z.number().int(),
  duration_ms: z.number(),
  /** True when the time limit killed the process and everything it started. */
  timed_out: z.boolean(),
  /** False only where no sandbox can be had and the trusted workspace ran the code as a plain process. */
  sandboxed: z.boolean(),
  /** The limits it ran with: "default" (60 s) or "heavy", the training profile (600 s). */
  profile: z.enum(['default', 'heavy']),
  /** The limit that ended (or refused part of) the run, if one did. */
  limit: z.enum(['time', 'memory', 'processes']).optional(),
  /** One line saying which limit and what to do (also appended to stderr). */
  limit_message: z.string().optional(),
  /** The audit-log entry written for this run (scripts/step_NNN_....py). */
  script: RelPath,
  /** What the run wrote to the workspace. */
  files: RunChanges.optional(),
});
export type VerbRunResult = z.infer<typeof VerbRunResult>;

/**
 * Whether a notebook verb's change reached disk. An open notebook with the operator's unsaved edits gets
 * the change in the live model they see, and it is written when they save (`saved: false`, with the reason).
 */
export const NotebookSaved = {
  saved: z.boolean().describe('True when the change was written to the notebook file'),
  not_saved_reason: z.string().optional().describe('Why the change is not on disk yet'),
};
export type NotebookSaved = { saved: boolean; not_saved_reason?: string };

/** What running a notebook cell reports to an agent: the notebook's own run result, its outputs compacted (images summarized, long text trimmed). */
export const VerbCellRunResult = CellRunResult.extend({
  ...NotebookSaved,
  /** Always false: the notebook's kernel is the operator's own process, not a sandbox (execute-code is sandboxed). */
  sandboxed: z.boolean(),
});
export type VerbCellRunResult = z.infer<typeof VerbCellRunResult>;
