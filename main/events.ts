import type { AnyEvent, EventChannel, EventPayload } from '../shared/contract';
import { Emitter, type Event } from '../shared/base/event';
import type { IDisposable } from '../shared/base/lifecycle';

/** For main's emitters: a faulty listener is logged and must not fail the service that fired the event. */
export function logListenerError(err: unknown): void {
  console.error('[kiln] listener failed', err);
}

/**
 * Service events by the wire channel they go out on; each payload is the channel's. A channel two services announce
 * on (a replace's and the notebook service's `notebook.changed`) lists both.
 */
export type WireEvents = {
  readonly [E in EventChannel]?: Event<EventPayload<E>> | readonly Event<EventPayload<E>>[];
};

/** A service's emitter for an event it announces on wire channel E: typed from the contract, so a wrong payload fails tsc. */
export function wireEmitter<E extends EventChannel>(): Emitter<EventPayload<E>> {
  return new Emitter<EventPayload<E>>({ onListenerError: logListenerError });
}

/** The one place services announce events; each host forwards them to its renderer(s). */
export class EventHub implements IDisposable {
  private readonly emitter = new Emitter<AnyEvent>({ onListenerError: logListenerError });
  /** Every event any service announces. */
  readonly onEvent: Event<AnyEvent> = this.emitter.event;

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    this.emitter.fire({ channel, payload } as AnyEvent);
  }

  /**
   * Announces each service event on its wire channel: the one table of what main tells the renderers. Dispose the
   * result to stop.
   */
  announce(table: WireEvents): IDisposable {
    const subscriptions = Object.entries(table).flatMap(([channel, events]) =>
      (Array.isArray(events) ? events : [events]).map((event: Event<unknown>) =>
        event((payload) => this.emit(channel as EventChannel, payload as never)),
      ),
    );
    return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
