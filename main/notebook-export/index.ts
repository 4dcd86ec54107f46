import type { notebookExportRequests } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { JupyterServerManager } from '../kernel';
import type { HandlersFor } from '../router';
import { convertNotebook } from './convert';

export { convertNotebook } from './convert';
export { exportPdf, PDF_OPTIONS, type PdfExportDeps } from './pdf';

/** `notebook.convert` on the workspace's Jupyter server (started if it is not running yet). */
export function notebookExportHandlers(
  jupyter: JupyterServerManager | null,
): HandlersFor<keyof typeof notebookExportRequests> {
  return {
    'notebook.convert': async (args) => {
      if (!jupyter) throw new KilnError('E_NO_JUPYTER', 'No Jupyter server is configured to run nbconvert.');
      return convertNotebook(await jupyter.start(), args);
    },
    // The Electron host replaces this with printToPDF; here (the web host) the page prints through its dialog.
    'notebook.exportPdf': () => ({ status: 'print-dialog' }),
  };
}
