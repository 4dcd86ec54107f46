import WebSocket from 'ws';
import type { EventChannel, EventPayload, RequestArgs, RequestChannel, RequestResult } from '../shared/contract';
import { startWebHost, type WebHost } from '../main/hosts/web/server';
import type { Services } from '../main/services';
import { AUTH_OK, authMessage } from '../shared/web-auth';

/** The contract as the renderer speaks it: requests and events over the web host's WebSocket. */
export interface ContractClient {
  request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>>;
  /** Resolves with the first event on `channel` that `match` accepts. */
  next<E extends EventChannel>(channel: E, match?: (payload: EventPayload<E>) => boolean): Promise<EventPayload<E>>;
  /** Calls `listener` with every event on `channel` until the returned function is called. */
  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
  close(): Promise<void>;
}

/**
 * Opens the web host's socket and authenticates it as the page does: the token as its first message, ready once
 * the host accepts it (shared/web-auth.ts).
 */
export async function openContractSocket(port: number, token: string, host = `127.0.0.1:${port}`): Promise<WebSocket> {
  const socket = new WebSocket(`ws://${host}/ws`);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', (code, reason) =>
      reject(new Error(`the web host closed the socket: ${code} ${String(reason)}`)),
    );
    socket.once('open', () => socket.send(authMessage(token)));
    socket.once('message', (data) =>
      String(data) === JSON.stringify(AUTH_OK) ? resolve() : reject(new Error(`not accepted: ${String(data)}`)),
    );
  });
  return socket;
}

export async function connectContract(services: Services, staticDir: string): Promise<ContractClient> {
  const host: WebHost = await startWebHost({ services, staticDir });
  const socket = await openContractSocket(host.port, host.token);
  let id = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(event: string, payload: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      ok?: boolean;
      value?: unknown;
      error?: { message: string };
      event?: string;
      payload?: unknown;
    };
    if (message.event) {
      for (const listener of listeners) listener(message.event, message.payload);
      return;
    }
    const pending = waiting.get(message.id!);
    if (!pending) return;
    waiting.delete(message.id!);
    if (message.ok) pending.resolve(message.value);
    else pending.reject(new Error(message.error?.message ?? 'request failed'));
  });
  return {
    request<C extends RequestChannel>(channel: C, args: RequestArgs<C>) {
      const mine = ++id;
      return new Promise<RequestResult<C>>((resolve, reject) => {
        waiting.set(mine, { resolve: resolve as (v: unknown) => void, reject });
        socket.send(JSON.stringify({ id: mine, channel, args }));
      });
    },
    next<E extends EventChannel>(channel: E, match?: (payload: EventPayload<E>) => boolean) {
      return new Promise<EventPayload<E>>((resolve) => {
        const listener = (event: string, payload: unknown) => {
          if (event !== channel || (match && !match(payload as EventPayload<E>))) return;
          listeners.delete(listener);
          resolve(payload as EventPayload<E>);
        };
        listeners.add(listener);
      });
    },
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) {
      const forward = (event: string, payload: unknown) => {
        if (event === channel) listener(payload as EventPayload<E>);
      };
      listeners.add(forward);
      return () => void listeners.delete(forward);
    },
    async close() {
      socket.close();
      await host.close();
    },
  };
}
