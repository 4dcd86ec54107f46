import { joinMultiline } from '../../shared/contract';
import type { JupyterServerManager } from '../kernel';
import type { NotebookModel } from './model';
import type { NotebookBackup, NotebookFiles } from './notebook-host';

/** Where open notebooks' hot-exit backups go (the app's window has one; an MCP server's stack does not). */
export interface NotebookBackupSink {
  /** The backup kept for a path, read when the notebook opens. */
  read(path: string): Promise<NotebookBackup | null>;
  /** The notebook changed, or became clean (saved, reverted). */
  changed(path: string, dirty: boolean): void;
  /** The operator closed it: its unsaved changes are dropped, and its backup with them. */
  closed(path: string): void;
}

/** An open notebook's cells may read differently: for what mirrors them (the language server's document). */
export type NotebookCellsChange =
  { kind: 'opened' | 'edited' | 'closed'; path: string } | { kind: 'moved'; from: string; path: string };

/** The code cells of an open notebook, in order, with its kernel's language (null when the notebook names none). */
export interface NotebookCodeCells {
  language: string | null;
  cells: { id: string; source: string }[];
}

export interface NotebookServiceOptions {
  workspace: NotebookFiles;
  /** The Jupyter server notebooks run against; null when none is configured (notebooks still open and edit). */
  jupyter: JupyterServerManager | null;
  /** Start a notebook's kernel as soon as it opens, as JupyterLab does (default true). Off, it starts at the first run. */
  autoStartKernel?: boolean;
  /** Folder put first on sys.path in every kernel; default `<workspace>/src`. null for none. */
  srcDir?: string | null;
  /**
   * Whether the operator trusts the workspace (main/trust). Untrusted, no kernel starts (E_UNTRUSTED) and no
   * src/ goes on a path: a kernel runs the folder's code. The verb stack passes the workspace's trust; a
   * service made without it (unit tests of the notebook model) counts as trusted.
   */
  trusted?: () => boolean;
}

/** Why a kernel is refused in an untrusted workspace, said the same way everywhere. */
export const UNTRUSTED_KERNEL_MESSAGE =
  "Kernel not started: this folder is not trusted. A kernel runs the folder's code; trust the folder to run its notebooks.";

/** The code cells of a notebook as they are now, with its kernel's language (for what mirrors them). */
export function codeCellsOf(model: NotebookModel): NotebookCodeCells {
  const metadata = (model.json.metadata ?? {}) as {
    kernelspec?: { language?: unknown };
    language_info?: { name?: unknown };
  };
  const language = metadata.language_info?.name ?? metadata.kernelspec?.language;
  return {
    language: typeof language === 'string' ? language : null,
    cells: model.cells
      .filter((cell) => cell.cell_type === 'code')
      .map((cell) => ({ id: cell.id, source: joinMultiline(cell.source as string | string[] | undefined) })),
  };
}
