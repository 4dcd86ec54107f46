// Agent channels: one session per workspace, acting through the verbs. Its channels take no path.
import { z } from 'zod';
import { WireErrorSchema } from '../errors';
import { MODELS_SNIPPET } from './config';
import { request } from './define';
import { RunState, TranscriptEntryBase } from './runs';

/** What the empty Agent panel shows when the `agent:` block is not configured. */
export const AGENT_SNIPPET = `${MODELS_SNIPPET}
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
export const AgentEntry = z.discriminatedUnion('type', [
  TranscriptEntryBase.extend({
    type: z.literal('user'),
    text: z.string(),
    /** Waiting behind a running run. */ queued: z.boolean(),
    /** The run this message started: the turn's checkpoint in local history (its undo). */
    turn: z.string().optional(),
  }),
  TranscriptEntryBase.extend({ type: z.literal('assistant'), text: z.string(), streaming: z.boolean() }),
  TranscriptEntryBase.extend({
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
  TranscriptEntryBase.extend({
    type: z.literal('marker'),
    /** stopped: the operator pressed Stop; cancelled: a queued message dropped by Stop. */
    marker: z.enum(['stopped', 'cancelled']),
    text: z.string(),
  }),
  TranscriptEntryBase.extend({ type: z.literal('error'), code: WireErrorSchema.shape.code, message: z.string() }),
]);
export type AgentEntry = z.infer<typeof AgentEntry>;

/** A tool chip's visible label and accessible name: "write-file src/loaders.py · 312 bytes". */
export function toolChipLabel(chip: { verb: string; target: string | null; summary: string }): string {
  return [chip.verb, chip.target].filter(Boolean).join(' ') + (chip.summary ? ` · ${chip.summary}` : '');
}

export const AgentSnapshot = z.object({
  kind: z.literal('workspace'),
  /** False when the config has no `agent:` block: the panel shows its empty state. */
  enabled: z.boolean(),
  /** The `agent.model` alias, or null. */
  model: z.string().nullable(),
  /** The verbs the model is offered (the allowlist applied). */
  tools: z.array(z.string()),
  transcript: z.array(AgentEntry),
  runState: RunState,
  /** Messages waiting behind the running one. */
  queued: z.number().int(),
});
export type AgentSnapshot = z.infer<typeof AgentSnapshot>;

export const AgentOutcome = z.object({
  runId: z.string(),
  /** stopped: Stop aborted the run, or dropped it from the queue before it ran. */
  status: z.enum(['completed', 'stopped', 'error']),
  error: WireErrorSchema.optional(),
});
export type AgentOutcome = z.infer<typeof AgentOutcome>;

export const agentRequests = {
  /** The workspace session (resumed from disk if there is one). */
  'agent.open': request(z.object({}), AgentSnapshot),
  /**
   * Sends a message. A second send while a run is going is queued, not refused; the request
   * resolves when this message's run ends. Refusal: E_NO_MODEL (no `agent:` block).
   * Model failures end the run with status 'error' and an error transcript entry.
   */
  'agent.send': request(z.object({ text: z.string().min(1) }), AgentOutcome),
  /** Aborts the running run (killing a running run-file / execute-code) and drops queued messages. */
  'agent.stop': request(z.object({}), z.object({ stopped: z.boolean() })),
  /** Deletes the session (memory and disk); the next message starts cold. Stops any run. */
  'agent.clear': request(z.object({}), z.object({ cleared: z.boolean() })),
} as const;

export const agentEvents = {
  /** Streaming text appended to an assistant entry. */
  'agent.delta': z.object({ entryId: z.string(), text: z.string() }),
  /** A transcript entry was added or replaced (upsert by entry.id): tool chips update in place. */
  'agent.transcript': z.object({ entry: AgentEntry }),
  /** Run state and queue length changed. `error` is set with state 'error'. */
  'agent.runState': z.object({ state: RunState, queued: z.number().int(), error: WireErrorSchema.optional() }),
  /** The session was replaced wholesale (cleared: a fresh empty snapshot) or the config changed what it offers. */
  'agent.session': z.object({ snapshot: AgentSnapshot }),
} as const;
