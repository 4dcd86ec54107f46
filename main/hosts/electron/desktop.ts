import {
  dialog,
  ipcMain,
  nativeImage,
  shell,
  type BrowserWindow,
  type IpcMainEvent,
  type IpcMainInvokeEvent,
} from 'electron';
import path from 'node:path';
import { DESKTOP_CHANNELS, type OpenWithSystemResult } from '../../../shared/desktop';
import {
  dragPathsInside,
  openWithSystemDecision,
  openWithSystemQuestion,
  openWithSystemTarget,
} from '../../desktop/policy';
import { KilnError } from '../../../shared/errors';
import type { Services } from '../../services';
import { PathGuard } from '../../workspace';

// A drag image must not be empty on macOS: a small document glyph, drawn once.
const DRAG_ICON_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAJUlEQVR4nGNgoBaIior6TwrGasCHDx+IwqMGjBow3A2gKDORCwBY9CuXdPrJfAAAAABJRU5ErkJggg==';

interface DesktopBinding {
  services: () => Services | null;
  window: () => BrowserWindow | null;
  isFromKilnWindow: (event: IpcMainInvokeEvent | IpcMainEvent) => boolean;
}

/**
 * The window's desktop actions: a native drag of tree rows out to other apps, Reveal in File Manager and
 * Open with System Application. Each path is resolved through the workspace's guard here, in main; the
 * renderer only names workspace-relative paths.
 */
export function bindDesktop(binding: DesktopBinding): () => void {
  // Types the operator agreed to open from an untrusted folder, per folder, for this run.
  const approvedTypes = new Map<string, Set<string>>();
  const guardOf = (svc: Services) => new PathGuard(svc.workspace.root);

  ipcMain.on(DESKTOP_CHANNELS.startDrag, (event, requested: unknown) => {
    const svc = binding.services();
    if (!svc || !binding.isFromKilnWindow(event)) return;
    const files = dragPathsInside(guardOf(svc), requested);
    if (files.length)
      event.sender.startDrag({ file: files[0]!, files, icon: nativeImage.createFromDataURL(DRAG_ICON_URL) });
  });

  ipcMain.handle(DESKTOP_CHANNELS.reveal, async (event, rel: unknown) => {
    const svc = binding.services();
    if (!svc || !binding.isFromKilnWindow(event) || typeof rel !== 'string') return;
    shell.showItemInFolder(await guardOf(svc).resolve(rel));
  });

  ipcMain.handle(DESKTOP_CHANNELS.openWithSystem, async (event, rel: unknown): Promise<OpenWithSystemResult> => {
    const svc = binding.services();
    if (!svc || !binding.isFromKilnWindow(event) || typeof rel !== 'string')
      return { opened: false, message: 'Not available' };
    // Judged and opened by its real target: a link named notes.txt to run.sh is a ".sh", and one leading out is refused.
    let target: Awaited<ReturnType<typeof openWithSystemTarget>>;
    try {
      target = await openWithSystemTarget(guardOf(svc), rel);
    } catch (err) {
      // Refused (outside, missing): said where the operator asked, as the OS's own failures are.
      if (err instanceof KilnError) return { opened: false, message: err.message };
      throw err;
    }
    const { real, type, linkName } = target;
    const trust = await svc.handlers['trust.get']({});
    const approved = approvedTypes.get(svc.workspace.root) ?? new Set<string>();
    approvedTypes.set(svc.workspace.root, approved);
    if (openWithSystemDecision({ trusted: trust.trusted, type, approvedTypes: approved }) === 'ask') {
      const question = { type: 'warning' as const, ...openWithSystemQuestion(path.basename(real), type, linkName) };
      const win = binding.window();
      const answer = win ? await dialog.showMessageBox(win, question) : await dialog.showMessageBox(question);
      if (answer.response !== 0) return { opened: false, declined: true };
      approved.add(type);
    }
    const failure = await shell.openPath(real);
    return failure ? { opened: false, message: failure } : { opened: true };
  });

  return () => {
    ipcMain.removeAllListeners(DESKTOP_CHANNELS.startDrag);
    ipcMain.removeHandler(DESKTOP_CHANNELS.reveal);
    ipcMain.removeHandler(DESKTOP_CHANNELS.openWithSystem);
  };
}
