import path from 'node:path';
import type { EditResult, EventPayload, FileContent, NotebookCell, Origin, WriteResult } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { JupyterServerManager } from '../kernel';

/** Cells an operation put in place, as the wire carries them. */
export type InsertedCells = EditResult & { cells: NotebookCell[]; index: number };

/** The part of the Workspace service notebooks need. */
export interface NotebookFiles {
  readonly root: string;
  resolve(rel: string): Promise<string>;
  relative(abs: string): string;
  read(rel: string): Promise<FileContent>;
  write(
    rel: string,
    text: string,
    options?: { origin?: Origin; expectedHash?: string; createParents?: boolean },
  ): Promise<WriteResult>;
  exists(rel: string): Promise<boolean>;
  createFile(rel: string, text: string, options?: { origin?: Origin }): Promise<WriteResult>;
}

/** A dirty notebook kept for hot exit: its bytes as a save would write them, and the disk hash they stand on. */
export interface NotebookBackup {
  text: string;
  /** The file's hash the edits were made over; null when the file did not exist. */
  baseHash: string | null;
}

/** Who asked for a change; edits by others than the operator's own UI are announced with the whole document. */
export interface ChangeOptions {
  origin?: Origin;
}

/** What an open notebook and its kernel announce, one method per event (notebook-announcer.ts). */
export interface OpenNotebookEvents {
  output(payload: EventPayload<'notebook.output'>): void;
  cellState(payload: EventPayload<'notebook.cellState'>): void;
  kernelStatus(payload: EventPayload<'notebook.kernelStatus'>): void;
  conflict(payload: EventPayload<'notebook.conflict'>): void;
  inputRequest(payload: EventPayload<'notebook.inputRequest'>): void;
  jupyterError(payload: EventPayload<'notebook.jupyterError'>): void;
  variablesChanged(payload: EventPayload<'notebook.variablesChanged'>): void;
  /** `outputsOnly`: the change touched outputs (or run state), no cell's source: the language mirror has nothing to update. */
  dirty(payload: EventPayload<'notebook.dirty'>, options?: { outputsOnly?: boolean }): void;
  changed(payload: EventPayload<'notebook.changed'>): void;
}

/** What every open notebook shares with the others, through the service that holds them. */
export interface NotebookHost {
  readonly workspace: NotebookFiles;
  /** Folder put first on sys.path in every kernel, or null (always null in an untrusted workspace). */
  readonly srcDir: string | null;
  /** E_UNTRUSTED unless the workspace is trusted: a kernel runs the folder's code. */
  requireTrusted(): void;
  /** Where an open notebook announces what happened to it. */
  readonly events: OpenNotebookEvents;
  /** The Jupyter server, or E_NO_JUPYTER. */
  requireJupyter(): JupyterServerManager;
  /** Announces a Jupyter problem (once, for a missing Jupyter). */
  reportJupyterError(path: string | null, err: unknown): void;
  /** Whether runs record their timing in the cell's metadata `execution`, as JupyterLab's recordTiming does. */
  recordTiming(): boolean;
}

/** A Jupyter failure as callers get it: Kiln's own errors as they are, anything else as E_KERNEL_DEAD. */
export function asKernelError(err: unknown): KilnError {
  return err instanceof KilnError
    ? err
    : new KilnError('E_KERNEL_DEAD', err instanceof Error ? err.message : String(err));
}

/** The file's text if it can be a notebook at all (not truncated, not binary). */
export function notebookText(key: string, content: FileContent): string {
  if (content.truncated)
    throw new KilnError('E_TOO_LARGE', `${key} is too large to open as a notebook (${content.size} bytes)`);
  if (content.text === null)
    throw new KilnError('E_INVALID_NOTEBOOK', `${key} is not a valid notebook: the file is binary, not JSON text`, {
      reason: 'binary',
    });
  return content.text;
}

/** The key an open notebook is found by, from a path as a caller wrote it (no disk access: see the service's `key`). */
export function openKey(rel: string): string {
  return path.posix
    .normalize(rel.replace(/\\/g, '/'))
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
}
