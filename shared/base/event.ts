/**
 * Typed events, in the spirit of VS Code's base/common/event.ts but small: an Emitter owns the listeners,
 * and hands out `event`, the subscribe function, which returns an IDisposable that unsubscribes.
 */
import type { IDisposable } from './lifecycle';
import { toDisposable } from './lifecycle';

/** Subscribes a listener; dispose the result to unsubscribe. */
export type Event<T> = (listener: (value: T) => void) => IDisposable;

export interface EmitterOptions {
  /**
   * Where a listener's error goes. A failing listener never stops the others; without this option the
   * first error is rethrown to the caller of `fire` once every listener has run.
   */
  onListenerError?: (err: unknown) => void;
}

export class Emitter<T> implements IDisposable {
  // One entry per subscription, so the same function subscribed twice is called twice and unsubscribes once.
  private readonly listeners = new Set<{ listener: (value: T) => void }>();
  private disposed = false;

  constructor(private readonly options: EmitterOptions = {}) {}

  /** The subscribe function, for consumers (expose this, keep the Emitter private). */
  readonly event: Event<T> = (listener) => {
    if (this.disposed) return toDisposable(() => undefined);
    const entry = { listener };
    this.listeners.add(entry);
    return toDisposable(() => {
      this.listeners.delete(entry);
    });
  };

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Calls every listener subscribed when the call began, in subscription order. */
  fire(value: T): void {
    if (this.listeners.size === 0) return;
    let firstError: { err: unknown } | undefined;
    for (const entry of [...this.listeners]) {
      // Unsubscribed by an earlier listener of this same fire: it no longer wants the value.
      if (!this.listeners.has(entry)) continue;
      try {
        entry.listener(value);
      } catch (err) {
        if (this.options.onListenerError) this.options.onListenerError(err);
        else firstError ??= { err };
      }
    }
    if (firstError) throw firstError.err;
  }

  /** Drops every listener; later subscriptions are no-ops and `fire` does nothing. */
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}
