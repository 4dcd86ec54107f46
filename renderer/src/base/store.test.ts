import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Store, select, useStore } from './store';

interface Counter {
  count: number;
  label: string;
}

class CounterStore extends Store<Counter> {
  released = 0;
  constructor() {
    super({ count: 0, label: 'a' });
    this.own(() => this.released++);
  }
  bump(notify: 'now' | 'frame' = 'now'): void {
    this.set({ count: this.state.count + 1 }, notify);
  }
  rename(label: string): void {
    this.set({ label });
  }
}

describe('Store', () => {
  let frames: Array<() => void>;
  beforeEach(() => {
    frames = [];
    vi.stubGlobal('requestAnimationFrame', (cb: () => void) => frames.push(cb));
    vi.stubGlobal('cancelAnimationFrame', (id: number) => {
      frames[id - 1] = () => undefined;
    });
  });
  afterEach(() => vi.unstubAllGlobals());
  const runFrame = () => frames.splice(0).forEach((cb) => cb());

  it('tells every listener of a change at once, and stops telling one that unsubscribed', () => {
    const store = new CounterStore();
    const heard: number[] = [];
    const off = store.subscribe(() => heard.push(store.getState().count));
    store.bump();
    store.bump();
    off();
    store.bump();
    expect(heard).toEqual([1, 2]);
    expect(store.getState().count).toBe(3);
  });

  it('coalesces frame changes into one notification, with the state current before it', () => {
    const store = new CounterStore();
    let calls = 0;
    store.subscribe(() => calls++);
    for (let i = 0; i < 1000; i++) store.bump('frame');
    expect(store.getState().count).toBe(1000);
    expect(calls).toBe(0);
    runFrame();
    expect(calls).toBe(1);
    runFrame();
    expect(calls).toBe(1);
  });

  it('a change made now flushes a pending frame instead of notifying twice', () => {
    const store = new CounterStore();
    let calls = 0;
    store.subscribe(() => calls++);
    store.bump('frame');
    store.bump('now');
    runFrame();
    expect(calls).toBe(1);
  });

  it('dispose releases what the store owns, once, and silences it', () => {
    const store = new CounterStore();
    let calls = 0;
    store.subscribe(() => calls++);
    store.bump('frame');
    store.dispose();
    store.dispose();
    runFrame();
    store.bump();
    expect(store.released).toBe(1);
    expect(calls).toBe(0);
    expect(store.isDisposed).toBe(true);
  });
});

describe('select', () => {
  const count = (s: Counter) => s.count;
  it('keeps the previous value while the selected part is unchanged, so a view does not re-render', () => {
    const first = select(null, { count: 1, label: 'a' }, count, Object.is);
    const same = select(first, { count: 1, label: 'b' }, count, Object.is);
    expect(same.value).toBe(1);
    const pair = (s: Counter) => [s.count];
    const a = select(null, { count: 1, label: 'a' }, pair, (x, y) => x[0] === y[0]);
    const b = select(a, { count: 1, label: 'b' }, pair, (x, y) => x[0] === y[0]);
    expect(b.value).toBe(a.value);
    const c = select(b, { count: 2, label: 'b' }, pair, (x, y) => x[0] === y[0]);
    expect(c.value).toEqual([2]);
  });
});

describe('useStore', () => {
  it('renders the selected part of the current state', () => {
    const store = new CounterStore();
    store.bump();
    store.rename('shown');
    const View = () => createElement('span', null, `${useStore(store, (s) => s.label)} ${useStore(store).count}`);
    expect(renderToString(createElement(View))).toBe('<span>shown 1</span>');
  });
});
