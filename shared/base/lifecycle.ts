/**
 * Disposal, in the spirit of VS Code's base/common/lifecycle.ts: whatever holds a resource (a listener,
 * a timer, a watcher, a child process) hands back an IDisposable, and whoever owns it keeps that in a
 * DisposableStore, so one `dispose()` releases everything, newest first.
 */

/** Something that holds a resource until `dispose()`. Main's services may release theirs asynchronously. */
export interface IDisposable {
  dispose(): void | Promise<void>;
}

/** Wraps a release function; it runs at most once however often `dispose()` is called. */
export function toDisposable(release: () => void | Promise<void>): IDisposable {
  let released = false;
  return {
    dispose() {
      if (released) return;
      released = true;
      return release();
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

/**
 * Disposes `items` in reverse order, each after the previous one has finished (awaited when it returns a
 * promise), so what was created last, and may depend on the rest, goes first. A failure does not stop the
 * others: they all run, then the first error is thrown (an AggregateError when several failed). With only
 * synchronous items everything has been released by the time this returns.
 */
async function disposeAll(items: readonly IDisposable[]): Promise<void> {
  const errors: unknown[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    try {
      const result = items[i].dispose();
      if (isThenable(result)) await result;
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, 'Several disposables failed to dispose');
}

/** Owns a set of disposables and releases them together, in reverse order of adding. */
export class DisposableStore implements IDisposable {
  private items: IDisposable[] = [];
  private disposing?: Promise<void>;

  get isDisposed(): boolean {
    return this.disposing !== undefined;
  }

  /** Takes ownership of `item`. Added after the store was disposed, it is disposed at once (and not kept). */
  add<T extends IDisposable>(item: T): T {
    if (this.disposing) {
      void disposeAll([item]).catch(() => undefined);
      return item;
    }
    this.items.push(item);
    return item;
  }

  /** Disposes everything added so far, newest first; later calls return the same promise. */
  dispose(): Promise<void> {
    if (!this.disposing) {
      const items = this.items;
      this.items = [];
      this.disposing = disposeAll(items);
    }
    return this.disposing;
  }
}
