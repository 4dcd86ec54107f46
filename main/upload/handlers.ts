import type { uploadRequests } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { HandlersFor } from '../router';
import type { Workspace } from '../workspace';

type UploadChannel = keyof typeof uploadRequests;

/**
 * `upload.copyIn` reads any path on the machine Kiln runs on. That is the operator's own machine only in the
 * desktop app (the Electron host binds `localPaths: true`); through the web host it would name the host's files.
 */
export function uploadHandlers(ws: Workspace, options: { localPaths: boolean }): HandlersFor<UploadChannel> {
  return {
    'upload.copyIn': ({ source, toDir, onConflict, move, jobId }) => {
      if (!options.localPaths)
        throw new KilnError('E_BAD_REQUEST', 'Copying by path works in the desktop app; the web host uploads');
      return ws.copyIn(source, toDir, { onConflict, move, jobId, origin: 'operator' });
    },
  };
}
