import { DESKTOP_CHANNELS, type DesktopApi, type OpenWithSystemResult } from '../shared/desktop';

/** The part of ipcRenderer and webUtils the desktop API uses (so it is tested without Electron). */
export interface DesktopIpcLike {
  send(channel: string, ...args: unknown[]): void;
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
}

/** Only strings cross; main validates them again and resolves them through the path guard. */
export function createDesktopApi(ipc: DesktopIpcLike, getPathForFile: (file: never) => string): DesktopApi {
  const paths = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : [];
  return {
    startDrag: (list) => ipc.send(DESKTOP_CHANNELS.startDrag, paths(list)),
    reveal: async (path) => void (await ipc.invoke(DESKTOP_CHANNELS.reveal, String(path))),
    openWithSystem: async (path) =>
      (await ipc.invoke(DESKTOP_CHANNELS.openWithSystem, String(path))) as OpenWithSystemResult,
    pathForFile: (file) => {
      try {
        return getPathForFile(file as never);
      } catch {
        return '';
      }
    },
  };
}
