import type {
  EventChannel,
  EventPayload,
  KilnBridge,
  RequestArgs,
  RequestChannel,
  RequestResult,
  Envelope,
} from '../../../shared/contract';
import { fromWireError, KilnError } from '../../../shared/errors';
import { authMessage, WS_CLOSE_AUTH_TIMEOUT, WS_CLOSE_UNAUTHORIZED } from '../../../shared/web-auth';
import { takeToken } from './token';

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };
type Reply = Envelope<unknown> & { id: number };
type EventFrame = { event: string; payload: unknown };
type AuthFrame = { auth: 'ok' };

/**
 * The contract over the web host's single WebSocket; request ids pair replies with calls. The socket's first
 * message is the token (shared/web-auth.ts); the bridge is ready when the host says it was accepted.
 */
export function connectWebSocketBridge(location: Location, storage?: Storage): Promise<KilnBridge> {
  const token = takeToken(location, storage);
  if (!token)
    return Promise.reject(
      new KilnError(
        'E_DISCONNECTED',
        'this page needs the address with the token printed when the web host started (Kiln web host: …?token=…)',
      ),
    );
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  const pending = new Map<number, Pending>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let nextId = 1;
  let socket: WebSocket;
  let closedError: KilnError | null = null;

  const bridge: KilnBridge = {
    transport: 'websocket',
    request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
      if (closedError) return Promise.reject(closedError);
      const id = nextId++;
      return new Promise<RequestResult<C>>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        socket.send(JSON.stringify({ id, channel, args }));
      });
    },
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener as (payload: unknown) => void);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };

  return new Promise((resolve, reject) => {
    socket = new WebSocket(url);
    socket.addEventListener('open', () => socket.send(authMessage(token)));
    socket.addEventListener('message', (message) => {
      const frame = JSON.parse(String(message.data)) as Reply | EventFrame | AuthFrame;
      if ('auth' in frame) return resolve(bridge);
      if ('event' in frame) {
        for (const listener of listeners.get(frame.event) ?? []) listener(frame.payload);
        return;
      }
      const call = pending.get(frame.id);
      if (!call) return;
      pending.delete(frame.id);
      if (frame.ok) call.resolve(frame.value);
      else call.reject(fromWireError(frame.error));
    });
    socket.addEventListener('close', (event) => {
      closedError = new KilnError('E_DISCONNECTED', closedMessage(event));
      for (const call of pending.values()) call.reject(closedError);
      pending.clear();
      reject(closedError);
      window.dispatchEvent(new CustomEvent('kiln-disconnected'));
    });
  });
}

/** Why the socket closed, as the page says it: the host's refusal of the token, or a lost connection. */
function closedMessage(event: CloseEvent): string {
  if (event.code === WS_CLOSE_UNAUTHORIZED)
    return 'the web host refused this token; open the address it printed when it started';
  if (event.code === WS_CLOSE_AUTH_TIMEOUT) return 'the web host closed the connection before the token arrived';
  return 'Lost the connection to Kiln; reload to reconnect';
}
