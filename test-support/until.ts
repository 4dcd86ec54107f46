/**
 * Waits for a state the code under test reaches on its own (a watcher event, a store update, a
 * file written by a child process). It polls the probe (which may be async), so it returns as soon as the state holds;
 * it is not a fixed sleep. To show that something did NOT happen, wait for a later event that
 * must come after it, then assert.
 */
export async function until<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A store as the renderer's stores expose themselves: a snapshot and a change subscription. */
export interface Observable<S> {
  getState(): S;
  subscribe(listener: () => void): () => void;
}

/** Resolves with the store's state once `check` holds; the store notifies, so nothing polls. */
export function untilState<S>(
  store: Observable<S>,
  check: (state: S) => boolean,
  what = 'the store state',
  timeoutMs = 15_000,
): Promise<S> {
  return new Promise((resolve, reject) => {
    if (check(store.getState())) return resolve(store.getState());
    const timer = setTimeout(() => {
      off();
      reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const off = store.subscribe(() => {
      if (!check(store.getState())) return;
      clearTimeout(timer);
      off();
      resolve(store.getState());
    });
  });
}
