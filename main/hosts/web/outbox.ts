import type WebSocket from 'ws';

/**
 * Frames to the pages, written in the order they were posted, at one of two moments:
 *
 * - Posted in the task a request arrived in: a task later (setImmediate). A request's handler announces events
 *   before it gets to what it is for (running a cell: queued, then the execute request to the kernel); written at
 *   once, each was a socket write ahead of that request.
 * - Otherwise (a reply, a kernel's output, any event of a later task): when the job that posted it ends (a
 *   microtask). A task later, an execute_result waited behind all else the same I/O poll brought (the run's reply
 *   and its bookkeeping), and a variables reply behind the kernel's idle status, both out of the run's way already.
 */
export class Outbox {
  private queued: { ws: WebSocket; frame: string }[] = [];
  /** Set from a request's arrival until the task after it: what is posted meanwhile waits for it. */
  private held: NodeJS.Immediate | null = null;
  private flushQueued = false;

  /** A request arrived: frames posted until the next task are written then. */
  holdForRequest(): void {
    this.held ??= setImmediate(() => {
      this.held = null;
      this.flush();
    });
  }

  post(ws: WebSocket, frame: string): void {
    this.queued.push({ ws, frame });
    if (this.held || this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      // A request arrived since: its task-later write takes these too, in order.
      if (!this.held) this.flush();
    });
  }

  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    for (const { ws, frame } of queued) if (ws.readyState === ws.OPEN) ws.send(frame);
  }

  /** The host closes: what is still queued goes nowhere (its sockets are being closed). */
  dispose(): void {
    if (this.held) clearImmediate(this.held);
    this.held = null;
    this.queued = [];
  }
}
