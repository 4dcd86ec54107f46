/**
 * Runs jobs one at a time, in the order they were queued. Each caller gets its own job's result or
 * error; a job that fails does not stop or fail the jobs queued after it.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;

  /** Queues `job` behind every job queued before it; settles with the job's own outcome. */
  run<T>(job: () => T | PromiseLike<T>): Promise<T> {
    this.queued++;
    const result = this.tail.then(() => job());
    this.tail = result.then(
      () => this.finished(),
      () => this.finished(),
    );
    return result;
  }

  /** True when no job is queued or running. */
  get idle(): boolean {
    return this.queued === 0;
  }

  /** Resolves once every job queued so far has settled (never rejects). */
  whenIdle(): Promise<void> {
    return this.tail;
  }

  private finished(): void {
    this.queued--;
  }
}

/** One SerialQueue per key (a file, a session): jobs on one key run in order, different keys run side by side. */
export class KeyedSerialQueue<K> {
  private readonly queues = new Map<K, SerialQueue>();

  run<T>(key: K, job: () => T | PromiseLike<T>): Promise<T> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new SerialQueue();
      this.queues.set(key, queue);
    }
    const result = queue.run(job);
    // An idle key's queue is dropped, so the map holds only keys with work in flight.
    void queue.whenIdle().then(() => {
      if (queue.idle && this.queues.get(key) === queue) this.queues.delete(key);
    });
    return result;
  }

  /** Resolves once every job queued so far on `key` (on every key, without one) has settled; never rejects. */
  async whenIdle(key?: K): Promise<void> {
    if (key !== undefined) return this.queues.get(key)?.whenIdle();
    await Promise.all([...this.queues.values()].map((queue) => queue.whenIdle()));
  }

  /** How many keys have jobs queued or running. */
  get busyKeys(): number {
    return this.queues.size;
  }
}
