import path from 'node:path';
import { KilnError } from '../../shared/errors';

/**
 * Export as PDF under Electron: the window's own rendering of the notebook (the page has marked it for print,
 * so its print stylesheet shows only the notebook's cells) through `webContents.printToPDF`, saved where the
 * operator chooses in the OS dialog, as a browser's "Save as PDF" does. No TeX, no nbconvert.
 */

/** printToPDF's options: A4 unless the stylesheet sets a page size, half-inch margins, backgrounds kept (output colours). */
export const PDF_OPTIONS = {
  printBackground: true,
  preferCSSPageSize: true,
  pageSize: 'A4' as const,
  margins: { top: 0.5, bottom: 0.5, left: 0.5, right: 0.5 },
};

export interface PdfExportDeps {
  /** The OS save dialog, starting at `defaultPath`; null when the operator cancels. */
  chooseFile: (defaultPath: string) => Promise<string | null>;
  /** The window's page as a PDF. */
  print: () => Promise<Uint8Array>;
  write: (file: string, bytes: Uint8Array) => Promise<void>;
}

/** Where the dialog starts: beside the notebook, its name with `.pdf`. */
export function defaultPdfPath(root: string, notebook: string): string {
  const abs = path.resolve(root, notebook);
  if (abs !== root && !abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep))
    throw new KilnError('E_OUTSIDE_WORKSPACE', `${notebook} is outside the workspace`);
  return abs.replace(/\.ipynb$/i, '') + '.pdf';
}

/** The chosen file, with `.pdf` added when the operator typed a name without it. */
export function withPdfExtension(file: string): string {
  return /\.pdf$/i.test(file) ? file : `${file}.pdf`;
}

/** Asks where, prints, writes; the file written (as the operator chose it), or null when cancelled. */
export async function exportPdf(deps: PdfExportDeps, root: string, notebook: string): Promise<string | null> {
  const chosen = await deps.chooseFile(defaultPdfPath(root, notebook));
  if (!chosen) return null;
  const file = withPdfExtension(chosen);
  const bytes = await deps.print();
  await deps.write(file, bytes);
  return file;
}
