import { Emitter, type Event } from '../../shared/base/event';
import type { EventPayload } from '../../shared/contract';
import type { NotebookBackupSink, NotebookCellsChange, NotebookEventName, NotebookEvents } from './service-options';

/**
 * Where the notebook service's events go: the wire (the EventHub), the cells' mirrors (`onDidChangeCells`, the
 * language server's document) and the hot-exit backups.
 */
export class NotebookAnnouncer {
  private readonly cellsChanged = new Emitter<NotebookCellsChange>({
    onListenerError: (err) => console.error('[kiln] notebook cells listener failed', err),
  });
  /** Fires after every change of what an open notebook's cells read: open, edit (any origin), reload, move, close. */
  readonly onDidChangeCells: Event<NotebookCellsChange> = this.cellsChanged.event;
  /** Where hot-exit backups go; null until the service is told (`keepBackupsIn`). */
  backups: NotebookBackupSink | null = null;

  constructor(private readonly events: NotebookEvents) {}

  /** What an open notebook's cells read changed without an event on the wire (opened, moved, closed). */
  cellsChange(change: NotebookCellsChange): void {
    this.cellsChanged.fire(change);
  }

  emit<E extends NotebookEventName>(
    channel: E,
    payload: EventPayload<E>,
    options: { outputsOnly?: boolean } = {},
  ): void {
    this.events.emit(channel, payload);
    // Every edit announces the notebook's dirty state; reloads and reverts announce the whole document. A run's
    // outputs change no source: the language mirror is not rebuilt for them (twice a run, before and after).
    if ((channel === 'notebook.dirty' && !options.outputsOnly) || channel === 'notebook.changed')
      this.cellsChanged.fire({ kind: 'edited', path: (payload as { path: string }).path });
    if (!this.backups) return;
    if (channel === 'notebook.dirty') {
      const { path: rel, dirty } = payload as EventPayload<'notebook.dirty'>;
      this.backups.changed(rel, dirty);
    } else if (channel === 'notebook.changed') {
      const { path: rel, document } = payload as EventPayload<'notebook.changed'>;
      this.backups.changed(rel, document.dirty);
    }
  }

  dispose(): void {
    this.cellsChanged.dispose();
  }
}
