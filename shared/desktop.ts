/**
 * The Electron window's few desktop actions, outside the contract because the web host has no desktop to act
 * on (a remote box's file manager is not the operator's). Paths are workspace-relative; main resolves them
 * through the path guard.
 */
export const DESKTOP_CHANNELS = {
  /** `send`, not `invoke`: the OS drag must start while the mouse button is still down. */
  startDrag: 'kiln-desktop:startDrag',
  reveal: 'kiln-desktop:reveal',
  openWithSystem: 'kiln-desktop:openWithSystem',
} as const;

/** What `openWithSystem` answers: opened, declined by the operator, or the OS's reason it could not. */
export type OpenWithSystemResult = { opened: true } | { opened: false; declined?: boolean; message?: string };

/** What the preload exposes as `window.kilnDesktop` (Electron only). */
export interface DesktopApi {
  startDrag(paths: string[]): void;
  reveal(path: string): Promise<void>;
  openWithSystem(path: string): Promise<OpenWithSystemResult>;
  /** The real path of a File dropped from the OS (Electron's webUtils.getPathForFile); '' when it has none. */
  pathForFile(file: unknown): string;
}
