import { Emitter, type Event } from '../../shared/base/event';
import type { EventPayload } from '../../shared/contract';
import { wireEmitter } from '../events';
import type { OpenNotebookEvents } from './notebook-host';
import type { NotebookBackupSink, NotebookCellsChange } from './service-options';

/** The notebook service's events that main/services.ts announces on the wire, one per channel. */
export type NotebookEvents = Pick<
  NotebookAnnouncer,
  | 'onDidChangeOutput'
  | 'onDidChangeCellState'
  | 'onDidChangeKernelStatus'
  | 'onDidChangeDocument'
  | 'onDidConflict'
  | 'onDidChangeDirty'
  | 'onDidRequestInput'
  | 'onDidFailJupyter'
  | 'onDidChangeVariables'
>;

/**
 * Where the notebook service's events go: its onDid… events (main/services.ts announces them on the wire), the
 * cells' mirrors (`onDidChangeCells`, the language server's document) and the hot-exit backups. The open notebooks
 * and their kernels call one method per event, named as the event.
 */
export class NotebookAnnouncer implements OpenNotebookEvents {
  private readonly outputChanged = wireEmitter<'notebook.output'>();
  private readonly cellStateChanged = wireEmitter<'notebook.cellState'>();
  private readonly kernelStatusChanged = wireEmitter<'notebook.kernelStatus'>();
  private readonly documentChanged = wireEmitter<'notebook.changed'>();
  private readonly conflicted = wireEmitter<'notebook.conflict'>();
  private readonly dirtyChanged = wireEmitter<'notebook.dirty'>();
  private readonly inputRequested = wireEmitter<'notebook.inputRequest'>();
  private readonly jupyterFailed = wireEmitter<'notebook.jupyterError'>();
  private readonly variablesMayHaveChanged = wireEmitter<'notebook.variablesChanged'>();
  private readonly cellsChanged = new Emitter<NotebookCellsChange>({
    onListenerError: (err) => console.error('[kiln] notebook cells listener failed', err),
  });

  /** A cell's outputs changed (appended, replaced, cleared) as its kernel ran it. */
  readonly onDidChangeOutput: Event<EventPayload<'notebook.output'>> = this.outputChanged.event;
  readonly onDidChangeCellState: Event<EventPayload<'notebook.cellState'>> = this.cellStateChanged.event;
  readonly onDidChangeKernelStatus: Event<EventPayload<'notebook.kernelStatus'>> = this.kernelStatusChanged.event;
  /** The whole document was replaced (reloaded, reverted) or edited by another than the operator's own UI. */
  readonly onDidChangeDocument: Event<EventPayload<'notebook.changed'>> = this.documentChanged.event;
  readonly onDidConflict: Event<EventPayload<'notebook.conflict'>> = this.conflicted.event;
  readonly onDidChangeDirty: Event<EventPayload<'notebook.dirty'>> = this.dirtyChanged.event;
  readonly onDidRequestInput: Event<EventPayload<'notebook.inputRequest'>> = this.inputRequested.event;
  /** Jupyter could not be found, started or reached, or a kernel died: once per problem. */
  readonly onDidFailJupyter: Event<EventPayload<'notebook.jupyterError'>> = this.jupyterFailed.event;
  /** The kernel's variables may have changed (the runs drained, the kernel restarted or changed). */
  readonly onDidChangeVariables: Event<EventPayload<'notebook.variablesChanged'>> = this.variablesMayHaveChanged.event;
  /** Fires after every change of what an open notebook's cells read: open, edit (any origin), reload, move, close. */
  readonly onDidChangeCells: Event<NotebookCellsChange> = this.cellsChanged.event;
  /** Where hot-exit backups go; null until the service is told (`keepBackupsIn`). */
  backups: NotebookBackupSink | null = null;

  /** What an open notebook's cells read changed without an event of its own (opened, moved, closed). */
  cellsChange(change: NotebookCellsChange): void {
    this.cellsChanged.fire(change);
  }

  output(payload: EventPayload<'notebook.output'>): void {
    this.outputChanged.fire(payload);
  }

  cellState(payload: EventPayload<'notebook.cellState'>): void {
    this.cellStateChanged.fire(payload);
  }

  kernelStatus(payload: EventPayload<'notebook.kernelStatus'>): void {
    this.kernelStatusChanged.fire(payload);
  }

  conflict(payload: EventPayload<'notebook.conflict'>): void {
    this.conflicted.fire(payload);
  }

  inputRequest(payload: EventPayload<'notebook.inputRequest'>): void {
    this.inputRequested.fire(payload);
  }

  jupyterError(payload: EventPayload<'notebook.jupyterError'>): void {
    this.jupyterFailed.fire(payload);
  }

  variablesChanged(payload: EventPayload<'notebook.variablesChanged'>): void {
    this.variablesMayHaveChanged.fire(payload);
  }

  /**
   * Every edit announces the notebook's dirty state. `outputsOnly`: the change touched outputs (or run state), no
   * cell's source, so the language mirror is not rebuilt for it (twice a run, before and after).
   */
  dirty(payload: EventPayload<'notebook.dirty'>, options: { outputsOnly?: boolean } = {}): void {
    this.dirtyChanged.fire(payload);
    if (!options.outputsOnly) this.cellsChanged.fire({ kind: 'edited', path: payload.path });
    this.backups?.changed(payload.path, payload.dirty);
  }

  /** Reloads and reverts (and edits by others than the operator's own UI) announce the whole document. */
  changed(payload: EventPayload<'notebook.changed'>): void {
    this.documentChanged.fire(payload);
    this.cellsChanged.fire({ kind: 'edited', path: payload.path });
    this.backups?.changed(payload.path, payload.document.dirty);
  }

  dispose(): void {
    for (const emitter of [
      this.outputChanged,
      this.cellStateChanged,
      this.kernelStatusChanged,
      this.documentChanged,
      this.conflicted,
      this.dirtyChanged,
      this.inputRequested,
      this.jupyterFailed,
      this.variablesMayHaveChanged,
      this.cellsChanged,
    ])
      emitter.dispose();
  }
}
