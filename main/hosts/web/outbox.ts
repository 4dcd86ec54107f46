import type WebSocket from 'ws';

/**
 * Frames to the pages, written a task later (setImmediate) in the order they were posted. A request's
 * handler announces events before it gets to what it is for (running a cell: queued, dirty, outputs
 * cleared, running, and only then the execute request to the kernel); written at once, each was a socket
 * write ahead of that request. Replies go through the same outbox, so none overtakes an event announced
 * before it.
 */
export class Outbox {
  private queued: { ws: WebSocket; frame: string }[] = [];
  private scheduled: NodeJS.Immediate | null = null;

  post(ws: WebSocket, frame: string): void {
    this.queued.push({ ws, frame });
    this.scheduled ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = null;
    const queued = this.queued;
    this.queued = [];
    for (const { ws, frame } of queued) if (ws.readyState === ws.OPEN) ws.send(frame);
  }

  /** The host closes: what is still queued goes nowhere (its sockets are being closed). */
  dispose(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    this.queued = [];
  }
}
