/**
 * The Electron host's security decisions as plain functions, so they are tested without launching Electron
 * (main.ts only wires them to Electron's events).
 */

import { frameDenyingHeaders } from '../../../shared/csp';

/** Kiln's own page: the renderer served over the privileged kiln:// scheme. */
export const APP_ORIGIN = 'kiln://app';

/** Only these permissions are ever granted: copying to the clipboard from the tree, editor and notebook. */
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);
/**
 * Granted to Kiln's own page only (its top frame): reading the clipboard, for pasting cells copied in another
 * window or in JupyterLab. A sandboxed output's frame or any other page never reads what the operator copied.
 */
const OWN_PAGE_PERMISSIONS = new Set(['clipboard-read']);

export function isPermissionAllowed(
  permission: string,
  requester: { url: string | undefined; isMainFrame: boolean } = { url: undefined, isMainFrame: false },
  devUrl: string | null = null,
): boolean {
  if (ALLOWED_PERMISSIONS.has(permission)) return true;
  if (!OWN_PAGE_PERMISSIONS.has(permission) || !requester.isMainFrame || !requester.url) return false;
  const origin = originOf(requester.url);
  return origin !== null && (origin === APP_ORIGIN || (devUrl !== null && origin === devUrl));
}

/** A page's origin; kiln://app/... has an opaque origin in WHATWG terms, so its scheme and host stand for it. */
function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'kiln:' ? `kiln://${parsed.host}` : parsed.origin;
  } catch {
    return null;
  }
}

/**
 * The dev server URL (electron-vite's ELECTRON_RENDERER_URL) is honoured only in an unpackaged build and only
 * on loopback; a packaged app always loads its own bundled page, whatever the environment says.
 */
export function devRendererUrl(env: Record<string, string | undefined>, isPackaged: boolean): string | null {
  const given = env.ELECTRON_RENDERER_URL;
  if (isPackaged || !given) return null;
  try {
    const url = new URL(given);
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? url.origin : null;
  } catch {
    return null;
  }
}

/** The page the window loads. */
export function rendererEntryUrl(devUrl: string | null): string {
  return devUrl ? `${devUrl}/` : `${APP_ORIGIN}/index.html`;
}

/**
 * Every IPC request must come from Kiln's own window and from its own page (the top frame's origin), never
 * from a subframe or a page that navigated elsewhere.
 */
export function isTrustedSender(
  sender: { isKilnWindow: boolean; frameUrl: string | undefined; isMainFrame: boolean },
  devUrl: string | null,
): boolean {
  if (!sender.isKilnWindow || !sender.isMainFrame || !sender.frameUrl) return false;
  const origin = originOf(sender.frameUrl);
  return origin !== null && (origin === APP_ORIGIN || (devUrl !== null && origin === devUrl));
}

/**
 * The headers of every kiln:// response, over what the file itself had: the renderer's CSP (frame-ancestors
 * 'none') and X-Frame-Options DENY. The window loads only Kiln's page and navigates nowhere, so no other page can
 * host it; these also keep a notebook output's frame (whose 'self' is kiln://app) from loading Kiln inside it.
 */
export function rendererResponseHeaders(fileHeaders: Headers): Headers {
  const headers = new Headers(fileHeaders);
  for (const [name, value] of Object.entries(frameDenyingHeaders())) headers.set(name, value);
  return headers;
}

/** will-navigate, will-frame-navigate, will-redirect: Kiln is one page; nothing navigates it anywhere. */
export function allowsNavigation(_url: string): boolean {
  return false;
}

/** window.open and target=_blank links: never a new Electron window; web links may go to the OS browser. */
export function windowOpenDecision(url: string): { action: 'deny'; external: string | null } {
  return { action: 'deny', external: externalLinkOf(url) };
}

/** A URL the OS browser may open: http(s) only, never file:, javascript:, custom schemes or credentials. */
export function externalLinkOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    if (parsed.username || parsed.password) return null;
    return parsed.href;
  } catch {
    return null;
  }
}

/** The confirmation shown before a link leaves Kiln; it names the exact URL. */
export function externalLinkConfirmation(url: string): {
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
} {
  return {
    message: 'Open this link in your browser?',
    detail: url,
    buttons: ['Open', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  };
}

/** The application menu: no developer tools in a packaged build. */
export function applicationMenuTemplate(
  isPackaged: boolean,
  platform: NodeJS.Platform,
): Array<{ role?: string; label?: string; submenu?: Array<{ role?: string; type?: string }> }> {
  const view = isPackaged
    ? {
        label: 'View',
        submenu: [
          { role: 'resetZoom' },
          { role: 'zoomIn' },
          { role: 'zoomOut' },
          { type: 'separator' },
          { role: 'togglefullscreen' },
        ],
      }
    : { role: 'viewMenu' };
  const menu = [{ role: 'editMenu' }, view, { role: 'windowMenu' }];
  return platform === 'darwin' ? [{ role: 'appMenu' }, ...menu] : menu;
}

/**
 * The folder a launch asks for: the first non-flag argument after the executable (and, unpackaged, after the
 * app path), relative to the launch's working folder. `--mcp` launches open no window.
 */
export function folderFromArgv(
  argv: readonly string[],
  isPackaged: boolean,
  cwd: string,
  resolve: (cwd: string, p: string) => string,
): string | null {
  const args = argv.slice(isPackaged ? 1 : 2);
  const folder = args.find((arg) => !arg.startsWith('-') && arg !== '.');
  return folder ? resolve(cwd, folder) : null;
}

/** Closing the window with dirty tabs: the three answers VS Code offers, in its order. */
export const DIRTY_CLOSE_BUTTONS = ['Save All', "Don't Save", 'Cancel'] as const;
export type DirtyCloseChoice = 'saveAll' | 'dontSave' | 'cancel';

/**
 * Whether closing the window asks first. With hot exit on (the default, as VS Code's `files.hotExit`) it
 * never does: the dirty tabs are backed up and come back. Off, it asks when a tab is dirty, unless the close
 * follows the operator's own answer (`confirmed`).
 */
export function closeDecision(state: { hotExit: boolean; dirtyCount: number; confirmed: boolean }): 'close' | 'ask' {
  return state.confirmed || state.hotExit || state.dirtyCount === 0 ? 'close' : 'ask';
}

/** The question's text for the dirty tabs' paths (at most a few named, as VS Code does). */
export function dirtyCloseMessage(paths: readonly string[]): { message: string; detail: string } {
  const shown = paths.slice(0, 5).map((p) => p.slice(p.lastIndexOf('/') + 1));
  const more = paths.length - shown.length;
  const message =
    paths.length === 1
      ? `Do you want to save the changes you made to ${shown[0]}?`
      : `Do you want to save the changes to the following ${paths.length} files?`;
  const list = paths.length === 1 ? '' : `${shown.join('\n')}${more > 0 ? `\n…and ${more} more` : ''}\n\n`;
  return { message, detail: `${list}Your changes will be lost if you don't save them.` };
}

/** The button the dialog returned (its index; Escape and closing the dialog give the cancel index) as a choice. */
export function dirtyCloseChoice(response: number): DirtyCloseChoice {
  return response === 0 ? 'saveAll' : response === 1 ? 'dontSave' : 'cancel';
}
