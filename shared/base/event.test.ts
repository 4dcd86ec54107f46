import { describe, expect, it } from 'vitest';
import { Emitter } from './event';
import { DisposableStore } from './lifecycle';

describe('Emitter', () => {
  it('delivers each value to every listener in subscription order, until it unsubscribes', () => {
    const emitter = new Emitter<number>();
    const seen: string[] = [];
    const a = emitter.event((n) => seen.push(`a${n}`));
    emitter.event((n) => seen.push(`b${n}`));
    emitter.fire(1);
    void a.dispose();
    emitter.fire(2);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
  });

  it('calls the same function once per subscription', () => {
    const emitter = new Emitter<void>();
    let calls = 0;
    const listener = () => void calls++;
    const first = emitter.event(listener);
    emitter.event(listener);
    emitter.fire();
    void first.dispose();
    emitter.fire();
    expect(calls).toBe(3);
  });

  it('does not call a listener unsubscribed by an earlier listener of the same fire', () => {
    const emitter = new Emitter<void>();
    const seen: string[] = [];
    emitter.event(() => {
      seen.push('first');
      void second.dispose();
    });
    const second = emitter.event(() => seen.push('second'));
    emitter.fire();
    expect(seen).toEqual(['first']);
  });

  it('does not call a listener added during a fire until the next fire', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    emitter.event(() => {
      emitter.event((n) => seen.push(n));
    });
    emitter.fire(1);
    expect(seen).toEqual([]);
    emitter.fire(2);
    expect(seen).toEqual([2]);
  });

  it('still calls the other listeners when one throws, then rethrows to the caller', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    emitter.event(() => {
      throw new Error('listener failed');
    });
    emitter.event((n) => seen.push(n));
    expect(() => emitter.fire(1)).toThrow('listener failed');
    expect(seen).toEqual([1]);
  });

  it('hands listener errors to onListenerError instead, when given', () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<number>({ onListenerError: (err) => errors.push(err) });
    const seen: number[] = [];
    emitter.event(() => {
      throw new Error('listener failed');
    });
    emitter.event((n) => seen.push(n));
    emitter.fire(1);
    expect(seen).toEqual([1]);
    expect(errors.map((e) => (e as Error).message)).toEqual(['listener failed']);
  });

  it('stops delivering once disposed, and ignores later subscriptions', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    emitter.event((n) => seen.push(n));
    emitter.dispose();
    emitter.event((n) => seen.push(n));
    emitter.fire(1);
    expect(seen).toEqual([]);
    expect(emitter.hasListeners).toBe(false);
  });

  it('unsubscribes through a DisposableStore', async () => {
    const emitter = new Emitter<number>();
    const store = new DisposableStore();
    const seen: number[] = [];
    store.add(emitter.event((n) => seen.push(n)));
    emitter.fire(1);
    await store.dispose();
    emitter.fire(2);
    expect(seen).toEqual([1]);
    expect(emitter.hasListeners).toBe(false);
  });
});
