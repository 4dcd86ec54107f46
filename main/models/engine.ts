/**
 * The one run engine: gates runs per session by kind policy, invokes the model through the AI SDK,
 * streams text, collects tool calls and reports one outcome. It never touches the filesystem and
 * does not import the workspace: whatever a run produces goes back to its caller as data.
 */
import { stepCountIs, streamText, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import type { IDisposable } from '../../shared/base/lifecycle';
import { KeyedSerialQueue } from '../../shared/base/serial-queue';
import type { SessionKind } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { SESSION_KIND_POLICIES, selectTools, type SessionKindPolicy, type ToolSources } from './kinds';
import { describeModelError, type ModelTarget } from './model-errors';

export interface RunRequest extends ToolSources {
  kind: SessionKind;
  model: LanguageModel;
  /** For error messages: which alias/model/endpoint this run talks to. */
  target: ModelTarget;
  /** Layer 1: the intrinsic harness prompt (mechanics); the operator never edits it. */
  harnessPrompt: string;
  /** Layer 2: the operator's system prompt from config; '' for none. */
  operatorPrompt: string;
  messages: ModelMessage[];
  onTextDelta?: (text: string) => void;
  /** Every tool call as the model makes it (valid or not); tools with `execute` then report a result or error. */
  onToolCall?: (call: EngineToolCall) => void;
  onToolResult?: (result: { toolCallId: string; toolName: string; output: unknown }) => void;
  onToolError?: (error: { toolCallId: string; toolName: string; message: string }) => void;
}

export interface EngineToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the model's arguments were malformed or failed the tool's schema. */
  invalid?: { message: string };
}

export type EngineOutcome =
  /** `responseMessages`: what the model and executed tools added, for kinds that keep SDK-shaped history. */
  | { status: 'completed'; text: string; toolCalls: EngineToolCall[]; responseMessages?: ModelMessage[] }
  | { status: 'stopped'; text: string; toolCalls: EngineToolCall[] }
  | { status: 'error'; text: string; toolCalls: EngineToolCall[]; error: KilnError };

/**
 * A reserved run slot of one session: it holds the session's turn until it is disposed, which its owner
 * does on every path (finished, failed, stopped). Disposing twice is harmless.
 */
export interface RunSlot extends IDisposable {
  readonly key: string;
  /** Aborted by `stop(key)` and at shutdown. */
  readonly signal: AbortSignal;
  dispose(): void;
}

/** Layers stay separate in code; on the wire they form one system message, which every chat template accepts. */
export function composeSystemPrompt(harnessPrompt: string, operatorPrompt: string): string {
  const operator = operatorPrompt.trim();
  if (!operator) return harnessPrompt;
  return `${harnessPrompt}\n\n## Operator instructions\n\n${operator}`;
}

export class RunEngine implements IDisposable {
  // Whose turn it is, per session: each slot's turn ends when the slot is disposed. A session with no run
  // running or waiting has no entry, so the engine does not grow with every session it ever ran.
  private readonly turns = new KeyedSerialQueue<string>();
  private readonly running = new Map<string, { slot: RunSlot; controller: AbortController }>();
  private disposed = false;

  constructor(private readonly policies: Readonly<Record<SessionKind, SessionKindPolicy>> = SESSION_KIND_POLICIES) {}

  policy(kind: SessionKind): SessionKindPolicy {
    return this.policies[kind];
  }

  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  /**
   * Reserves the session's run slot. Kinds that refuse (edit) fail with E_BUSY at once when a run is
   * going; kinds that queue (workspace) wait their turn. After shutdown, and for a turn still waiting when
   * it came, the answer is E_SHUTTING_DOWN.
   */
  acquire(key: string, kind: SessionKind): Promise<RunSlot> {
    if (this.disposed) return Promise.reject(shuttingDown());
    if (this.policies[kind].whenBusy === 'refuse' && this.running.has(key)) {
      return Promise.reject(
        new KilnError('E_BUSY', 'A run is already in progress for this session: wait for it or press Stop.'),
      );
    }
    return new Promise<RunSlot>((resolve, reject) => {
      void this.turns.run(
        key,
        () =>
          new Promise<void>((endTurn) => {
            if (this.disposed) {
              endTurn();
              reject(shuttingDown());
              return;
            }
            const controller = new AbortController();
            const slot: RunSlot = {
              key,
              signal: controller.signal,
              dispose: () => {
                if (this.running.get(key)?.slot === slot) this.running.delete(key);
                endTurn();
              },
            };
            this.running.set(key, { slot, controller });
            resolve(slot);
          }),
      );
    });
  }

  /** Aborts the session's running run, if any. */
  stop(key: string): boolean {
    const run = this.running.get(key);
    if (!run || run.controller.signal.aborted) return false;
    run.controller.abort();
    return true;
  }

  /** Resolves once the session has no run running or waiting (its slots all disposed). */
  whenIdle(key: string): Promise<void> {
    return this.turns.whenIdle(key);
  }

  /** Shutdown: every running run is aborted, and no turn starts any more (waiting ones get E_SHUTTING_DOWN). */
  dispose(): void {
    this.disposed = true;
    for (const { controller } of this.running.values()) controller.abort();
  }

  /** Runs the model once for a reserved slot. Never throws for model failures: they are the outcome. */
  async stream(slot: RunSlot, request: RunRequest): Promise<EngineOutcome> {
    const policy = this.policies[request.kind];
    const tools: ToolSet = selectTools(request.kind, request, this.policies);
    let text = '';
    const toolCalls: EngineToolCall[] = [];
    let failure: unknown;
    let stopped = false;
    let responsePromise: Promise<{ messages: ModelMessage[] } | undefined> | undefined;
    try {
      const result = streamText({
        model: request.model,
        system: composeSystemPrompt(request.harnessPrompt, request.operatorPrompt),
        messages: request.messages,
        tools,
        stopWhen: stepCountIs(policy.maxSteps),
        abortSignal: slot.signal,
        // Errors are reported once, as the outcome; a retry would hide an unreachable server for seconds.
        maxRetries: 0,
        onError: () => {},
      });
      // Observed at once: on error or abort it rejects, and nobody else would handle that.
      responsePromise = Promise.resolve(result.response).then(
        (r) => r,
        () => undefined,
      );
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'text-delta':
            text += part.text;
            request.onTextDelta?.(part.text);
            break;
          case 'tool-call': {
            const call: EngineToolCall = {
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input: part.input,
              invalid: part.invalid ? { message: errorMessage(part.error) } : undefined,
            };
            toolCalls.push(call);
            request.onToolCall?.(call);
            break;
          }
          case 'tool-result':
            request.onToolResult?.({ toolCallId: part.toolCallId, toolName: part.toolName, output: part.output });
            break;
          case 'tool-error':
            request.onToolError?.({
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              message: errorMessage(part.error),
            });
            break;
          case 'error':
            failure = part.error;
            break;
          case 'abort':
            stopped = true;
            break;
          default:
            break;
        }
      }
    } catch (err) {
      if (slot.signal.aborted) stopped = true;
      else failure = err;
    }
    if (stopped || slot.signal.aborted) return { status: 'stopped', text, toolCalls };
    if (failure !== undefined) {
      return { status: 'error', text, toolCalls, error: describeModelError(failure, request.target, text.length > 0) };
    }
    const response = await responsePromise;
    return { status: 'completed', text, toolCalls, responseMessages: response?.messages };
  }
}

function shuttingDown(): KilnError {
  return new KilnError('E_SHUTTING_DOWN', 'Kiln is shutting down: no new run starts.');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
