import type { Backup, KilnBridge } from '../../../shared/contract';
import { perBridge, Store } from '../base';

export interface RecoveredFilesState {
  /** Backups of files that are gone from disk, oldest first: kept until the operator discards them. */
  files: Backup[];
  /** The operator closed the list; it comes back from the command palette. */
  hidden: boolean;
  error: string | null;
}

/**
 * The "Recovered files" list: unsaved text of files deleted since it was typed. Such a backup is not reopened
 * as a tab on every start; it waits here until the operator opens it (a dirty tab, for Save As) or discards it.
 */
export class RecoveredFilesStore extends Store<RecoveredFilesState> {
  constructor(private readonly bridge: KilnBridge) {
    super({ files: [], hidden: false, error: null });
  }

  setFiles(files: Backup[]): void {
    this.set({ files, hidden: false, error: null });
  }

  show(): void {
    this.set({ hidden: false });
  }

  hide(): void {
    this.set({ hidden: true });
  }

  /** The file leaves the list (opened as a tab, which keeps backing it up). */
  take(path: string): Backup | undefined {
    const file = this.state.files.find((f) => f.path === path);
    this.set({ files: this.state.files.filter((f) => f.path !== path) });
    return file;
  }

  /** Drops the backup for good. */
  async discard(path: string): Promise<void> {
    try {
      await this.bridge.request('backup.discard', { path });
      this.take(path);
    } catch (err) {
      this.set({ error: err instanceof Error ? err.message : String(err) });
    }
  }
}

export const useRecoveredFiles = perBridge((bridge) => new RecoveredFilesStore(bridge));
