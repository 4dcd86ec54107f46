/**
 * The workspace session (session kind `workspace`): a chat agent over the whole workspace that acts
 * through the verbs, on the shared run engine. One persisted session per workspace; runs are queued
 * one at a time; Stop aborts the running run (and with it a running run-file) and drops the queue.
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import {
  isVerbName,
  toolChipLabel,
  VERBS,
  type AgentEntry,
  type AgentOutcome,
  type AgentSnapshot,
  type EventPayload,
  type RunState,
} from '../../shared/contract';
import type { Event } from '../../shared/base/event';
import { KilnError, type WireError } from '../../shared/errors';
import { toWireError } from '../errors';
import { wireEmitter } from '../events';
import type { ModelConfig, ResolvedConfig } from '../config';
import type { Verbs } from '../verbs';
import { verbToolSet } from '../verbs';
import { RunEngine, createLanguageModel, selectTools, type EngineOutcome, type RunSlot } from '../models';
import { describeCall, describeError, describeResult, type ChipEnd } from './tool-chips';
import { workspaceHarnessPrompt } from './harness';
import { AgentRecordStore, type AgentRecord } from './session-store';
import { withWriteCause } from '../history';
import { createLogger } from '../log';

const log = createLogger('agent');

/** What the workspace session reads from the config; `ConfigService` provides it. */
export interface AgentConfigSource {
  current(): ResolvedConfig;
  model(alias: string): ModelConfig;
}

export interface AgentServiceOptions {
  /** The verbs the agent acts through (the same instance the MCP server and UI use). */
  verbs: Verbs;
  /** Absolute workspace root: the session is keyed by it in the shared data folder. */
  workspaceRoot: string;
  config: AgentConfigSource;
  /** The app's data folder; the session lives in `<dataDir>/agent-sessions/`. */
  dataDir: string;
  /** The shared run engine (the edit sessions use the same instance). */
  engine?: RunEngine;
  /** Builds the provider model; tests keep the default (real AI SDK providers). */
  createModel?: (config: ModelConfig) => LanguageModel;
  /**
   * Interrupts a notebook's kernel. Stop calls it for a notebook verb still running: those verbs do not
   * hear the abort signal, and the run would otherwise wait for the cell to finish.
   */
  interruptNotebook?: (notebook: string) => Promise<unknown>;
}

type ToolEntry = Extract<AgentEntry, { type: 'tool' }>;
type AssistantEntry = Extract<AgentEntry, { type: 'assistant' }>;
type UserEntry = Extract<AgentEntry, { type: 'user' }>;

interface LiveSession {
  record: AgentRecord;
  runState: RunState;
}

export class AgentService {
  private live: LiveSession | null = null;
  private loading: Promise<LiveSession> | null = null;
  private readonly store: AgentRecordStore;
  readonly engine: RunEngine;
  private readonly streamed = wireEmitter<'agent.delta'>();
  private readonly transcriptChanged = wireEmitter<'agent.transcript'>();
  private readonly runStateChanged = wireEmitter<'agent.runState'>();
  private readonly sessionReplaced = wireEmitter<'agent.session'>();
  /** Streaming text appended to an assistant entry of the current session. */
  readonly onDidStream: Event<EventPayload<'agent.delta'>> = this.streamed.event;
  /** A transcript entry was added or replaced (upsert by entry.id). */
  readonly onDidChangeTranscript: Event<EventPayload<'agent.transcript'>> = this.transcriptChanged.event;
  /** The run state or the queue's length changed. */
  readonly onDidChangeRunState: Event<EventPayload<'agent.runState'>> = this.runStateChanged.event;
  /** The session was replaced wholesale (cleared: a fresh empty snapshot). */
  readonly onDidReplaceSession: Event<EventPayload<'agent.session'>> = this.sessionReplaced.event;
  private readonly createModel: (config: ModelConfig) => LanguageModel;
  /** The engine's session key; prefixed so it never meets an edit session's file path. */
  private readonly key: string;
  /** Messages waiting for the run slot. */
  private pending = 0;
  /** Bumped by Stop and Clear: queued messages from an older epoch are dropped when their turn comes. */
  private epoch = 0;
  /** Chips of the running run, for Stop to find a notebook cell still executing. */
  private runningChips: Map<string, ToolEntry> | null = null;

  constructor(private readonly options: AgentServiceOptions) {
    this.store = new AgentRecordStore(options.dataDir, options.workspaceRoot);
    this.engine = options.engine ?? new RunEngine();
    this.createModel = options.createModel ?? ((config) => createLanguageModel(config));
    this.key = `workspace-session:${options.workspaceRoot}`;
  }

  /** The session, resumed from disk if there is one. */
  async open(): Promise<AgentSnapshot> {
    return this.snapshot(await this.ensure());
  }

  /** The verbs a run would offer the model now (the allowlist applied). */
  offeredTools(): string[] {
    return Object.keys(this.tools());
  }

  /**
   * Sends a message; resolves when its run ends. A send while a run is going waits its turn (queued),
   * it is not refused. Refused only when no `agent:` block is configured (E_NO_MODEL).
   */
  async send(text: string): Promise<AgentOutcome> {
    if (!this.options.config.current().agent) throw notEnabled();
    const live = await this.ensure();
    const runId = randomUUID();
    const epoch = this.epoch;
    const queued = this.pending > 0 || this.engine.isRunning(this.key);
    const user: UserEntry = { type: 'user', id: randomUUID(), at: Date.now(), text, queued, turn: runId };
    this.addEntry(live, user);
    void this.save(live);
    this.pending++;
    this.announceRunState(live, live.runState);

    // Waiting can end without a turn (Kiln shutting down): the message leaves the queue either way.
    const slot = await this.engine.acquire(this.key, 'workspace').finally(() => this.pending--);
    try {
      if (epoch !== this.epoch || !this.isCurrent(live)) {
        // Stopped or cleared while waiting: this message never runs.
        if (this.isCurrent(live)) {
          this.upsert(live, { ...user, queued: false });
          this.addEntry(live, {
            type: 'marker',
            id: randomUUID(),
            at: Date.now(),
            marker: 'cancelled',
            text: 'Not sent: stopped before its turn',
          });
          this.announceRunState(live, this.pending > 0 ? 'running' : 'idle');
          await this.save(live);
        }
        return { runId, status: 'stopped' };
      }
      if (user.queued) this.upsert(live, { ...user, queued: false });
      this.announceRunState(live, 'running');
      // Every write of the run is kept in local history as this turn's, so the turn can be undone.
      const outcome = await withWriteCause({ agentSession: 'agent', turn: runId }, () => this.run(live, slot, text));
      return await this.finish(live, runId, text, outcome);
    } finally {
      slot.dispose();
    }
  }

  /** Aborts the running run (a running run-file is killed through the verbs' signal) and drops queued messages. */
  stop(): boolean {
    const hadQueue = this.pending > 0;
    this.epoch++;
    const aborted = this.engine.stop(this.key);
    if (aborted) this.interruptRunningCells();
    return aborted || hadQueue;
  }

  /** Deletes the session entirely (memory and disk); the next message starts cold. */
  async clear(): Promise<boolean> {
    this.epoch++;
    if (this.engine.stop(this.key)) this.interruptRunningCells();
    const existed = this.live !== null || (await this.store.load()) !== null;
    const fresh = this.newSession();
    this.live = fresh;
    this.loading = null;
    await this.store.delete();
    this.sessionReplaced.fire({ snapshot: this.snapshot(fresh) });
    return existed;
  }

  async dispose(): Promise<void> {
    this.epoch++;
    this.engine.stop(this.key);
    // Let a stopped run record itself before the last save is flushed, but never hold up shutdown for long
    // (a notebook cell does not hear the abort signal; it finishes on its own).
    const settled = this.engine.whenIdle(this.key);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))]);
    clearTimeout(timer);
    await this.store.flush();
    for (const emitter of [this.streamed, this.transcriptChanged, this.runStateChanged, this.sessionReplaced])
      emitter.dispose();
  }

  // --- the run --------------------------------------------------------------------------------

  private async run(live: LiveSession, slot: RunSlot, text: string): Promise<RunResult> {
    const chips = new Map<string, ToolEntry>();
    this.runningChips = chips;
    let assistant: AssistantEntry | null = null;
    const closeAssistant = () => {
      if (!assistant) return;
      assistant.streaming = false;
      this.upsert(live, assistant);
      assistant = null;
    };
    const agent = this.options.config.current().agent;
    if (!agent) return { outcome: { status: 'error', text: '', toolCalls: [], error: notEnabled() }, chips };
    let outcome: EngineOutcome;
    try {
      const modelConfig = this.options.config.model(agent.model);
      const model = this.createModel(modelConfig);
      const configured = this.tools();
      outcome = await this.engine.stream(slot, {
        kind: 'workspace',
        model,
        target: { alias: agent.model, model: modelConfig.model, baseUrl: modelConfig.baseUrl },
        harnessPrompt: workspaceHarnessPrompt(Object.keys(configured)),
        operatorPrompt: agent.systemPrompt,
        intrinsic: {},
        configured,
        allowlist: agent.tools,
        messages: [...live.record.messages, { role: 'user', content: text }],
        onTextDelta: (delta) => {
          if (!assistant) {
            assistant = { type: 'assistant', id: randomUUID(), at: Date.now(), text: '', streaming: true };
            this.addEntry(live, assistant);
          }
          assistant.text += delta;
          if (this.isCurrent(live)) this.streamed.fire({ entryId: assistant.id, text: delta });
        },
        onToolCall: (call) => {
          closeAssistant();
          const start = describeCall(call.toolName, call.input);
          const chip: ToolEntry = {
            type: 'tool',
            id: `tool-${call.toolCallId}`,
            at: Date.now(),
            toolCallId: call.toolCallId,
            verb: call.toolName,
            target: start.target,
            status: 'running',
            summary: '',
            args: start.args,
            resultPreview: '',
          };
          chips.set(call.toolCallId, chip);
          this.addEntry(live, chip);
          if (call.invalid)
            this.endChip(
              live,
              chip,
              describeError(invalidCallMessage(call.toolName, call.invalid.message, configured)),
            );
        },
        onToolResult: ({ toolCallId, toolName, output }) => {
          const chip = chips.get(toolCallId);
          if (chip) this.endChip(live, chip, describeResult(toolName, output));
        },
        onToolError: ({ toolCallId, toolName, message }) => {
          const chip = chips.get(toolCallId);
          if (chip && chip.status === 'running')
            this.endChip(live, chip, describeError(invalidCallMessage(toolName, message, configured)));
        },
      });
    } catch (err) {
      // Building the model failed (e.g. the key's env var is unset): same report as a failed call.
      const error = err instanceof KilnError ? err : new KilnError('E_MODEL', String(err));
      outcome = { status: 'error', text: '', toolCalls: [], error };
    }
    this.runningChips = null;
    closeAssistant();
    for (const chip of chips.values()) {
      if (chip.status === 'running')
        this.endChip(live, chip, {
          status: 'error',
          summary: outcome.status === 'stopped' ? 'stopped' : 'interrupted',
          resultPreview: '',
        });
    }
    return { outcome, chips };
  }

  private async finish(
    live: LiveSession,
    runId: string,
    text: string,
    { outcome, chips }: RunResult,
  ): Promise<AgentOutcome> {
    const status = outcome.status;
    if (!this.isCurrent(live)) return { runId, status };
    const record = live.record;
    let error: WireError | undefined;
    if (status === 'completed') {
      record.messages.push(
        { role: 'user', content: text },
        ...(outcome.responseMessages ?? assistantNote(outcome.text, '')),
      );
    } else {
      // A partial run still happened (files may have changed): the model hears what it did.
      const done = [...chips.values()].map((c) => `${toolChipLabel(c)} (${c.status})`);
      const what = status === 'stopped' ? 'Stopped by the operator' : 'The run failed';
      if (outcome.text || done.length) {
        record.messages.push(
          { role: 'user', content: text },
          ...assistantNote(outcome.text, `[${what}${done.length ? ` after: ${done.join('; ')}` : ''}.]`),
        );
      }
      if (status === 'stopped') {
        this.addEntry(live, { type: 'marker', id: randomUUID(), at: Date.now(), marker: 'stopped', text: 'Stopped' });
      } else {
        error = toWireError(outcome.error);
        this.addEntry(live, {
          type: 'error',
          id: randomUUID(),
          at: Date.now(),
          code: error.code,
          message: error.message,
        });
      }
    }
    this.announceRunState(live, this.pending > 0 ? 'running' : error ? 'error' : 'idle', error);
    await this.save(live);
    return { runId, status, ...(error ? { error } : {}) };
  }

  private endChip(live: LiveSession, chip: ToolEntry, end: ChipEnd): void {
    chip.status = end.status;
    chip.summary = end.summary;
    chip.resultPreview = end.resultPreview;
    if (end.target) chip.target = end.target;
    this.upsert(live, chip);
  }

  private interruptRunningCells(): void {
    const interrupt = this.options.interruptNotebook;
    if (!interrupt || !this.runningChips) return;
    for (const chip of this.runningChips.values()) {
      if (chip.status === 'running' && chip.target && isVerbName(chip.verb) && VERBS[chip.verb].runsCell)
        void interrupt(chip.target).catch(
          log.caught('a running cell could not be interrupted at Stop (its kernel gone or busy restarting)', undefined),
        );
    }
  }

  private tools(): ToolSet {
    const only = this.options.config.current().agent?.tools ?? null;
    return selectTools('workspace', {
      intrinsic: {},
      configured: verbToolSet(this.options.verbs, { only }),
      allowlist: only,
    });
  }

  // --- state ----------------------------------------------------------------------------------

  private async ensure(): Promise<LiveSession> {
    if (this.live) return this.live;
    this.loading ??= this.store.load().then((record) => {
      if (this.live) return this.live;
      const live = record ? { record: settle(record), runState: 'idle' as const } : this.newSession();
      this.live = live;
      return live;
    });
    return this.loading;
  }

  private newSession(): LiveSession {
    return {
      runState: 'idle',
      record: {
        version: 1,
        workspaceRoot: this.options.workspaceRoot,
        kind: 'workspace',
        createdAt: Date.now(),
        transcript: [],
        messages: [],
      },
    };
  }

  private isCurrent(live: LiveSession): boolean {
    return this.live === live;
  }

  private save(live: LiveSession): Promise<void> {
    // A cleared session's late bookkeeping must not bring its file back.
    if (!this.isCurrent(live)) return Promise.resolve();
    return this.store.save(live.record);
  }

  private addEntry(live: LiveSession, entry: AgentEntry): void {
    if (!this.isCurrent(live)) return;
    live.record.transcript.push(entry);
    this.transcriptChanged.fire({ entry: structuredClone(entry) });
  }

  /** Replaces the entry with the same id (chips and streaming text change in place). */
  private upsert(live: LiveSession, entry: AgentEntry): void {
    if (!this.isCurrent(live)) return;
    const index = live.record.transcript.findIndex((e) => e.id === entry.id);
    if (index >= 0) live.record.transcript[index] = entry;
    else live.record.transcript.push(entry);
    this.transcriptChanged.fire({ entry: structuredClone(entry) });
  }

  private announceRunState(live: LiveSession, state: RunState, error?: WireError): void {
    live.runState = state;
    if (!this.isCurrent(live)) return;
    this.runStateChanged.fire({ state, queued: this.pending, ...(error ? { error } : {}) });
  }

  private snapshot(live: LiveSession): AgentSnapshot {
    const agent = this.options.config.current().agent;
    return structuredClone({
      kind: 'workspace' as const,
      enabled: agent !== null,
      model: agent?.model ?? null,
      tools: agent ? this.offeredTools() : [],
      transcript: live.record.transcript,
      runState: live.runState,
      queued: this.pending,
    });
  }
}

interface RunResult {
  outcome: EngineOutcome;
  chips: Map<string, ToolEntry>;
}

function notEnabled(): KilnError {
  return new KilnError(
    'E_NO_MODEL',
    'The agent is not enabled: add an agent: block with a model to .kiln/config.yaml.',
  );
}

/** A record resumed after a restart: whatever was running then is over. */
function settle(record: AgentRecord): AgentRecord {
  for (const entry of record.transcript) {
    if (entry.type === 'assistant') entry.streaming = false;
    if (entry.type === 'user') entry.queued = false;
    if (entry.type === 'tool' && entry.status === 'running') {
      entry.status = 'error';
      entry.summary = 'interrupted';
    }
  }
  return record;
}

function assistantNote(text: string, note: string): ModelMessage[] {
  const content = [text, note].filter(Boolean).join('\n\n') || '(no reply)';
  return [{ role: 'assistant', content }];
}

function invalidCallMessage(toolName: string, message: string, offered: ToolSet): string {
  if (!Object.hasOwn(offered, toolName)) {
    return `The model called '${toolName}', which is not offered in this session (allowed: ${Object.keys(offered).join(', ') || 'none'}).`;
  }
  return message;
}
