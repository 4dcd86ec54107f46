import type { AnyEvent, EventChannel, EventPayload } from '../shared/contract';

type Listener = (event: AnyEvent) => void;

/** The one place services announce events; each host forwards them to its renderer(s). */
export class EventHub {
  private readonly listeners = new Set<Listener>();

  emit<E extends EventChannel>(channel: E, payload: EventPayload<E>): void {
    const event = { channel, payload } as AnyEvent;
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
