import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENT_CHANNELS, REQUEST_CHANNELS } from '../shared/contract';

const requestChannels = new Set<string>(REQUEST_CHANNELS);
const eventChannels = new Set<string>(EVENT_CHANNELS);

/**
 * Exactly the contract, nothing else: the renderer never sees ipcRenderer.
 * Results come back as envelopes so error codes survive the boundary.
 */
contextBridge.exposeInMainWorld('kilnPreload', {
  request(channel: string, args: unknown): Promise<unknown> {
    if (!requestChannels.has(channel)) return Promise.resolve({ ok: false, error: { code: 'E_BAD_REQUEST', message: `Unknown channel: ${channel}` } });
    return ipcRenderer.invoke(channel, args);
  },
  on(channel: string, listener: (payload: unknown) => void): () => void {
    if (!eventChannels.has(channel)) throw new Error(`Unknown event: ${channel}`);
    const wrapped = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(channel, wrapped);
    return () => ipcRenderer.removeListener(channel, wrapped);
  },
});
