/** A typed event source, in the spirit of Lumino's signals: listeners subscribe, `emit` calls them in order. */
export class Signal<T> {
  private readonly listeners = new Set<(value: T) => void>();

  connect(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (err) {
        // A faulty listener must not stop the others or the emitter.
        console.error('[kiln] listener failed', err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
