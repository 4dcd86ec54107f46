import type { workspaceRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { Workspace } from './workspace';

type WorkspaceChannel = Exclude<
  keyof typeof workspaceRequests,
  `prefs.${string}` | `editor.${string}` | `watch.${string}`
>;

/** The workspace service's channels; UI actions are the operator's. */
export function workspaceHandlers(ws: Workspace): HandlersFor<WorkspaceChannel> {
  return {
    'workspace.info': () => ({ root: ws.root, name: ws.name, trash: ws.hasTrash }),
    'workspace.list': ({ path, showHidden, offset, limit }) => ws.listing(path, { showHidden, offset, limit }),
    'workspace.stat': ({ path }) => ws.stat(path),
    'workspace.read': ({ path }) => ws.read(path),
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
