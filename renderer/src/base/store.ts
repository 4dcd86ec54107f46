/**
 * The renderer's one store type: state outside React that a view reads with `useStore`. A store owns
 * its bridge subscriptions (`own`) and drops them on `dispose`; listeners are told now, or once per
 * animation frame for state that streams (a notebook's outputs), so a burst of events costs one render.
 */
import { useRef, useSyncExternalStore } from 'react';
import { Emitter } from '../../../shared/base/event';
import { DisposableStore, toDisposable } from '../../../shared/base/lifecycle';
import type { KilnBridge } from '../../../shared/contract';
import { useBridge } from './bridge';

export type Unsubscribe = () => void;

/** What `useStore` reads: anything with a subscription and a current state. */
export interface Readable<S> {
  subscribe(listener: () => void): Unsubscribe;
  getState(): S;
}

/** When listeners hear of a `set`: at once, or at the next animation frame (coalescing the sets between). */
export type Notify = 'now' | 'frame';

export class Store<S extends object> implements Readable<S> {
  private readonly changed = new Emitter<void>();
  private readonly owned = new DisposableStore();
  private frame: number | null = null;

  constructor(protected state: S) {
    this.owned.add(this.changed);
    this.owned.add(
      toDisposable(() => {
        if (this.frame !== null) cancelAnimationFrame(this.frame);
      }),
    );
  }

  subscribe = (listener: () => void): Unsubscribe => {
    const subscription = this.changed.event(listener);
    return () => void subscription.dispose();
  };

  getState = (): S => this.state;

  get isDisposed(): boolean {
    return this.owned.isDisposed;
  }

  /** Releases what the store owns (bridge listeners, timers), newest first, and stops telling listeners anything. */
  dispose(): void {
    void this.owned.dispose();
  }

  /** Keeps a teardown (what `bridge.on` returns, a clearTimeout) to run on dispose. */
  protected own(...offs: Unsubscribe[]): void {
    for (const off of offs) this.owned.add(toDisposable(off));
  }

  /** Merges a change into the state; getState sees it at once, listeners when `notify` says. */
  protected set(patch: Partial<S>, notify: Notify = 'now'): void {
    this.state = { ...this.state, ...patch };
    this.notify(notify);
  }

  /** Tells listeners the state changed (for stores whose state object is replaced whole). */
  protected notify(when: Notify = 'now'): void {
    if (this.isDisposed) return;
    if (when === 'now') {
      if (this.frame !== null) cancelAnimationFrame(this.frame);
      this.frame = null;
      this.changed.fire();
    } else if (this.frame === null) {
      this.frame = requestAnimationFrame(() => {
        this.frame = null;
        this.notify('now');
      });
    }
  }
}

/**
 * The part of a store a component shows; the component re-renders only when that part changes
 * (compared with `isEqual`, `Object.is` by default). A selector may build a new value each call
 * (an array, an object) if `isEqual` says when two are the same.
 */
export function useStore<S, T = S>(
  store: Readable<S>,
  selector: (state: S) => T = identity as (state: S) => T,
  isEqual: (a: T, b: T) => boolean = Object.is,
): T {
  const last = useRef<Selection<S, T> | null>(null);
  const snapshot = (): T => {
    const selection = select(last.current, store.getState(), selector, isEqual);
    last.current = selection;
    return selection.value;
  };
  return useSyncExternalStore(store.subscribe, snapshot, snapshot);
}

interface Selection<S, T> {
  state: S;
  selector: (state: S) => T;
  value: T;
}

/** The selected value for a state, reusing the previous one when the state or the value is unchanged. */
export function select<S, T>(
  previous: Selection<S, T> | null,
  state: S,
  selector: (state: S) => T,
  isEqual: (a: T, b: T) => boolean,
): Selection<S, T> {
  if (previous && previous.state === state && previous.selector === selector) return previous;
  const value = selector(state);
  if (previous && isEqual(previous.value, value)) return { state, selector, value: previous.value };
  return { state, selector, value };
}

function identity<S>(state: S): S {
  return state;
}

/** A hook finding the window's one store of a kind; `of(bridge)` finds it outside React (another store's constructor). */
export interface PerBridge<T> {
  (): T;
  of(bridge: KilnBridge): T;
}

/**
 * The window's one store of a kind, created on first use from the bridge. It lives as long as the
 * bridge (the window), so a panel can unmount with its tab and find it again.
 */
export function perBridge<T>(create: (bridge: KilnBridge) => T): PerBridge<T> {
  const stores = new WeakMap<KilnBridge, T>();
  const of = (bridge: KilnBridge): T => {
    let store = stores.get(bridge);
    if (!store) stores.set(bridge, (store = create(bridge)));
    return store;
  };
  return Object.assign(() => of(useBridge()), { of });
}
