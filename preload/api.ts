import { EVENT_CHANNELS, REQUEST_CHANNELS } from '../shared/contract';

/** The part of ipcRenderer the bridge uses (so it is tested without Electron). */
export interface IpcLike {
  invoke(channel: string, args: unknown): Promise<unknown>;
  on(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, payload: unknown) => void): unknown;
}

export interface KilnPreloadApi {
  request(channel: string, args: unknown): Promise<unknown>;
  on(channel: string, listener: (payload: unknown) => void): () => void;
}

const requestChannels = new Set<string>(REQUEST_CHANNELS);
const eventChannels = new Set<string>(EVENT_CHANNELS);

/**
 * Exactly the contract, nothing else: the renderer never sees ipcRenderer, and a channel outside the
 * contract's tables never reaches it. Results come back as envelopes so error codes survive the boundary.
 */
export function createPreloadApi(ipc: IpcLike): KilnPreloadApi {
  return {
    request(channel: string, args: unknown): Promise<unknown> {
      if (typeof channel !== 'string' || !requestChannels.has(channel)) {
        return Promise.resolve({
          ok: false,
          error: { code: 'E_BAD_REQUEST', message: `Unknown channel: ${String(channel)}` },
        });
      }
      return ipc.invoke(channel, args);
    },
    on(channel: string, listener: (payload: unknown) => void): () => void {
      if (typeof channel !== 'string' || !eventChannels.has(channel))
        throw new Error(`Unknown event: ${String(channel)}`);
      const wrapped = (_event: unknown, payload: unknown): void => listener(payload);
      ipc.on(channel, wrapped);
      return () => void ipc.removeListener(channel, wrapped);
    },
  };
}
