import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { Outbox } from './outbox';

/** A real socket pair on loopback: `server` is the host's end the outbox writes to, `received` what the page read. */
let wss: WebSocketServer;
let server: WebSocket;
let page: WebSocket;
let received: string[];
/** What the outbox handed to the socket, in order (the socket's own send, observed). */
let written: string[];

beforeEach(async () => {
  wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  const accepted = once(wss, 'connection') as Promise<[WebSocket]>;
  page = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  received = [];
  page.on('message', (data) => received.push(String(data)));
  [server] = await accepted;
  await once(page, 'open');
  written = [];
  const send = server.send.bind(server);
  server.send = ((frame: string) => {
    written.push(frame);
    send(frame);
  }) as typeof server.send;
});

afterEach(async () => {
  page.close();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
});

/** Resolves at the next task (the check phase), with what had been written by then. */
const writtenByNextTask = () => new Promise<string[]>((resolve) => setImmediate(() => resolve([...written])));

describe('Outbox', () => {
  it('writes a frame posted outside a request when the job that posted it ends, not a task later', async () => {
    const outbox = new Outbox();
    // Scheduled before the post: the old outbox (always a task later) had written nothing when this ran.
    const byNextTask = writtenByNextTask();
    outbox.post(server, 'reply');
    expect(written).toEqual([]);
    await Promise.resolve();
    expect(written).toEqual(['reply']);
    expect(await byNextTask).toEqual(['reply']);
    outbox.dispose();
  });

  it('holds what is posted in the task a request arrived in until the next task, then writes all in order', async () => {
    const outbox = new Outbox();
    outbox.holdForRequest();
    outbox.post(server, 'queued');
    await Promise.resolve();
    outbox.post(server, 'running');
    // Every job of this task has ended: the handler's execute request went first, the events wait.
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(written).toEqual([]);
    expect(await writtenByNextTask()).toEqual(['queued', 'running']);
    outbox.post(server, 'output');
    await Promise.resolve();
    expect(written).toEqual(['queued', 'running', 'output']);
    await until(() => received.length === 3);
    expect(received).toEqual(['queued', 'running', 'output']);
    outbox.dispose();
  });

  it('keeps the order when a request arrives with frames of an earlier job still queued', async () => {
    const outbox = new Outbox();
    outbox.post(server, 'event');
    // The request arrives before the microtask that would have written 'event': both wait for its task.
    outbox.holdForRequest();
    outbox.post(server, 'queued');
    await Promise.resolve();
    expect(written).toEqual([]);
    expect(await writtenByNextTask()).toEqual(['event', 'queued']);
    outbox.dispose();
  });

  it('writes nothing after dispose, and skips sockets that closed', async () => {
    const outbox = new Outbox();
    outbox.holdForRequest();
    outbox.post(server, 'lost');
    outbox.dispose();
    expect(await writtenByNextTask()).toEqual([]);
    server.terminate();
    outbox.post(server, 'to a closed socket');
    await Promise.resolve();
    expect(written).toEqual([]);
  });
});

/** Waits for the page to have read what was written (a real socket: the bytes take a moment). */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : page.once('message', () => setImmediate(poll)));
    poll();
  });
}
