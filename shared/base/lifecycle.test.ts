import { describe, expect, it } from 'vitest';
import { DisposableStore, toDisposable } from './lifecycle';

describe('toDisposable', () => {
  it('releases once however often it is disposed', () => {
    let releases = 0;
    const d = toDisposable(() => void releases++);
    void d.dispose();
    void d.dispose();
    expect(releases).toBe(1);
  });
});

describe('DisposableStore', () => {
  it('disposes in reverse order of adding, awaiting each asynchronous release before the next', async () => {
    const order: string[] = [];
    let finishSecond!: () => void;
    const secondReleased = new Promise<void>((resolve) => (finishSecond = resolve));
    const store = new DisposableStore();
    store.add(toDisposable(() => void order.push('first')));
    store.add(
      toDisposable(async () => {
        await secondReleased;
        order.push('second (async)');
      }),
    );
    store.add(toDisposable(() => void order.push('third')));
    const disposed = store.dispose();
    await Promise.resolve();
    expect(order).toEqual(['third']);
    finishSecond();
    await disposed;
    expect(order).toEqual(['third', 'second (async)', 'first']);
  });

  it('has released synchronous disposables by the time dispose returns', () => {
    const store = new DisposableStore();
    let released = false;
    store.add(toDisposable(() => void (released = true)));
    void store.dispose();
    expect(released).toBe(true);
  });

  it('disposes the rest when one fails, then reports the failure', async () => {
    const order: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => void order.push('a')));
    store.add(
      toDisposable(() => {
        throw new Error('b failed');
      }),
    );
    store.add(toDisposable(async () => Promise.reject(new Error('c failed'))));
    store.add(toDisposable(() => void order.push('d')));
    const err = await store.dispose().catch((e: unknown) => e);
    expect(order).toEqual(['d', 'a']);
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as AggregateError).errors.map((e: Error) => e.message)).toEqual(['c failed', 'b failed']);
  });

  it('disposes once; a later dispose returns the same outcome', async () => {
    let releases = 0;
    const store = new DisposableStore();
    store.add({ dispose: () => void releases++ });
    const first = store.dispose();
    expect(store.dispose()).toBe(first);
    await first;
    expect(releases).toBe(1);
    expect(store.isDisposed).toBe(true);
  });

  it('disposes at once what is added after it was disposed, and a failure there does not reach the caller of add', async () => {
    const store = new DisposableStore();
    await store.dispose();
    let released = false;
    store.add(toDisposable(() => void (released = true)));
    expect(released).toBe(true);
    const failing = toDisposable(() => {
      throw new Error('already gone');
    });
    expect(store.add(failing)).toBe(failing);
  });
});
