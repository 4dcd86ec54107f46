// Edit assistant channels: one session per file, whose model can only propose the file's next content.
import { z } from 'zod';
import { WireErrorSchema } from '../errors';
import { MODELS_SNIPPET, ModelAliasInfo } from './config';
import { request } from './define';
import { NotebookCell } from './notebook';
import { RunState, SessionKind, TranscriptEntryBase } from './runs';
import { RelPath } from './workspace';

/** What the empty edit panel shows, verbatim, when `file_editing.model` is not configured. */
export const FILE_EDITING_SNIPPET = `${MODELS_SNIPPET}
file_editing:
  model: smart-generalist
  system_prompt:    # optional
    - config:/prompts/files.md
# Both files hot-reload: this config and
# the prompt files it names.
`;

/** The one line under the snippet in the empty state. */
export const FILE_EDITING_SCOPE_HINT =
  'Heavier, multi-file work belongs in a full agent session: the edit assistant sees one file, because of context limits.';

/**
 * pending: the latest proposal, awaiting Accept/Reject. superseded: an older proposal the agent
 * replaced with a newer one before the operator decided (still viewable and acceptable).
 */
export const ProposalStatus = z.enum(['pending', 'accepted', 'rejected', 'superseded']);
export type ProposalStatus = z.infer<typeof ProposalStatus>;

/**
 * One line of the transcript. A proposal is a chip (counts + status), never the file's text:
 * fetch the content with `editAssistant.getProposal`.
 */
export const TranscriptEntry = z.discriminatedUnion('type', [
  TranscriptEntryBase.extend({ type: z.literal('user'), text: z.string() }),
  TranscriptEntryBase.extend({
    type: z.literal('assistant'),
    text: z.string(),
    /** True while text is still arriving (`editAssistant.delta` events append to it). */
    streaming: z.boolean(),
  }),
  TranscriptEntryBase.extend({
    type: z.literal('proposal'),
    proposalId: z.string(),
    linesAdded: z.number().int(),
    linesRemoved: z.number().int(),
    status: ProposalStatus,
  }),
  TranscriptEntryBase.extend({
    type: z.literal('marker'),
    /**
     * changed-on-disk: the file changed behind the session; its disk content is the new baseline.
     * accepted / rejected: the operator's decision on a proposal. stopped: the operator pressed Stop.
     */
    marker: z.enum(['changed-on-disk', 'accepted', 'rejected', 'stopped']),
    text: z.string(),
    proposalId: z.string().optional(),
  }),
  TranscriptEntryBase.extend({
    type: z.literal('error'),
    /** E_MODEL (server unreachable, bad key, unknown model, malformed tool call, cut stream), E_NOT_FOUND, ... */
    code: WireErrorSchema.shape.code,
    message: z.string(),
  }),
]);
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;

/** A notebook proposal's decision on one cell change (by the change id of the notebook diff). */
export const CellDecision = z.enum(['accepted', 'rejected']);
export type CellDecision = z.infer<typeof CellDecision>;

export const ProposalSummary = z.object({
  id: z.string(),
  linesAdded: z.number().int(),
  linesRemoved: z.number().int(),
  status: ProposalStatus,
  createdAt: z.number(),
  /**
   * Set for a notebook proposal (reviewed cell by cell in the notebook diff of baselineContent ↔ content): what
   * was decided per change id. It is accepted once every change is decided and one was accepted; rejected when none was.
   */
  cells: z
    .object({
      decided: z.record(z.string(), CellDecision),
      /** Made against the open notebook's unsaved edits: accepted into the open notebook, not the file. */
      open: z.boolean().optional(),
    })
    .optional(),
});
export type ProposalSummary = z.infer<typeof ProposalSummary>;

export const SessionWarning = z.object({
  /** large-file: over 256 KB, confirmed by the operator; this belongs in a full session. */
  code: z.enum(['large-file']),
  message: z.string(),
});
export type SessionWarning = z.infer<typeof SessionWarning>;

/** Everything the panel needs to render a session (contents of proposals come from getProposal). */
export const SessionSnapshot = z.object({
  path: RelPath,
  kind: SessionKind,
  transcript: z.array(TranscriptEntry),
  /** Hash of the baseline: the disk content when the session opened, then the last accepted or externally changed content. */
  baselineHash: z.string(),
  /** The proposal the centre diff shows (the newest one), or null. */
  latestProposalId: z.string().nullable(),
  proposals: z.array(ProposalSummary),
  /** The model alias runs use: the session override, else `file_editing.model`; null = not configured. */
  model: z.string().nullable(),
  modelOverride: z.string().nullable(),
  runState: RunState,
  warnings: z.array(SessionWarning),
});
export type SessionSnapshot = z.infer<typeof SessionSnapshot>;

export const RunOutcome = z.object({
  runId: z.string(),
  status: z.enum(['completed', 'stopped', 'error']),
  /** The proposal this run produced, if any. */
  proposalId: z.string().nullable(),
  error: WireErrorSchema.optional(),
});
export type RunOutcome = z.infer<typeof RunOutcome>;

/** A proposal in full with what it diffs against (its baseline content and that content's hash). */
export const ProposalContent = ProposalSummary.extend({
  content: z.string(),
  baselineContent: z.string(),
  baselineHash: z.string(),
});
export type ProposalContent = z.infer<typeof ProposalContent>;

/**
 * One edit of an open notebook that accepting a proposal made against its unsaved edits asks the renderer to make
 * (one step of the notebook's undo each): put a cell in place of `replaceId`, or insert it at `index` when null;
 * or delete a cell.
 */
export const OpenNotebookCellEdit = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('put'),
    cell: NotebookCell,
    replaceId: z.string().nullable(),
    index: z.number().int(),
    /** The cell `replaceId` is taken out and `cell` put at `index` (of the list without it): a move, one step. */
    move: z.boolean().optional(),
  }),
  z.object({ kind: z.literal('delete'), cellId: z.string() }),
]);
export type OpenNotebookCellEdit = z.infer<typeof OpenNotebookCellEdit>;

/** Size above which opening or running a session needs `confirmLarge: true` (else E_TOO_LARGE). */
export const LARGE_FILE_BYTES = 256 * 1024;

const PathArgs = z.object({ path: RelPath });

export const editAssistantRequests = {
  /**
   * Opens (or resumes) the edit session of a file. Files over LARGE_FILE_BYTES are refused with
   * E_TOO_LARGE (details { size, limit }) unless `confirmLarge` is true; binary files with E_BAD_REQUEST.
   */
  'editAssistant.openSession': request(PathArgs.extend({ confirmLarge: z.boolean().default(false) }), SessionSnapshot),

  /**
   * Sends a message and runs the model; resolves when the run ends (streaming arrives as events
   * meanwhile). Refusals are thrown: E_BUSY (a run is already going on this file: edit sessions
   * never queue), E_NO_MODEL (file_editing not configured / unknown override alias), E_TOO_LARGE.
   * Model failures do not throw: they end the run with status 'error' and an error transcript entry.
   * `modelOverride` (an alias from config) becomes the session's model override.
   */
  'editAssistant.send': request(
    PathArgs.extend({
      text: z.string().min(1),
      modelOverride: z.string().optional(),
      confirmLarge: z.boolean().default(false),
    }),
    RunOutcome,
  ),

  /** Aborts the running run of the session, if any. */
  'editAssistant.stop': request(PathArgs, z.object({ stopped: z.boolean() })),

  /** The full text of a proposal plus the content it was made (or last reviewed) against: what Accept writes over. */
  'editAssistant.getProposal': request(PathArgs.extend({ proposalId: z.string() }), ProposalContent),

  /**
   * After a refused Accept: binds the proposal to the file as it is on disk now and returns that diff
   * (today's disk ↔ proposal), so the operator can still accept, knowingly. E_NOT_FOUND if the file is gone.
   */
  'editAssistant.reviewAgainstDisk': request(PathArgs.extend({ proposalId: z.string() }), ProposalContent),

  /**
   * Writes the proposal to disk (the only path by which an edit session changes a file) and makes
   * it the baseline, only if the disk still holds exactly the content the proposal was reviewed
   * against; otherwise E_CHANGED_ON_DISK with details { path, diskHash (null if deleted), baselineHash }
   * and the proposal stays pending. A proposal is decided once: accepting a rejected or accepted one
   * is E_BAD_REQUEST.
   */
  'editAssistant.accept': request(
    PathArgs.extend({ proposalId: z.string() }),
    z.object({ path: RelPath, hash: z.string(), snapshot: SessionSnapshot }),
  ),

  /**
   * A notebook proposal, cell by cell: writes the base with every change accepted so far (and `accept`) applied
   * (byte-exact, as Jupyter writes it), only over what the last write left (else E_CHANGED_ON_DISK, and nothing is
   * decided); `reject` is recorded. Decided once: a change already decided is E_BAD_REQUEST. Not a notebook
   * proposal: E_BAD_REQUEST. `hash` is the file's after the call.
   * A proposal made against the open notebook's unsaved edits (`cells.open`) is accepted into the open notebook:
   * main writes nothing, checks the open notebook's cells are still what the proposal last left them (else
   * E_CHANGED_ON_DISK, nothing decided) and returns `cellEdits` for the renderer to make there, in order;
   * `hash` is then that of the open notebook's bytes after them.
   */
  'editAssistant.decideCells': request(
    PathArgs.extend({ proposalId: z.string(), accept: z.array(z.string()), reject: z.array(z.string()) }),
    z.object({
      path: RelPath,
      hash: z.string(),
      snapshot: SessionSnapshot,
      cellEdits: z.array(OpenNotebookCellEdit).optional(),
    }),
  ),

  /** Marks the proposal rejected (decided once: E_BAD_REQUEST if already decided); the agent hears at its next turn. */
  'editAssistant.reject': request(PathArgs.extend({ proposalId: z.string() }), SessionSnapshot),

  /** Deletes the session for good (memory and disk); the next open starts cold. Stops a running run. */
  'editAssistant.clear': request(PathArgs, z.object({ cleared: z.boolean() })),

  /** Sets or clears (null) the session's model override. Unknown alias: E_NO_MODEL. */
  'editAssistant.setModel': request(PathArgs.extend({ model: z.string().nullable() }), SessionSnapshot),

  /** The configured model aliases and the default for file editing. */
  'editAssistant.models': request(
    z.object({}),
    z.object({ models: z.array(ModelAliasInfo), fileEditingDefault: z.string().nullable() }),
  ),
} as const;

export const editAssistantEvents = {
  /** Streaming text appended to a transcript entry (an assistant entry with streaming: true). */
  'editAssistant.delta': z.object({ path: RelPath, entryId: z.string(), text: z.string() }),
  /** A transcript entry was added or replaced (upsert by entry.id). */
  'editAssistant.transcript': z.object({ path: RelPath, entry: TranscriptEntry }),
  /**
   * A proposal was created or changed status. A new one carries its two texts, so the panel shows its diff
   * at once instead of asking getProposal for what main has just sent it.
   */
  'editAssistant.proposal': z.object({
    path: RelPath,
    proposal: ProposalSummary,
    texts: z.object({ content: z.string(), baselineContent: z.string() }).optional(),
  }),
  /** The session started or ended a run. `error` is set with state 'error' (the last run failed). */
  'editAssistant.runState': z.object({ path: RelPath, state: RunState, error: WireErrorSchema.optional() }),
  /** The baseline, model or session itself changed (e.g. accepted, changed on disk, cleared: snapshot null). */
  'editAssistant.session': z.object({ path: RelPath, snapshot: SessionSnapshot.nullable() }),
} as const;
