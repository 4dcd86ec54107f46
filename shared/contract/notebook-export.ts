import { z } from 'zod';
import { request } from './define';

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
} as const;
