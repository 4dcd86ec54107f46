// Config and agent channels (issue 5: the edit panel; issue 6 adds the `workspace` session kind).
import { z } from 'zod';
import { WireErrorSchema } from '../errors';
import { request } from './define';
import { RelPath } from './workspace';

// ---------------------------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------------------------

const MODELS_SNIPPET = `models:
  smart-generalist:
    provider: openai-compatible
    base_url: http://127.0.0.1:11434/v1
    model: qwen2.5-coder:7b
`;

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

export const ModelProvider = z.enum(['openai-compatible', 'anthropic', 'openai']);
export type ModelProvider = z.infer<typeof ModelProvider>;

/** Where a block came from: the project's `.kiln/config.yaml` or the user-level config. */
export const ConfigSource = z.enum(['project', 'user']);
export type ConfigSource = z.infer<typeof ConfigSource>;

/** One problem in a config file, located for the UI ("file:line: message"). */
export const ConfigIssue = z.object({
  /** Display path: `.kiln/config.yaml` (workspace-relative) or the user config's absolute path. */
  file: z.string(),
  /** 1-based; absent when the problem has no position (e.g. the file is unreadable). */
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  /** YAML path of the offending key, e.g. `file_editing.model`; '' for the whole file. */
  key: z.string(),
  message: z.string(),
  /** E_CONFIG, or E_OUTSIDE_WORKSPACE for a `config:` reference escaping its folder. */
  code: z.enum(['E_CONFIG', 'E_OUTSIDE_WORKSPACE']),
});
export type ConfigIssue = z.infer<typeof ConfigIssue>;

export const ModelAliasInfo = z.object({
  alias: z.string(),
  provider: ModelProvider,
  model: z.string(),
  baseUrl: z.string().nullable(),
  source: ConfigSource,
});
export type ModelAliasInfo = z.infer<typeof ModelAliasInfo>;

const BlockState = z.object({
  /** True when the block names a model: its presence is the enable flag, there is no default model. */
  enabled: z.boolean(),
  /** The model alias the block names, or null. */
  model: z.string().nullable(),
  source: ConfigSource.nullable(),
  /** The `config:/...` references making up the operator's system prompt, in order. */
  systemPromptRefs: z.array(z.string()),
});

/** The config as the UI needs it. Keys are never included, only the env var names that hold them. */
export const ConfigState = z.object({
  fileEditing: BlockState,
  /** The `agent:` block (workspace sessions, issue 6); `tools` null means all verbs. */
  agent: BlockState.extend({ tools: z.array(z.string()).nullable() }),
  models: z.array(ModelAliasInfo),
  /**
   * The first problem of the latest load, or null when the config is valid. While it is set, the
   * last valid config keeps running (or none, if there never was one).
   */
  error: ConfigIssue.nullable(),
  /** Every problem of the latest load (error is issues[0]). */
  issues: z.array(ConfigIssue),
  /** Workspace-relative path of the project config. */
  projectConfigPath: z.string(),
  /** Absolute path of the user-level config, if one is configured. */
  userConfigPath: z.string().nullable(),
});
export type ConfigState = z.infer<typeof ConfigState>;

// ---------------------------------------------------------------------------------------------
// Agent: edit sessions
// ---------------------------------------------------------------------------------------------

/** Session kinds of the one run engine. `edit` = the single-file edit panel; `workspace` = issue 6. */
export const SessionKind = z.enum(['edit', 'workspace']);
export type SessionKind = z.infer<typeof SessionKind>;

/**
 * pending: the latest proposal, awaiting Accept/Reject. superseded: an older proposal the agent
 * replaced with a newer one before the operator decided (still viewable and acceptable).
 */
export const ProposalStatus = z.enum(['pending', 'accepted', 'rejected', 'superseded']);
export type ProposalStatus = z.infer<typeof ProposalStatus>;

export const RunState = z.enum(['idle', 'running', 'error']);
export type RunState = z.infer<typeof RunState>;

const EntryBase = z.object({
  /** Stable id; `agent.transcript` events with the same id replace the entry (upsert). */
  id: z.string(),
  /** Epoch ms. */
  at: z.number(),
});

/**
 * One line of the transcript. A proposal is a chip (counts + status), never the file's text:
 * fetch the content with `agent.getProposal`.
 */
export const TranscriptEntry = z.discriminatedUnion('type', [
  EntryBase.extend({ type: z.literal('user'), text: z.string() }),
  EntryBase.extend({
    type: z.literal('assistant'),
    text: z.string(),
    /** True while text is still arriving (`agent.delta` events append to it). */
    streaming: z.boolean(),
  }),
  EntryBase.extend({
    type: z.literal('proposal'),
    proposalId: z.string(),
    linesAdded: z.number().int(),
    linesRemoved: z.number().int(),
    status: ProposalStatus,
  }),
  EntryBase.extend({
    type: z.literal('marker'),
    /**
     * changed-on-disk: the file changed behind the session; its disk content is the new baseline.
     * accepted / rejected: the operator's decision on a proposal. stopped: the operator pressed Stop.
     */
    marker: z.enum(['changed-on-disk', 'accepted', 'rejected', 'stopped']),
    text: z.string(),
    proposalId: z.string().optional(),
  }),
  EntryBase.extend({
    type: z.literal('error'),
    /** E_MODEL (server unreachable, bad key, unknown model, malformed tool call, cut stream), E_NOT_FOUND, ... */
    code: WireErrorSchema.shape.code,
    message: z.string(),
  }),
]);
export type TranscriptEntry = z.infer<typeof TranscriptEntry>;

export const ProposalSummary = z.object({
  id: z.string(),
  linesAdded: z.number().int(),
  linesRemoved: z.number().int(),
  status: ProposalStatus,
  createdAt: z.number(),
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
export const ProposalContent = ProposalSummary.extend({ content: z.string(), baselineContent: z.string(), baselineHash: z.string() });
export type ProposalContent = z.infer<typeof ProposalContent>;

/** Size above which opening or running a session needs `confirmLarge: true` (else E_TOO_LARGE). */
export const LARGE_FILE_BYTES = 256 * 1024;

const PathArgs = z.object({ path: RelPath });

export const agentRequests = {
  /** Config state for the UI (enabled, model alias, error with file/line). */
  'config.get': request(z.object({}), ConfigState),

  /**
   * Opens (or resumes) the edit session of a file. Files over LARGE_FILE_BYTES are refused with
   * E_TOO_LARGE (details { size, limit }) unless `confirmLarge` is true; binary files with E_BAD_REQUEST.
   */
  'agent.openSession': request(PathArgs.extend({ confirmLarge: z.boolean().default(false) }), SessionSnapshot),

  /**
   * Sends a message and runs the model; resolves when the run ends (streaming arrives as events
   * meanwhile). Refusals are thrown: E_BUSY (a run is already going on this file: edit sessions
   * never queue), E_NO_MODEL (file_editing not configured / unknown override alias), E_TOO_LARGE.
   * Model failures do not throw: they end the run with status 'error' and an error transcript entry.
   * `modelOverride` (an alias from config) becomes the session's model override.
   */
  'agent.send': request(
    PathArgs.extend({
      text: z.string().min(1),
      modelOverride: z.string().optional(),
      confirmLarge: z.boolean().default(false),
    }),
    RunOutcome,
  ),

  /** Aborts the running run of the session, if any. */
  'agent.stop': request(PathArgs, z.object({ stopped: z.boolean() })),

  /** The full text of a proposal plus the content it was made (or last reviewed) against: what Accept writes over. */
  'agent.getProposal': request(PathArgs.extend({ proposalId: z.string() }), ProposalContent),

  /**
   * After a refused Accept: binds the proposal to the file as it is on disk now and returns that diff
   * (today's disk ↔ proposal), so the operator can still accept, knowingly. E_NOT_FOUND if the file is gone.
   */
  'agent.reviewAgainstDisk': request(PathArgs.extend({ proposalId: z.string() }), ProposalContent),

  /**
   * Writes the proposal to disk (the only path by which an edit session changes a file) and makes
   * it the baseline, only if the disk still holds exactly the content the proposal was reviewed
   * against; otherwise E_CHANGED_ON_DISK with details { path, diskHash (null if deleted), baselineHash }
   * and the proposal stays pending. A proposal is decided once: accepting a rejected or accepted one
   * is E_BAD_REQUEST.
   */
  'agent.accept': request(
    PathArgs.extend({ proposalId: z.string() }),
    z.object({ path: RelPath, hash: z.string(), snapshot: SessionSnapshot }),
  ),

  /** Marks the proposal rejected (decided once: E_BAD_REQUEST if already decided); the agent hears at its next turn. */
  'agent.reject': request(PathArgs.extend({ proposalId: z.string() }), SessionSnapshot),

  /** Deletes the session for good (memory and disk); the next open starts cold. Stops a running run. */
  'agent.clear': request(PathArgs, z.object({ cleared: z.boolean() })),

  /** Sets or clears (null) the session's model override. Unknown alias: E_NO_MODEL. */
  'agent.setModel': request(PathArgs.extend({ model: z.string().nullable() }), SessionSnapshot),

  /** The configured model aliases and the default for file editing. */
  'agent.models': request(
    z.object({}),
    z.object({ models: z.array(ModelAliasInfo), fileEditingDefault: z.string().nullable() }),
  ),
} as const;

export const agentEvents = {
  /** The config was (re)loaded: same shape as `config.get`. */
  'config.changed': ConfigState,
  /** Streaming text appended to a transcript entry (an assistant entry with streaming: true). */
  'agent.delta': z.object({ path: RelPath, entryId: z.string(), text: z.string() }),
  /** A transcript entry was added or replaced (upsert by entry.id). */
  'agent.transcript': z.object({ path: RelPath, entry: TranscriptEntry }),
  /** A proposal was created or changed status. */
  'agent.proposal': z.object({ path: RelPath, proposal: ProposalSummary }),
  /** The session started or ended a run. `error` is set with state 'error' (the last run failed). */
  'agent.runState': z.object({ path: RelPath, state: RunState, error: WireErrorSchema.optional() }),
  /** The baseline, model or session itself changed (e.g. accepted, changed on disk, cleared: snapshot null). */
  'agent.session': z.object({ path: RelPath, snapshot: SessionSnapshot.nullable() }),
} as const;

// ---------------------------------------------------------------------------------------------
// Agent: the workspace session (issue 6, session kind `workspace`). One session per workspace;
// its channels take no path. The edit panel's channels above are unchanged.
// ---------------------------------------------------------------------------------------------

/** What the empty Agent panel shows when the `agent:` block is not configured. */
export const WORKSPACE_AGENT_SNIPPET = `${MODELS_SNIPPET}
agent:
  model: smart-generalist
  # tools: [write-file, run-file, ...]
`;

/** One argument of a tool call as the transcript shows it: long text is cut to a short preview. */
export const ToolArgPreview = z.object({
  name: z.string(),
  value: z.string(),
  /** Characters left out of `value` (0 when shown whole). */
  omitted: z.number().int(),
});
export type ToolArgPreview = z.infer<typeof ToolArgPreview>;

/**
 * One line of the workspace session's transcript. A tool call is a compact chip (verb, target,
 * result summary); file bodies never appear, only short previews.
 */
export const AgentSessionEntry = z.discriminatedUnion('type', [
  EntryBase.extend({ type: z.literal('user'), text: z.string(), /** Waiting behind a running run. */ queued: z.boolean() }),
  EntryBase.extend({ type: z.literal('assistant'), text: z.string(), streaming: z.boolean() }),
  EntryBase.extend({
    type: z.literal('tool'),
    toolCallId: z.string(),
    /** The verb (tool name) the model called. */
    verb: z.string(),
    /** The path or notebook it acted on (for execute-code: its scripts/ step, once known), or null. */
    target: z.string().nullable(),
    status: z.enum(['running', 'ok', 'error']),
    /** One short line: "312 bytes", "exit 0", "1 replacement · 340 bytes", or the error. */
    summary: z.string(),
    args: z.array(ToolArgPreview),
    /** A short preview of the result (stdout/stderr head, cell outputs), '' for none. */
    resultPreview: z.string(),
  }),
  EntryBase.extend({
    type: z.literal('marker'),
    /** stopped: the operator pressed Stop; cancelled: a queued message dropped by Stop. */
    marker: z.enum(['stopped', 'cancelled']),
    text: z.string(),
  }),
  EntryBase.extend({ type: z.literal('error'), code: WireErrorSchema.shape.code, message: z.string() }),
]);
export type AgentSessionEntry = z.infer<typeof AgentSessionEntry>;

/** A tool chip's visible label and accessible name: "write-file src/loaders.py · 312 bytes". */
export function toolChipLabel(chip: { verb: string; target: string | null; summary: string }): string {
  return [chip.verb, chip.target].filter(Boolean).join(' ') + (chip.summary ? ` · ${chip.summary}` : '');
}

export const AgentSessionSnapshot = z.object({
  kind: z.literal('workspace'),
  /** False when the config has no `agent:` block: the panel shows its empty state. */
  enabled: z.boolean(),
  /** The `agent.model` alias, or null. */
  model: z.string().nullable(),
  /** The verbs the model is offered (the allowlist applied). */
  tools: z.array(z.string()),
  transcript: z.array(AgentSessionEntry),
  runState: RunState,
  /** Messages waiting behind the running one. */
  queued: z.number().int(),
});
export type AgentSessionSnapshot = z.infer<typeof AgentSessionSnapshot>;

export const AgentSessionOutcome = z.object({
  runId: z.string(),
  /** stopped: Stop aborted the run, or dropped it from the queue before it ran. */
  status: z.enum(['completed', 'stopped', 'error']),
  error: WireErrorSchema.optional(),
});
export type AgentSessionOutcome = z.infer<typeof AgentSessionOutcome>;

export const agentSessionRequests = {
  /** The workspace session (resumed from disk if there is one). */
  'agentSession.open': request(z.object({}), AgentSessionSnapshot),
  /**
   * Sends a message. A second send while a run is going is queued, not refused; the request
   * resolves when this message's run ends. Refusal: E_NO_MODEL (no `agent:` block).
   * Model failures end the run with status 'error' and an error transcript entry.
   */
  'agentSession.send': request(z.object({ text: z.string().min(1) }), AgentSessionOutcome),
  /** Aborts the running run (killing a running run-file / execute-code) and drops queued messages. */
  'agentSession.stop': request(z.object({}), z.object({ stopped: z.boolean() })),
  /** Deletes the session (memory and disk); the next message starts cold. Stops any run. */
  'agentSession.clear': request(z.object({}), z.object({ cleared: z.boolean() })),
} as const;

export const agentSessionEvents = {
  /** Streaming text appended to an assistant entry. */
  'agentSession.delta': z.object({ entryId: z.string(), text: z.string() }),
  /** A transcript entry was added or replaced (upsert by entry.id): tool chips update in place. */
  'agentSession.transcript': z.object({ entry: AgentSessionEntry }),
  /** Run state and queue length changed. `error` is set with state 'error'. */
  'agentSession.runState': z.object({ state: RunState, queued: z.number().int(), error: WireErrorSchema.optional() }),
  /** The session was replaced wholesale (cleared: a fresh empty snapshot) or the config changed what it offers. */
  'agentSession.session': z.object({ snapshot: AgentSessionSnapshot }),
} as const;
