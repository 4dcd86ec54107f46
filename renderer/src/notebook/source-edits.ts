const EDIT_DELAY_MS = 250;

/**
 * A notebook's typed text on its way to main: each cell's latest source is sent after a short pause, or at once
 * before any other operation (`flush`). What is sent but not yet acknowledged is remembered, since a reload from
 * disk can overtake it in main.
 */
export class SourceEdits {
  private readonly pending = new Map<string, { timer: ReturnType<typeof setTimeout>; source: string }>();
  private readonly inflight = new Set<Promise<unknown>>();
  /** Sources sent but not yet acknowledged: a reload from disk can overtake them in main. */
  private readonly inflightSources = new Map<string, string>();

  /** `send` sends one cell's source and settles when main answered (its failure told there). */
  constructor(private readonly send: (cellId: string, source: string) => Promise<unknown>) {}

  /** The cell's text changed: sent after a short pause (or before anything else), replacing what waited. */
  later(cellId: string, source: string): void {
    const pending = this.pending.get(cellId);
    if (pending) clearTimeout(pending.timer);
    this.pending.set(cellId, { source, timer: setTimeout(() => void this.sendNow(cellId), EDIT_DELAY_MS) });
  }

  /** Sends typed-but-unsent edits, and settles when every edit sent has been answered. */
  async flush(): Promise<void> {
    for (const cellId of [...this.pending.keys()]) void this.sendNow(cellId);
    await Promise.allSettled([...this.inflight]);
  }

  private sendNow(cellId: string): Promise<unknown> {
    const pending = this.pending.get(cellId);
    if (!pending) return Promise.resolve();
    clearTimeout(pending.timer);
    this.pending.delete(cellId);
    this.inflightSources.set(cellId, pending.source);
    const job = this.send(cellId, pending.source).finally(() => {
      this.inflight.delete(job);
      if (this.inflightSources.get(cellId) === pending.source) this.inflightSources.delete(cellId);
    });
    this.inflight.add(job);
    return job;
  }

  /** Typed text main may not have applied yet, by cell: sent (in flight) or still waiting to be sent. */
  unsent(): Map<string, string> {
    const unsent = new Map(this.inflightSources);
    for (const [cellId, pending] of this.pending) unsent.set(cellId, pending.source);
    return unsent;
  }

  /** Forgets what waits to be sent and what is in flight (the document is replaced). */
  cancel(): void {
    for (const pending of this.pending.values()) clearTimeout(pending.timer);
    this.pending.clear();
    this.inflightSources.clear();
  }
}
