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

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };
type Reply = Envelope<unknown> & { id: number };
type EventFrame = { event: string; payload: unknown };

/** The contract over the web host's single WebSocket; request ids pair replies with calls. */
export function connectWebSocketBridge(location: Location): Promise<KilnBridge> {
  forgetTokenInAddress(location);
  // The host set its token as an HttpOnly cookie with this page; the upgrade carries it, the page never sees it.
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
    socket.addEventListener('open', () => resolve(bridge));
    socket.addEventListener('message', (message) => {
      const frame = JSON.parse(String(message.data)) as Reply | EventFrame;
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
    socket.addEventListener('close', () => {
      closedError = new KilnError('E_DISCONNECTED', 'Lost the connection to Kiln; reload to reconnect');
      for (const call of pending.values()) call.reject(closedError);
      pending.clear();
      reject(closedError);
      window.dispatchEvent(new CustomEvent('kiln-disconnected'));
    });
  });
}

/** The token leaves no trace in the address bar, history or a copied link once the page has loaded with it. */
function forgetTokenInAddress(location: Location): void {
  const params = new URLSearchParams(location.search);
  if (!params.has('token')) return;
  params.delete('token');
  const query = params.toString();
  window.history.replaceState(
    window.history.state,
    '',
    `${location.pathname}${query ? `?${query}` : ''}${location.hash}`,
  );
}
