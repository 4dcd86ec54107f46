import trash from 'trash';
import { EventHub } from './events';
import { EmptyGutterSource, type GutterSource } from './gutter';
import { PrefsService, type KeyValueStore } from './prefs';
import type { Handlers } from './router';
import { WorkspaceWatcher } from './watcher';
import { Workspace, workspaceHandlers } from './workspace';

export interface ServiceOptions {
  /** The workspace folder the operator opened. */
  root: string;
  /** The app's own data folder (sessions, Jupyter runtime files); never inside the workspace. */
  dataDir: string;
  /** electron-store under Electron, conf under the web host. */
  prefsStore: KeyValueStore;
  /** Overrides the OS trash (tests point it at a temp folder). */
  trash?: (absPath: string) => Promise<boolean>;
}

export interface Services {
  readonly workspace: Workspace;
  readonly hub: EventHub;
  readonly handlers: Handlers;
  dispose(): Promise<void>;
}

/** Moves a path to the OS trash; false where the platform offers none. */
async function osTrash(absPath: string): Promise<boolean> {
  try {
    await trash(absPath, { glob: false });
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the whole service graph for one workspace. Both hosts call this and add only transport,
 * so the Electron app, the web host and the tests all run the same code.
 */
export async function createServices(options: ServiceOptions): Promise<Services> {
  const hub = new EventHub();
  const workspace = await Workspace.open({
    root: options.root,
    trash: options.trash ?? osTrash,
    onProgress: (progress) => hub.emit('fs.progress', progress),
  });
  const prefs = new PrefsService(options.prefsStore);
  const gutter: GutterSource = new EmptyGutterSource();
  const watcher = new WorkspaceWatcher({
    root: workspace.root,
    ledger: workspace.ledger,
    onChange: (change) => hub.emit('fs.change', change),
  });
  await watcher.ready;

  const handlers: Handlers = {
    ...workspaceHandlers(workspace),
    'editor.gutter': ({ path }) => gutter.changesFor(path),
    'prefs.get': () => prefs.get(),
    'prefs.set': (changes) => prefs.set(changes),
  };

  return {
    workspace,
    hub,
    handlers,
    async dispose() {
      await watcher.dispose();
    },
  };
}
