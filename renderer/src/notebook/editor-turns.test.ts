import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestEditorTurn } from './editor-turns';

describe('requestEditorTurn', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives one cell a turn at a time, in the order they asked, each in a task of its own', () => {
    const started: string[] = [];
    const turns = ['a', 'b', 'c'].map((cell) => requestEditorTurn(() => started.push(cell)));
    expect(started).toEqual([]);
    vi.runAllTimers();
    // b waits until a's editor exists, however many tasks pass.
    expect(started).toEqual(['a']);
    turns[0].release();
    expect(started).toEqual(['a']);
    vi.runAllTimers();
    expect(started).toEqual(['a', 'b']);
    turns[1].release();
    vi.runAllTimers();
    expect(started).toEqual(['a', 'b', 'c']);
    turns[2].release();
  });

  it('skips a request released before its turn (the cell unmounted, or the operator focused it)', () => {
    const started: string[] = [];
    const a = requestEditorTurn(() => started.push('a'));
    const b = requestEditorTurn(() => started.push('b'));
    const c = requestEditorTurn(() => started.push('c'));
    b.release();
    vi.runAllTimers();
    a.release();
    a.release();
    vi.runAllTimers();
    expect(started).toEqual(['a', 'c']);
    c.release();
  });
});
