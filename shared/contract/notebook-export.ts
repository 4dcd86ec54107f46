import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/*
 * Export of a notebook through the Jupyter server's nbconvert (`POST /nbconvert/<format>`, the same endpoint
 * JupyterLab's "Save and Export Notebook As" uses), on the embedded or the remote server. The renderer sends
 * the notebook as it shows it (charts and math already drawn into it, so the result needs no network) and
 * writes the answer through the workspace like any file.
 */

export const ExportFormat = z.enum(['html', 'script']);
export type ExportFormat = z.infer<typeof ExportFormat>;

export const notebookExportRequests = {
  'notebook.convert': request(
    z.object({
      /** The notebook as nbformat JSON text. */
      notebook: z.string().max(256 * 1024 * 1024),
      /** Its file name (nbconvert titles the page with it). */
      name: z.string().min(1).max(255),
      format: ExportFormat,
    }),
    z.object({
      text: z.string(),
      /** With its dot: '.html', or the script's ('.py' for Python, from the notebook's language_info). */
      extension: z.string(),
    }),
  ),
  /**
   * Export as PDF of Kiln's own rendered notebook (the page marked for printing, its print stylesheet applied).
   * The Electron host prints it with printToPDF and saves where the operator chooses; a host that cannot
   * answers 'print-dialog', and the page opens the browser's print dialog (its "Save as PDF").
   */
  'notebook.exportPdf': request(
    z.object({ path: RelPath }),
    z.discriminatedUnion('status', [
      z.object({ status: z.literal('saved'), file: z.string() }),
      z.object({ status: z.literal('cancelled') }),
      z.object({ status: z.literal('print-dialog') }),
    ]),
  ),
} as const;
