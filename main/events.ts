import type { AnyEvent, EventChannel, EventPayload } from '../shared/contract';
import { Emitter, type Event } from '../shared/base/event';
import type { IDisposable } from '../shared/base/lifecycle';

/** For main's emitters: a faulty listener is logged and must not fail the service that fired the event. */
export function logListenerError(err: unknown): void {
  console.error('[kiln] listener failed', err);
}

/** The one place services announce events; each host forwards them to its renderer(s). */
export class EventHub implements IDisposable {
  private readonly emitter = new Emitter<AnyEvent>({ onListenerError: logListenerError });
  /** Every event any service announces. */
  readonly onEvent: Event<AnyEvent> = this.emitter.event;

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    this.emitter.fire({ channel, payload } as AnyEvent);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
