import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type {
  EventChannel,
  EventPayload,
  KilnBridge,
  RequestArgs,
  RequestChannel,
  RequestResult,
} from '../shared/contract';
import { fromWireError } from '../shared/errors';
import { MemoryStore } from '../main/prefs';
import { dispatch } from '../main/router';
import { createServices, type ServiceOptions, type Services } from '../main/services';
import { makeTempDir, makeTempTree } from './temp-workspace';

/**
 * The contract bound straight onto a service graph in the same process, with the same validation the
 * hosts apply: integration tests run renderer stores against the real services through it.
 */
export function inProcessBridge(services: Services): KilnBridge {
  return {
    transport: 'in-process',
    async request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
      const envelope = await dispatch(services.handlers, channel, args);
      if (!envelope.ok) throw fromWireError(envelope.error);
      return envelope.value as RequestResult<C>;
    },
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) {
      const subscription = services.hub.onEvent((event) => {
        if (event.channel === channel) listener(event.payload as EventPayload<E>);
      });
      return () => void subscription.dispose();
    },
  };
}

export interface RunningServices {
  root: string;
  dataDir: string;
  services: Services;
  bridge: KilnBridge;
  /** Disposes the services, then removes the workspace and the data folder. */
  close(): Promise<void>;
}

/**
 * main's whole service graph on a fresh temp workspace (`files` as in `makeTempTree`), with in-memory
 * prefs, a private data folder and the watcher started. `prepare` runs before the services start
 * (write a config, trust the folder).
 */
export async function startServices(
  files: Record<string, string> = {},
  options: {
    prepare?: (root: string, dataDir: string) => Promise<void>;
    trash?: ServiceOptions['trash'];
    watchFolder?: ServiceOptions['watchFolder'];
    runLimitMs?: ServiceOptions['runLimitMs'];
  } = {},
): Promise<RunningServices> {
  const workspace = await makeTempTree(files);
  const data = await makeTempDir('kiln-data-');
  await options.prepare?.(workspace.root, data.dir);
  const services = await createServices({
    root: workspace.root,
    dataDir: data.dir,
    prefsStore: new MemoryStore(),
    trash: options.trash,
    watchFolder: options.watchFolder,
    runLimitMs: options.runLimitMs,
  });
  // Start-up does not wait for the watcher; tests assert on its events.
  await services.watching();
  return {
    root: workspace.root,
    dataDir: data.dir,
    services,
    bridge: inProcessBridge(services),
    async close() {
      await services.dispose();
      await workspace.cleanup();
      await data.cleanup();
    },
  };
}

let caughtUp = 0;

/**
 * Resolves once the watcher has reported everything that happened on disk before the call. It writes
 * a file from outside and waits for its `created`: the one inotify queue and the feed's arrival order
 * publish it after every earlier change, so a change that has not come by then (an echo of Kiln's own
 * save, a conflict) will not come. This proves a negative without a fixed sleep.
 */
export async function watcherCaughtUp(running: Pick<RunningServices, 'root' | 'services'>): Promise<void> {
  const name = `caught-up-${++caughtUp}.txt`;
  const seen = new Promise<void>((resolve) => {
    const watching = running.services.hub.onEvent((event) => {
      if (event.channel === 'fs.change' && event.payload.type === 'created' && event.payload.path === name) {
        void watching.dispose();
        resolve();
      }
    });
  });
  await writeFile(path.join(running.root, name), '');
  await seen;
}
