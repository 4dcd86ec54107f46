import type { Backup, KilnBridge } from '../../../shared/contract';
import type { OpenFile, OpenFilesStore } from '../editor';

const isNotebookPath = (path: string) => path.toLowerCase().endsWith('.ipynb');

/** How long after the last keystroke a dirty buffer is backed up: typing never waits for it. */
export const BACKUP_DEBOUNCE_MS = 750;

interface Tracked {
  /** The buffer last sent (or being sent); compared by identity, so a keystroke costs no string compare. */
  sent: string | null;
  timer: ReturnType<typeof setTimeout> | null;
  /** The tab's id: a tab moved by a rename is the same tab, its backup follows in main. */
  id: number;
}

/**
 * Hot exit for text tabs: a dirty buffer is backed up to main shortly after typing stops, and its backup
 * goes when the buffer is saved, reverted or closed. Notebook tabs are kept by their own view.
 */
export class HotExit {
  private readonly tracked = new Map<string, Tracked>();
  private readonly unsubscribe: () => void;
  /** Restoring on start: the tabs reopened from backups are not backed up again until they change. */
  private restoring = false;
  /** Backups of files gone from disk, found by `restore`: listed as recovered files, not reopened. */
  recovered: Backup[] = [];

  constructor(
    private readonly bridge: KilnBridge,
    private readonly files: OpenFilesStore,
    private readonly debounceMs = BACKUP_DEBOUNCE_MS,
  ) {
    this.unsubscribe = files.subscribe(() => this.follow());
  }

  /**
   * Reopens every backed-up buffer (once, when the window opens); resolves with how many came back.
   * A backup whose file changed on disk opens in the conflict state; one whose file is gone is not reopened
   * but kept in `recovered` (the "Recovered files" list).
   */
  async restore(): Promise<number> {
    const { backups } = await this.bridge.request('backup.list', {});
    this.restoring = true;
    let restored = 0;
    try {
      for (const { missing, ...backup } of backups) {
        if (missing) {
          this.recovered.push(backup);
          continue;
        }
        if (isNotebookPath(backup.path)) {
          // Main keeps notebooks' backups and opens a notebook from its backup, dirty (conflicted if the disk moved on).
          await this.files.open(backup.path);
          restored++;
          continue;
        }
        await this.files.restoreUnsaved(backup.path, backup.text, backup.baseHash);
        const file = this.files.get(backup.path);
        if (file?.dirty) {
          restored++;
          this.tracked.set(backup.path, { sent: file.buffer, timer: null, id: file.id });
        }
      }
    } finally {
      this.restoring = false;
    }
    this.follow();
    return restored;
  }

  /** Sends every pending backup now (the page is going away). */
  flush(): void {
    for (const [path, tracked] of this.tracked) {
      if (tracked.timer === null) continue;
      clearTimeout(tracked.timer);
      tracked.timer = null;
      const file = this.files.get(path);
      if (file) this.send(file, tracked);
    }
  }

  dispose(): void {
    this.unsubscribe();
    for (const tracked of this.tracked.values()) if (tracked.timer) clearTimeout(tracked.timer);
  }

  private follow(): void {
    if (this.restoring) return;
    const open = new Map(this.files.getState().files.map((file) => [file.path, file]));
    for (const [path, tracked] of [...this.tracked]) {
      const file = open.get(path);
      if (file && file.dirty && !this.files.isOwned(path)) continue;
      // Saved, reverted or closed: its backup goes. A tab that moved keeps its backup (main moved it).
      if (tracked.timer) clearTimeout(tracked.timer);
      this.tracked.delete(path);
      const moved = [...open.values()].some((other) => other.id === tracked.id && other.path !== path);
      if (!moved) void this.bridge.request('backup.discard', { path }).catch(() => undefined);
    }
    for (const file of open.values()) {
      if (!file.dirty || file.status !== 'ready' || file.binary || file.truncated || this.files.isOwned(file.path))
        continue;
      let tracked = this.tracked.get(file.path);
      if (!tracked) {
        tracked = { sent: null, timer: null, id: file.id };
        this.tracked.set(file.path, tracked);
      }
      if (tracked.sent === file.buffer) continue;
      if (tracked.timer) clearTimeout(tracked.timer);
      const current = tracked;
      tracked.timer = setTimeout(() => {
        current.timer = null;
        const now = this.files.get(file.path);
        if (now?.dirty) this.send(now, current);
      }, this.debounceMs);
    }
  }

  private send(file: OpenFile, tracked: Tracked): void {
    tracked.sent = file.buffer;
    // The base is the disk version the buffer was typed over, so a restore can tell if the disk moved on since.
    const baseHash = file.conflict?.kind === 'deleted' ? null : file.diskHash || null;
    void this.bridge.request('backup.save', { path: file.path, text: file.buffer, baseHash }).catch(() => {
      tracked.sent = null;
    });
  }
}
