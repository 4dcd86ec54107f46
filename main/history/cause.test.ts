import { describe, expect, it } from 'vitest';
import { CallBatches, currentWriteCause, withWriteCause } from './cause';

describe('write causes', () => {
  it('follow async work started inside, and nest', async () => {
    const seen = await withWriteCause({ agentSession: 'agent', turn: 't1' }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return withWriteCause({ restoring: true }, async () => {
        await Promise.resolve();
        return currentWriteCause();
      });
    });
    expect(seen).toEqual({ agentSession: 'agent', turn: 't1', restoring: true });
    expect(currentWriteCause()).toEqual({});
  });

  it('an MCP batch is a burst of calls: a gap longer than the limit starts the next', () => {
    const batches = new CallBatches(1000);
    const first = batches.next(10_000);
    expect(batches.next(10_900)).toBe(first);
    expect(batches.next(11_800)).toBe(first);
    const second = batches.next(12_801);
    expect(second).not.toBe(first);
    expect(batches.next(13_000)).toBe(second);
  });
});
