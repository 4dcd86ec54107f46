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
});
