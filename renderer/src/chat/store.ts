/**
 * What the chat panels' stores share: state for useSyncExternalStore, and one store per bridge so a
 * panel can unmount with its tab (and the centre can share the panel's store) without a provider.
 */
import { useSyncExternalStore } from 'react';
import type { KilnBridge } from '../../../shared/contract';
import { KilnError, type ErrorCode } from '../../../shared/errors';
import { useBridge } from '../base';

export abstract class BridgeStore<S> {
  private readonly listeners = new Set<() => void>();
  protected readonly unsubscribe: Array<() => void> = [];

  constructor(protected state: S) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): S => this.state;

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.listeners.clear();
  }

  protected set(next: Partial<S>): void {
    this.state = { ...this.state, ...next };
    for (const listener of this.listeners) listener();
  }
}

/** A hook finding the context bridge's store, created on first use. */
export function perBridge<T extends BridgeStore<unknown>>(create: (bridge: KilnBridge) => T): () => T {
  const stores = new WeakMap<KilnBridge, T>();
  return () => {
    const bridge = useBridge();
    let store = stores.get(bridge);
    if (!store) {
      store = create(bridge);
      stores.set(bridge, store);
    }
    return store;
  };
}

export function useStoreState<S>(store: BridgeStore<S>): S {
  return useSyncExternalStore(store.subscribe, store.getState);
}

/** A thrown value as a transcript error line's code and message. */
export function errorFrom(err: unknown): { code: ErrorCode; message: string; details?: unknown } {
  if (err instanceof KilnError) return { code: err.code, message: err.message, details: err.details };
  return { code: 'E_INTERNAL', message: err instanceof Error ? err.message : String(err) };
}
