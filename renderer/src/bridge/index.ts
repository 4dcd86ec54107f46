import type {
  EventChannel,
  EventPayload,
  KilnBridge,
  RequestArgs,
  RequestChannel,
  RequestResult,
  Envelope,
} from '../../../shared/contract';
import { fromWireError } from '../../../shared/errors';
import { connectWebSocketBridge } from './websocket';

export { webHostToken } from './token';

interface PreloadApi {
  request(channel: string, args: unknown): Promise<Envelope<unknown>>;
  on(channel: string, listener: (payload: unknown) => void): () => void;
}

declare global {
  interface Window {
    kilnPreload?: PreloadApi;
  }
}

function preloadBridge(api: PreloadApi): KilnBridge {
  return {
    transport: 'electron',
    async request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
      const envelope = await api.request(channel, args);
      if (!envelope.ok) throw fromWireError(envelope.error);
      return envelope.value as RequestResult<C>;
    },
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) {
      return api.on(channel, listener as (payload: unknown) => void);
    },
  };
}

/** Picks the Electron preload when present, else the web host's WebSocket; the UI can't tell which. */
export async function connectBridge(): Promise<KilnBridge> {
  if (window.kilnPreload) return preloadBridge(window.kilnPreload);
  return connectWebSocketBridge(window.location);
}
