import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  net,
  protocol,
  session,
  shell,
  type IpcMainEvent,
  utilityProcess,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
} from 'electron';
import Store from 'electron-store';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REQUEST_CHANNELS } from '../../../shared/contract';
import { MCP_USAGE, mcpArgumentsOf, parseMcpArguments, serveMcpOverStdio } from '../../mcp';
import { exportPdf, PDF_OPTIONS } from '../../notebook-export';
import { dispatch } from '../../router';
import { createServices, type Services } from '../../services';
import { uploadHandlers } from '../../upload';
import type { NodeScriptLauncher } from '../../language-server';
import { createLogger, startLog } from '../../log';
import { openDataDir } from '../data-dir';
import { bindDesktop } from './desktop';
import { rendererFile } from '../renderer-file';
import {
  allowsNavigation,
  applicationMenuTemplate,
  closeDecision,
  DIRTY_CLOSE_BUTTONS,
  dirtyCloseChoice,
  dirtyCloseMessage,
  devRendererUrl,
  externalLinkConfirmation,
  externalLinkOf,
  folderFromArgv,
  isPermissionAllowed,
  isTrustedSender,
  rendererEntryUrl,
  rendererResponseHeaders,
  windowOpenDecision,
} from './policy';

const here = path.dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = path.resolve(here, '../renderer');
const PRELOAD = path.resolve(here, '../preload/index.cjs');
// Only an unpackaged build may load a dev server's page, and only on loopback.
const DEV_URL = devRendererUrl(process.env, app.isPackaged);

protocol.registerSchemesAsPrivileged([
  { scheme: 'kiln', privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
]);

let window: BrowserWindow | null = null;
let services: Services | null = null;
let unbindContract: (() => void) | null = null;
let store: Store<Record<string, unknown>> | null = null;
let dataDir = '';

async function isFolder(candidate: string | null | undefined): Promise<boolean> {
  return (
    Boolean(candidate) &&
    (await stat(candidate!).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  );
}

async function chooseWorkspace(): Promise<string | null> {
  // Command line first, then the last one opened, then a picker.
  const fromArgs = folderFromArgv(process.argv, app.isPackaged, process.cwd(), path.resolve);
  for (const candidate of [fromArgs, store?.get('lastWorkspace') as string | undefined]) {
    if (await isFolder(candidate)) return path.resolve(candidate!);
  }
  const picked = await dialog.showOpenDialog({
    title: 'Open a workspace folder',
    properties: ['openDirectory', 'createDirectory'],
  });
  return picked.canceled ? null : (picked.filePaths[0] ?? null);
}

function isFromKilnWindow(event: IpcMainInvokeEvent | IpcMainEvent): boolean {
  const frame = event.senderFrame;
  return isTrustedSender(
    {
      isKilnWindow: Boolean(window) && event.sender === window!.webContents,
      frameUrl: frame?.url,
      isMainFrame: frame?.parent === null,
    },
    DEV_URL,
  );
}

function serveRenderer(): void {
  protocol.handle('kiln', async (request) => {
    const url = new URL(request.url);
    const file = rendererFile(RENDERER_DIR, url.pathname);
    if (!file) return new Response('Not found', { status: 404 });
    const response = await net.fetch(pathToFileURL(file).toString());
    return new Response(response.body, { status: response.status, headers: rendererResponseHeaders(response.headers) });
  });
}

/** A web link leaves Kiln only for the OS browser, and only after the operator saw the exact URL. */
async function openExternalAfterConfirming(url: string): Promise<void> {
  const link = externalLinkOf(url);
  if (!link) return;
  const options = externalLinkConfirmation(link);
  const answer = window
    ? await dialog.showMessageBox(window, { type: 'question', ...options })
    : await dialog.showMessageBox({ type: 'question', ...options });
  if (answer.response === 0) await shell.openExternal(link);
}

function hardenSessions(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback, details) =>
    callback(
      isPermissionAllowed(permission, { url: details.requestingUrl, isMainFrame: details.isMainFrame }, DEV_URL),
    ),
  );
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin, details) =>
    isPermissionAllowed(
      permission,
      { url: details.requestingUrl ?? requestingOrigin, isMainFrame: details.isMainFrame },
      DEV_URL,
    ),
  );
  app.on('web-contents-created', (_event, contents) => {
    const refuse = (event: { preventDefault(): void; url?: string }) => {
      if (!allowsNavigation(event.url ?? '')) event.preventDefault();
    };
    contents.on('will-navigate', refuse);
    contents.on('will-frame-navigate', refuse);
    contents.on('will-redirect', refuse);
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      const decision = windowOpenDecision(url);
      if (decision.external) void openExternalAfterConfirming(decision.external);
      return { action: decision.action };
    });
  });
}

/** Export as PDF: the window's rendering of the marked notebook, printed by Chromium, saved where the operator says. */
async function exportPdfOfWindow(root: string, notebook: string) {
  const win = window;
  if (!win || win.isDestroyed()) return { status: 'print-dialog' as const };
  const file = await exportPdf(
    {
      chooseFile: async (defaultPath) => {
        const picked = await dialog.showSaveDialog(win, {
          title: 'Export as PDF',
          defaultPath,
          filters: [{ name: 'PDF', extensions: ['pdf'] }],
        });
        return picked.canceled ? null : (picked.filePath ?? null);
      },
      print: () => win.webContents.printToPDF(PDF_OPTIONS),
      write: (target, bytes) => writeFile(target, bytes),
    },
    root,
    notebook,
  );
  return file ? { status: 'saved' as const, file } : { status: 'cancelled' as const };
}

function bindContract(svc: Services): () => void {
  // Dropped files' real paths are the operator's own here: copying in by path is the desktop app's.
  const handlers: Services['handlers'] = {
    ...svc.handlers,
    ...uploadHandlers(svc.workspace, { localPaths: true }),
    'notebook.exportPdf': ({ path: notebook }) => exportPdfOfWindow(svc.workspace.root, notebook),
  };
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(channel, (event, args: unknown) => {
      if (!isFromKilnWindow(event))
        return { ok: false, error: { code: 'E_BAD_REQUEST', message: 'Request from an unknown frame' } };
      return dispatch(handlers, channel, args);
    });
  }
  const forwarding = svc.hub.onEvent((event) => {
    if (window && !window.isDestroyed()) window.webContents.send(event.channel, event.payload);
  });
  return () => {
    void forwarding.dispose();
    for (const channel of REQUEST_CHANNELS) ipcMain.removeHandler(channel);
  };
}

/**
 * The folder-open flow: the one place a workspace is opened, and so the one place `lastWorkspace` is
 * written (the renderer cannot set it). Opening another folder replaces the running one's services.
 */
async function openWorkspace(root: string): Promise<void> {
  if (services && path.resolve(root) === services.workspace.root) return;
  const previous = services;
  services = null;
  unbindContract?.();
  unbindContract = null;
  await previous?.dispose();
  services = await createServices({ root, dataDir, prefsStore: store!, nodeScriptLauncher: launchUtilityProcess });
  store!.set('lastWorkspace', services.workspace.root);
  unbindContract = bindContract(services);
  window?.setTitle(`Kiln — ${services.workspace.name}`);
}

/** The language server runs as a utility process: the packaged app's RunAsNode fuse is off, so no ELECTRON_RUN_AS_NODE. */
const launchUtilityProcess: NodeScriptLauncher = (script, args, { cwd }) => {
  const child = utilityProcess.fork(script, args, { cwd, stdio: 'pipe', serviceName: 'Kiln Python language server' });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code) => resolve({ code, signal: null })),
  );
  return { pid: child.pid, kill: () => void child.kill(), exited, stderr: child.stderr };
};

async function start(): Promise<void> {
  // The one data folder every Kiln process uses (web host, MCP server), so they share one trust list; Electron's
  // own userData for the product "Kiln" is the same folder, named here rather than left to Electron.
  dataDir = await openDataDir();
  startLog(dataDir, process.argv);
  createLogger('host').info('desktop app starting', { pid: process.pid, version: app.getVersion() });
  store = new Store<Record<string, unknown>>({ cwd: dataDir, name: 'prefs', configFileMode: 0o600 });
  hardenSessions();
  serveRenderer();
  const root = await chooseWorkspace();
  if (!root) {
    app.quit();
    return;
  }
  await openWorkspace(root);
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(applicationMenuTemplate(app.isPackaged, process.platform) as MenuItemConstructorOptions[]),
  );

  window = new BrowserWindow({
    width: 1400,
    height: 900,
    title: `Kiln — ${services!.workspace.name}`,
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
      devTools: !app.isPackaged,
    },
  });
  window.once('ready-to-show', () => window?.show());
  window.on('close', (event) => onWindowClose(event));
  window.on('closed', () => (window = null));
  await window.loadURL(rendererEntryUrl(DEV_URL));
}

/** Set once the operator answered the close question (or the window saved everything): the next close goes through. */
let closeConfirmed = false;
let followingCloseRequests: { dispose(): void } | null = null;

/**
 * Closing the window with dirty tabs: with hot exit on it just closes (the tabs are backed up and come back);
 * off, it asks Save All / Don't Save / Cancel as VS Code does (the decisions are policy.ts's).
 */
function onWindowClose(event: { preventDefault(): void }): void {
  const running = services;
  if (!running || !window) return;
  const dirty = running.windowClose.dirtyPaths;
  if (closeDecision({ hotExit: running.hotExit(), dirtyCount: dirty.length, confirmed: closeConfirmed }) === 'close')
    return;
  event.preventDefault();
  const { message, detail } = dirtyCloseMessage(dirty);
  const response = dialog.showMessageBoxSync(window, {
    type: 'warning',
    message,
    detail,
    buttons: [...DIRTY_CLOSE_BUTTONS],
    defaultId: 0,
    cancelId: 2,
    noLink: true,
  });
  const choice = dirtyCloseChoice(response);
  if (choice === 'cancel') return;
  if (choice === 'dontSave') {
    void running.windowClose.dropBackups().finally(() => closeNow());
    return;
  }
  // Save All: the window saves its tabs (only it holds text buffers) and sends window.close when all are saved.
  followingCloseRequests?.dispose();
  followingCloseRequests = running.windowClose.onCloseRequested(() => closeNow());
  running.hub.emit('window.saveAll', {});
}

function closeNow(): void {
  closeConfirmed = true;
  window?.close();
}

/** A second launch (`kiln <folder>` while Kiln runs) opens its folder in this instance's window. */
async function onSecondInstance(argv: string[], workingDirectory: string): Promise<void> {
  const folder = folderFromArgv(argv, app.isPackaged, workingDirectory, path.resolve);
  if (window) {
    if (window.isMinimized()) window.restore();
    window.focus();
  }
  if (!folder || !(await isFolder(folder)) || !window) return;
  await openWorkspace(folder);
  await window.loadURL(rendererEntryUrl(DEV_URL));
}

// `kiln --mcp <folder>`: the packaged app serves the workspace verbs over MCP on stdio, with no window.
const mcpArgs = mcpArgumentsOf(process.argv);
if (mcpArgs) {
  app.dock?.hide();
  Promise.resolve()
    .then(() => serveMcpOverStdio(parseMcpArguments(mcpArgs), { cwd: process.cwd(), exit: (code) => app.exit(code) }))
    .catch((err: unknown) => {
      process.stderr.write(
        `kiln --mcp: ${err instanceof Error ? err.message : String(err)}\nusage: kiln --mcp ${MCP_USAGE}\n`,
      );
      app.exit(1);
    });
} else {
  startApp();
}

function startApp(): void {
  // One Kiln at a time: a second launch hands its folder to this one and exits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on('second-instance', (_event, argv, workingDirectory) => {
    void onSecondInstance(argv, workingDirectory).catch((err: Error) =>
      dialog.showErrorBox('Kiln could not open the folder', err.message),
    );
  });
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (!services) return;
    // Stop the Jupyter server and watchers before exiting so no process outlives Kiln.
    event.preventDefault();
    const closing = services;
    services = null;
    unbindContract?.();
    void closing.dispose().finally(() => app.quit());
  });
  app.enableSandbox();
  // Drag out, Reveal in File Manager, Open with System Application: Electron only, bound once for any workspace.
  bindDesktop({ services: () => services, window: () => window, isFromKilnWindow });
  // The main process is the daemon: a stray failure is logged, never fatal.
  process.on('unhandledRejection', (err) => {
    console.error('Kiln: unexpected error:', err);
    createLogger('host').error('unexpected error', { err });
  });
  void app
    .whenReady()
    .then(start)
    .catch((err: Error) => {
      dialog.showErrorBox('Kiln could not start', err.message);
      app.quit();
    });
}
