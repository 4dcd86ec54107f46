import { KernelAPI, KernelConnection, SessionAPI } from '@jupyterlab/services';
import type { Kernel, Session } from '@jupyterlab/services';
import path from 'node:path';
import type { JupyterConnection, KernelSpecList } from './jupyter-server';
import { createLogger } from '../log';

const log = createLogger('kernel');

/** A kernelspec as a notebook's kernel status names it. */
export interface KernelSpecNames {
  name: string | null;
  displayName: string | null;
  language: string | null;
}

/**
 * Starts a Jupyter session for the notebook at `notebookPath` (the session path sets the kernel's working folder),
 * with the kernelspec `wantedName`, or the server's default.
 */
export function startNotebookSession(
  connection: JupyterConnection,
  specs: KernelSpecList,
  notebookPath: string,
  wantedName: string | null,
): Promise<Session.IModel> {
  // A notebook written elsewhere may name a kernel this server lacks; the server's default runs it then.
  const wanted = wantedName && specs.specs.some((s) => s.name === wantedName) ? wantedName : specs.default;
  const name = wanted ?? undefined;
  return SessionAPI.startSession(
    {
      path: notebookPath,
      type: 'notebook',
      name: path.posix.basename(notebookPath),
      kernel: { name },
    } as Parameters<typeof SessionAPI.startSession>[0],
    connection.settings,
  );
}

/** The names of the kernelspec a session's kernel runs, from the server's list. */
export function specNamesOf(kernelName: string, specs: KernelSpecList): KernelSpecNames {
  const spec = specs.specs.find((s) => s.name === kernelName);
  return {
    name: kernelName,
    displayName: spec?.displayName ?? kernelName,
    language: spec?.language ?? null,
  };
}

/** A connection to a session's kernel. */
export function connectKernel(model: Kernel.IModel, connection: JupyterConnection): KernelConnection {
  return new KernelConnection({
    model,
    serverSettings: connection.settings,
    username: 'kiln',
    handleComms: false,
  });
}

/** The notebook was renamed or moved: its session follows, so the server lists it under its new path. */
export async function renameSession(
  sessionId: string,
  notebookPath: string,
  connection: JupyterConnection,
): Promise<void> {
  await SessionAPI.updateSession(
    { id: sessionId, path: notebookPath, name: path.posix.basename(notebookPath) },
    connection.settings,
  );
}

/** Shuts a session and its kernel down. */
export async function shutdownSession(sessionId: string, connection: JupyterConnection): Promise<void> {
  await SessionAPI.shutdownSession(sessionId, connection.settings).catch(
    log.caught('a session could not be shut down; its kernel may be gone with its server already', undefined, 'warn'),
  );
}

/**
 * Whether the server that answers again after an outage still has the kernel; null when it did not say (it stopped
 * answering again: the liveness check says so, and the session asks again when it answers).
 */
export async function serverStillHas(kernelId: string, connection: JupyterConnection): Promise<boolean | null> {
  try {
    return (await KernelAPI.getKernelModel(kernelId, connection.settings)) !== undefined;
  } catch (err) {
    log.warn('a kernel could not be looked up after its server answered again; asked again when it answers', {
      kernelId,
      err,
    });
    return null;
  }
}

/** Why cells cannot run once the server answers again without the notebook's kernel. */
export function kernelGoneMessage(connection: JupyterConnection): string {
  return `The kernel is gone: the Jupyter server at ${connection.baseUrl} answers again but no longer has it. Restart to start a new kernel (variables are gone).`;
}
