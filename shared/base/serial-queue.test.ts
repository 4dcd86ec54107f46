import { describe, expect, it } from 'vitest';
import { KeyedSerialQueue, SerialQueue } from './serial-queue';

/** A promise the test settles by hand, so the order of events is decided by the test, not by timers. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SerialQueue', () => {
  it('runs one job at a time, in the order queued', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const gate = deferred();
    const first = queue.run(async () => {
      log.push('first starts');
      await gate.promise;
      log.push('first ends');
      return 1;
    });
    const second = queue.run(() => {
      log.push('second runs');
      return 2;
    });
    await Promise.resolve();
    expect(log).toEqual(['first starts']);
    expect(queue.idle).toBe(false);
    gate.resolve();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(['first starts', 'first ends', 'second runs']);
  });

  it('gives a failed job its own error and still runs the next job', async () => {
    const queue = new SerialQueue();
    const failed = queue.run(async () => {
      throw new Error('disk full');
    });
    const thrownSync = queue.run(() => {
      throw new Error('bad input');
    });
    const next = queue.run(() => 'written');
    await expect(failed).rejects.toThrow('disk full');
    await expect(thrownSync).rejects.toThrow('bad input');
    await expect(next).resolves.toBe('written');
  });

  it('whenIdle resolves after every queued job has settled, failed ones included, and never rejects', async () => {
    const queue = new SerialQueue();
    const gate = deferred();
    let done = false;
    void queue.run(() => gate.promise).catch(() => undefined);
    void queue.run(() => void (done = true));
    const idle = queue.whenIdle();
    gate.reject(new Error('failed'));
    await idle;
    expect(done).toBe(true);
    expect(queue.idle).toBe(true);
  });
});

describe('KeyedSerialQueue', () => {
  it('serializes jobs per key and lets different keys run side by side', async () => {
    const queue = new KeyedSerialQueue<string>();
    const log: string[] = [];
    const gate = deferred();
    const a1 = queue.run('a', async () => {
      log.push('a1 starts');
      await gate.promise;
      log.push('a1 ends');
    });
    const a2 = queue.run('a', () => void log.push('a2'));
    const b1 = queue.run('b', () => void log.push('b1'));
    await b1;
    expect(log).toEqual(['a1 starts', 'b1']);
    gate.resolve();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['a1 starts', 'b1', 'a1 ends', 'a2']);
  });

  it('isolates a failure to its own job on the same key', async () => {
    const queue = new KeyedSerialQueue<string>();
    const failed = queue.run('f', () => Promise.reject(new Error('rename failed')));
    const next = queue.run('f', () => 'saved');
    await expect(failed).rejects.toThrow('rename failed');
    await expect(next).resolves.toBe('saved');
    await queue.whenIdle();
  });

  it('whenIdle(key) waits for that key only, and an idle key is forgotten', async () => {
    const queue = new KeyedSerialQueue<string>();
    const slow = deferred();
    let aDone = false;
    void queue.run('a', () => void (aDone = true));
    void queue.run('b', () => slow.promise);
    expect(queue.busyKeys).toBe(2);
    await queue.whenIdle('a');
    expect(aDone).toBe(true);
    await queue.whenIdle('never queued');
    slow.resolve();
    await queue.whenIdle();
    // The bookkeeping of a settled key goes with it, so a long-lived queue does not grow with every key it saw.
    expect(queue.busyKeys).toBe(0);
  });
});
