import type { z } from 'zod';
import {
  events,
  requests,
  type EventChannel,
  type EventPayload,
  type KilnBridge,
  type ParsedArgs,
  type RequestArgs,
  type RequestChannel,
  type RequestResult,
} from '../shared/contract';
import { KilnError } from '../shared/errors';

type Handler<C extends RequestChannel> = (args: ParsedArgs<C>) => RequestResult<C> | Promise<RequestResult<C>>;

/**
 * The renderer's bridge in memory, for renderer unit tests: requests are answered by the handlers the
 * test gives, events are the ones the test emits. It holds both sides to the contract the hosts hold
 * them to: a request with bad args fails with E_BAD_REQUEST as main would, and a handler result or an
 * emitted payload the contract refuses is a bug in the test, thrown at once.
 */
export class FakeBridge implements KilnBridge {
  readonly transport = 'in-process' as const;
  /** Every request the code under test made, in order, with its args as sent. */
  readonly sent: Array<{ channel: RequestChannel; args: unknown }> = [];
  private readonly handlers = new Map<RequestChannel, (args: unknown) => unknown>();
  private readonly listeners = new Map<EventChannel, Set<(payload: never) => void>>();

  /** Answers `channel` with `handler` from now on (replacing an earlier one); throw a KilnError to fail it. */
  handle<C extends RequestChannel>(channel: C, handler: Handler<C>): this {
    this.handlers.set(channel, handler as (args: unknown) => unknown);
    return this;
  }

  async request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
    this.sent.push({ channel, args });
    const spec = requests[channel] as { args: z.ZodType; result: z.ZodType };
    const parsed = spec.args.safeParse(args ?? {});
    if (!parsed.success) throw new KilnError('E_BAD_REQUEST', `Bad request to ${channel}: ${parsed.error.message}`);
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`FakeBridge: the test gave no handler for ${channel}`);
    let value: unknown;
    try {
      value = await handler(parsed.data);
    } catch (err) {
      // What crosses the wire is the code, message and details; a fresh error, as the client builds.
      if (err instanceof KilnError) throw new KilnError(err.code, err.message, err.details);
      throw err;
    }
    const result = spec.result.safeParse(value);
    if (!result.success)
      throw new Error(
        `FakeBridge: the handler for ${channel} returned what the contract refuses: ${result.error.message}`,
      );
    return result.data as RequestResult<C>;
  }

  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    const entry = listener as (payload: never) => void;
    set.add(entry);
    return () => void set.delete(entry);
  }

  /** Delivers an event to every listener now, after checking it against the contract. */
  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    const parsed = (events[channel] as z.ZodType).safeParse(payload);
    if (!parsed.success)
      throw new Error(`FakeBridge: ${channel} payload the contract refuses: ${parsed.error.message}`);
    for (const listener of [...(this.listeners.get(channel) ?? [])]) (listener as (p: unknown) => void)(parsed.data);
  }

  /** How many listeners `channel` has: a disposed store leaves none behind. */
  listenerCount(channel: EventChannel): number {
    return this.listeners.get(channel)?.size ?? 0;
  }

  /** The args of every request made on `channel`, in order. */
  sentOn<C extends RequestChannel>(channel: C): RequestArgs<C>[] {
    return this.sent.filter((r) => r.channel === channel).map((r) => r.args as RequestArgs<C>);
  }
}

/** A FakeBridge answering from `handlers`, with its emit and the requests made, for tests that only need those. */
export function fakeBridge(handlers: Partial<{ [C in RequestChannel]: Handler<C> }>) {
  const bridge = new FakeBridge();
  for (const [channel, handler] of Object.entries(handlers)) bridge.handle(channel as RequestChannel, handler as never);
  return { bridge, emit: bridge.emit.bind(bridge), calls: bridge.sent };
}
