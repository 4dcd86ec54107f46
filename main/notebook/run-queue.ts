import type { CellRunResult } from '../../shared/contract';
import type { CellJson } from './format';

/** One cell waiting for (or holding) the kernel. */
export interface QueuedRun {
  cell: CellJson;
  /** Shared by the cells of one "run all/above/below": the first failure stops the rest. */
  batch: { stopped: boolean } | null;
  allowStdin: boolean;
  resolve: (result: CellRunResult) => void;
  reject: (err: unknown) => void;
}

/** What a queue asks of its notebook. */
export interface RunQueueHooks {
  /** Runs the cell on the kernel and resolves with its result. */
  execute(run: QueuedRun): Promise<CellRunResult>;
  /** The result of a cell that will not run, with why when known (and tells the UI it is idle again). */
  aborted(cell: CellJson, reason?: string): CellRunResult;
  queued(cell: CellJson): void;
  /** `execute` threw: the cell is idle again, without a result. */
  failed(cell: CellJson): void;
  /** The last run ended and nothing waits: the kernel's state may have changed. */
  drained?(): void;
}

/** A notebook's cells run one at a time, in the order they were asked for, as in JupyterLab. */
export class RunQueue {
  private queue: QueuedRun[] = [];
  private running: QueuedRun | null = null;
  private pumping = false;

  constructor(private readonly hooks: RunQueueHooks) {}

  /** Something is running or waiting. */
  get busy(): boolean {
    return this.running !== null || this.queue.length > 0;
  }

  stateOf(cell: CellJson): 'queued' | 'running' | 'idle' {
    if (this.running?.cell === cell) return 'running';
    return this.queue.some((run) => run.cell === cell) ? 'queued' : 'idle';
  }

  /** Queues the cells as one batch (a batch of several stops at its first error). */
  enqueue(cells: CellJson[], allowStdin: boolean): Promise<CellRunResult[]> {
    const batch = cells.length > 1 ? { stopped: false } : null;
    const promises = cells.map(
      (cell) =>
        new Promise<CellRunResult>((resolve, reject) => {
          this.queue.push({ cell, batch, allowStdin, resolve, reject });
          if (cell.cell_type === 'code') this.hooks.queued(cell);
        }),
    );
    void this.pump();
    return Promise.all(promises);
  }

  /** The cell is gone: if it was waiting, it reports 'aborted'. */
  drop(cell: CellJson): void {
    this.queue = this.queue.filter((run) => {
      if (run.cell !== cell) return true;
      run.resolve(this.hooks.aborted(cell));
      return false;
    });
  }

  /**
   * Drops every queued run (they report 'aborted', with `reason` when given); the running one is left to the
   * kernel (interrupt/restart ends it).
   */
  abort(reason?: string): void {
    const queued = this.queue.splice(0);
    for (const run of queued) {
      if (run.batch) run.batch.stopped = true;
      run.resolve(this.hooks.aborted(run.cell, reason));
    }
    if (this.running?.batch) this.running.batch.stopped = true;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const run = this.queue.shift()!;
        if (run.batch?.stopped) {
          run.resolve(this.hooks.aborted(run.cell));
          continue;
        }
        this.running = run;
        try {
          const result = await this.hooks.execute(run);
          if (result.had_error && run.batch) run.batch.stopped = true;
          run.resolve(result);
        } catch (err) {
          if (run.batch) run.batch.stopped = true;
          this.hooks.failed(run.cell);
          run.reject(err);
          // Without a kernel the rest of the queue cannot run either.
          this.abort();
        } finally {
          this.running = null;
        }
      }
    } finally {
      this.pumping = false;
      if (this.queue.length === 0) this.hooks.drained?.();
    }
  }
}
