import type { workspaceRequests } from '../../shared/contract';
import type { Emitter } from '../../shared/base/event';
import type { HandlersFor } from '../router';
import type { Workspace } from './workspace';

type WorkspaceChannel = Exclude<
  keyof typeof workspaceRequests,
  `prefs.${string}` | `editor.${string}` | `watch.${string}`
>;

/** A folder the operator listed or a file they opened, through these channels (never an agent's read). */
export interface ShownPath {
  path: string;
  kind: 'dir' | 'file';
}

/**
 * The workspace service's channels; UI actions are the operator's. `shown` is told what the operator looks at
 * (the watcher keeps it live, local history keeps an opened file's outside changes).
 */
export function workspaceHandlers(ws: Workspace, shown?: Emitter<ShownPath>): HandlersFor<WorkspaceChannel> {
  return {
    'workspace.info': () => ({ root: ws.root, name: ws.name, trash: ws.hasTrash }),
    'workspace.list': async ({ path, showHidden, offset, limit }) => {
      const listing = await ws.listing(path, { showHidden, offset, limit });
      shown?.fire({ path: listing.path, kind: 'dir' });
      return listing;
    },
    'workspace.stat': ({ path }) => ws.stat(path),
    'workspace.read': async ({ path }) => {
      const content = await ws.read(path);
      shown?.fire({ path: content.path, kind: 'file' });
      return content;
    },
    'workspace.write': ({ path, text, expectedHash }) => ws.write(path, text, { origin: 'operator', expectedHash }),
    'workspace.createFile': ({ path, text }) => ws.createFile(path, text),
    'workspace.createDir': ({ path }) => ws.createDir(path),
    'workspace.move': ({ from, to, onConflict, jobId }) => ws.move(from, to, { onConflict, jobId }),
    'workspace.copy': ({ from, toDir, jobId }) => ws.copy(from, toDir, { jobId }),
    'workspace.delete': ({ path, permanent }) => ws.delete(path, { permanent }),
    'workspace.count': ({ path }) => ws.count(path),
    'workspace.absolutePath': async ({ path }) => ({ path: await ws.resolve(path) }),
    'workspace.nextFreeName': ({ dir, name }) => ws.nextFreeName(dir, name),
    'workspace.cancelJob': ({ jobId }) => ({ cancelled: ws.cancelJob(jobId) }),
  };
}
