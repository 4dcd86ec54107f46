import type { NotebookBackup, NotebookBackupSink } from '../notebook';
import type { BackupStore } from './backups';
import { createLogger } from '../log';

const log = createLogger('history.notebook-backups');

/** How long after a notebook's last change its backup is written (the same pause as a text buffer's). */
export const NOTEBOOK_BACKUP_DEBOUNCE_MS = 750;

/**
 * Hot exit for notebooks, kept from main's model. The model is authoritative in main (the renderer's copy
 * lags by its edit delay, and outputs and agent edits never pass through it), so backing up here sees every
 * change and needs no new channel: after each change settles, the notebook is serialised exactly as a save
 * would write it and kept in the same store as text buffers.
 */
export class NotebookBackups implements NotebookBackupSink {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Don't Save on close: no backup is written any more. */
  private stopped = false;
  private snapshot: (path: string) => NotebookBackup | null | undefined = () => undefined;

  constructor(
    private readonly store: BackupStore,
    private readonly debounceMs = NOTEBOOK_BACKUP_DEBOUNCE_MS,
    /** The notebook's backup goes (it was saved, reverted or closed): what is kept with it is stale now. */
    private readonly onDiscard: (path: string) => void = () => {},
  ) {}

  /** Where the current state of an open notebook is read (null: clean, undefined: not open). */
  snapshotFrom(snapshot: (path: string) => NotebookBackup | null | undefined): void {
    this.snapshot = snapshot;
  }

  read(path: string): Promise<NotebookBackup | null> {
    return this.store.get(path);
  }

  changed(path: string, dirty: boolean): void {
    this.cancel(path);
    if (this.stopped) return;
    // Saved or reverted: the backup goes at once, so a crash right after a save never brings back the old edits.
    if (!dirty) {
      void this.store.discard(path).then(() => this.onDiscard(path));
      return;
    }
    this.timers.set(
      path,
      setTimeout(() => {
        this.timers.delete(path);
        void this.write(path);
      }, this.debounceMs),
    );
  }

  closed(path: string): void {
    this.cancel(path);
    void this.store.discard(path).then(() => this.onDiscard(path));
  }

  /** Drops what is pending and writes nothing more (the window closes with Don't Save). */
  cancelAll(): void {
    this.stopped = true;
    for (const path of [...this.timers.keys()]) this.cancel(path);
  }

  /** Writes what is pending now (a graceful shutdown; a kill -9 keeps what the last debounce wrote). */
  async flush(): Promise<void> {
    const pending = [...this.timers.keys()];
    for (const path of pending) this.cancel(path);
    await Promise.all(pending.map((path) => this.write(path)));
  }

  private async write(path: string): Promise<void> {
    const backup = this.snapshot(path);
    if (backup === undefined) return;
    await (backup === null ? this.store.discard(path) : this.store.save({ path, ...backup })).catch(
      log.caught("a notebook's hot-exit backup could not be written; the next change tries again", undefined, 'warn'),
    );
  }

  private cancel(path: string): void {
    const timer = this.timers.get(path);
    if (timer) clearTimeout(timer);
    this.timers.delete(path);
  }
}
