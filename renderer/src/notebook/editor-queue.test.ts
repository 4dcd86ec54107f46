import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEditorSoon, noteScroll, SCROLL_QUIET_MS } from './editor-queue';

describe('makeEditorSoon', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('makes editors one per task, in the order asked, and none that was cancelled', async () => {
    const made: string[] = [];
    makeEditorSoon(() => made.push('a'));
    const cancelB = makeEditorSoon(() => made.push('b'));
    makeEditorSoon(() => made.push('c'));
    cancelB();
    await vi.waitFor(() => expect(made).toEqual(['a', 'c']));
  });

  it('makes none while the page scrolls, and makes them once it has been quiet for a while', async () => {
    const made: string[] = [];
    noteScroll();
    makeEditorSoon(() => made.push('near'));
    // Still scrolling: a scroll every 50 ms keeps the editor waiting.
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(50);
      noteScroll();
    }
    expect(made).toEqual([]);
    await vi.advanceTimersByTimeAsync(SCROLL_QUIET_MS - 1);
    expect(made).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(made).toEqual(['near']));
  });

  it('makes none while a scroll moves every frame, however long its frames, and one after a frame without a scroll', async () => {
    // Frames run by hand: each runs the frame's scroll event (when it has one), then its animation frame callbacks.
    let callbacks: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => callbacks.push(callback));
    const frame = (scrolled: boolean) => {
      if (scrolled) noteScroll();
      const now = callbacks;
      callbacks = [];
      for (const callback of now) callback(performance.now());
    };
    try {
      const made: string[] = [];
      noteScroll();
      makeEditorSoon(() => made.push('near'));
      // A heavy page: each frame takes longer than SCROLL_QUIET_MS, and each scrolls on.
      for (let i = 0; i < 5; i++) {
        await vi.advanceTimersByTimeAsync(SCROLL_QUIET_MS + 50);
        frame(true);
      }
      await vi.advanceTimersByTimeAsync(SCROLL_QUIET_MS + 50);
      expect(made).toEqual([]);
      frame(false);
      await vi.waitFor(() => expect(made).toEqual(['near']));
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
