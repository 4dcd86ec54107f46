import { app, BrowserWindow, dialog, ipcMain, Menu, net, protocol, session, shell, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import Store from 'electron-store';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REQUEST_CHANNELS } from '../../../shared/contract';
import { contentSecurityPolicy } from '../../../shared/csp';
import { MCP_USAGE, mcpArgumentsOf, parseMcpArguments, serveMcpOverStdio } from '../../mcp';
import { dispatch } from '../../router';
import { createServices, type Services } from '../../services';
import { defaultDataDir, ensureDataDir } from '../data-dir';
import { rendererFile } from '../renderer-file';

const here = path.dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = path.resolve(here, '../renderer');
const PRELOAD = path.resolve(here, '../preload/index.cjs');
const APP_ORIGIN = 'kiln://app';
// Only these permissions are ever granted: copying to the clipboard from the tree and editor.
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write']);

protocol.registerSchemesAsPrivileged([
  { scheme: 'kiln', privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
]);

let window: BrowserWindow | null = null;
let services: Services | null = null;

async function chooseWorkspace(store: Store<Record<string, unknown>>): Promise<string | null> {
  // Command line first (the first non-flag argument after the app path), then the last one, then a picker.
  const fromArgs = process.argv.slice(app.isPackaged ? 1 : 2).find((arg) => !arg.startsWith('-') && arg !== '.');
  for (const candidate of [fromArgs, store.get('lastWorkspace') as string | undefined]) {
    if (candidate && (await stat(candidate).then((s) => s.isDirectory(), () => false))) return path.resolve(candidate);
  }
  const picked = await dialog.showOpenDialog({ title: 'Open a workspace folder', properties: ['openDirectory', 'createDirectory'] });
  return picked.canceled ? null : (picked.filePaths[0] ?? null);
}

/** Every IPC request must come from Kiln's own window and its own page, never a frame or another origin. */
function isFromKilnWindow(event: IpcMainInvokeEvent): boolean {
  if (!window || event.sender !== window.webContents) return false;
  const frameUrl = event.senderFrame?.url ?? '';
  return frameUrl.startsWith(`${APP_ORIGIN}/`) || (Boolean(process.env.ELECTRON_RENDERER_URL) && frameUrl.startsWith(process.env.ELECTRON_RENDERER_URL!));
}

function serveRenderer(): void {
  protocol.handle('kiln', async (request) => {
    const url = new URL(request.url);
    const file = rendererFile(RENDERER_DIR, url.pathname);
    if (!file) return new Response('Not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', contentSecurityPolicy());
    return new Response(response.body, { status: response.status, headers });
  });
}

function hardenSessions(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
  ses.setPermissionCheckHandler((_wc, permission) => ALLOWED_PERMISSIONS.has(permission));
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      // Links open in the OS browser, and only plain web links.
      if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
  });
}

function bindContract(svc: Services): void {
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(channel, (event, args: unknown) => {
      if (!isFromKilnWindow(event)) return { ok: false, error: { code: 'E_BAD_REQUEST', message: 'Request from an unknown frame' } };
      return dispatch(svc.handlers, channel, args);
    });
  }
  svc.hub.subscribe((event) => {
    if (window && !window.isDestroyed()) window.webContents.send(event.channel, event.payload);
  });
}

async function start(): Promise<void> {
  const dataDir = process.env.KILN_DATA_DIR ? defaultDataDir() : app.getPath('userData');
  await ensureDataDir(dataDir);
  const store = new Store<Record<string, unknown>>({ cwd: dataDir, name: 'prefs', configFileMode: 0o600 });
  hardenSessions();
  serveRenderer();
  const root = await chooseWorkspace(store);
  if (!root) {
    app.quit();
    return;
  }
  services = await createServices({ root, dataDir, prefsStore: store });
  store.set('lastWorkspace', services.workspace.root);
  bindContract(services);
  const menu: MenuItemConstructorOptions[] = [{ role: 'editMenu' }, { role: 'viewMenu' }, { role: 'windowMenu' }];
  if (process.platform === 'darwin') menu.unshift({ role: 'appMenu' });
  Menu.setApplicationMenu(Menu.buildFromTemplate(menu));

  window = new BrowserWindow({
    width: 1400,
    height: 900,
    title: `Kiln — ${services.workspace.name}`,
    show: false,
    webPreferences: {
      preload: PRELOAD,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  window.once('ready-to-show', () => window?.show());
  window.on('closed', () => (window = null));
  await window.loadURL(process.env.ELECTRON_RENDERER_URL ?? `${APP_ORIGIN}/index.html`);
}

// `kiln --mcp <folder>`: the packaged app serves the workspace verbs over MCP on stdio, with no window.
const mcpArgs = mcpArgumentsOf(process.argv);
if (mcpArgs) {
  app.dock?.hide();
  Promise.resolve()
    .then(() => serveMcpOverStdio(parseMcpArguments(mcpArgs), { cwd: process.cwd(), exit: (code) => app.exit(code) }))
    .catch((err: unknown) => {
      process.stderr.write(`kiln --mcp: ${err instanceof Error ? err.message : String(err)}\nusage: kiln --mcp ${MCP_USAGE}\n`);
      app.exit(1);
    });
} else {
  startApp();
}

function startApp(): void {
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (!services) return;
    // Stop the Jupyter server and watchers before exiting so no process outlives Kiln.
    event.preventDefault();
    const closing = services;
    services = null;
    void closing.dispose().finally(() => app.quit());
  });
  app.enableSandbox();
  // The main process is the daemon: a stray failure is logged, never fatal.
  process.on('unhandledRejection', (err) => console.error('Kiln: unexpected error:', err));
  void app.whenReady().then(start).catch((err: Error) => {
    dialog.showErrorBox('Kiln could not start', err.message);
    app.quit();
  });
}
