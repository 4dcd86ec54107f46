import type { Prefs } from '../../../shared/contract';
import type { OpenFile, OpenFilesStore } from '../editor';

/** VS Code's `files.autoSaveDelay` default. */
export const AUTO_SAVE_DELAY_MS = 1000;

export type AutoSaveMode = Prefs['autoSave'];

/**
 * Optional auto save, through the same save as Ctrl+S (`OpenFilesStore.save`), so it refuses to write over a
 * change on disk exactly as a manual save does (the tab shows its conflict instead). `afterDelay` saves a
 * dirty tab a moment after its last change; `onFocusChange` saves the tab the operator leaves, and every
 * dirty tab when the window loses focus.
 */
export class AutoSave {
  private mode: AutoSaveMode = 'off';
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Whether each tab was dirty when last seen: a timer starts when it turns dirty, and again on each edit. */
  private readonly wasDirty = new Map<string, boolean>();
  private active: string | null;
  private readonly unsubscribe: () => void;
  private readonly edits: { dispose(): void };

  constructor(
    private readonly files: OpenFilesStore,
    private readonly delayMs = AUTO_SAVE_DELAY_MS,
  ) {
    this.active = files.getState().active;
    this.unsubscribe = files.subscribe(() => this.follow());
    // Typing changes the state only when the dirty flag flips; each key restarts the delay through this.
    this.edits = files.onDidEdit((path) => {
      const file = this.files.get(path);
      if (this.mode === 'afterDelay' && file) this.restart(file);
    });
  }

  setMode(mode: AutoSaveMode): void {
    this.mode = mode;
    if (mode !== 'afterDelay') {
      this.clearTimers();
      // Turned on again later, every dirty tab starts its delay afresh.
      this.wasDirty.clear();
    } else this.follow();
  }

  /** The window lost focus. */
  windowBlurred(): void {
    if (this.mode !== 'onFocusChange') return;
    for (const file of this.files.getState().files) if (file.dirty) this.save(file.path);
  }

  dispose(): void {
    this.unsubscribe();
    this.edits.dispose();
    this.clearTimers();
  }

  private follow(): void {
    const { files, active } = this.files.getState();
    if (this.mode === 'onFocusChange' && active !== this.active && this.active && this.files.get(this.active)?.dirty) {
      this.save(this.active);
    }
    this.active = active;
    if (this.mode !== 'afterDelay') return;
    for (const file of files) {
      const before = this.wasDirty.get(file.path);
      this.wasDirty.set(file.path, file.dirty);
      // Still dirty since last seen: its edits (onDidEdit) restart the delay, not other changes of the state.
      if (!before) this.restart(file);
    }
  }

  /** (Re)starts a dirty tab's delay before its save. */
  private restart(file: OpenFile): void {
    // A conflict waits for the operator: Overwrite or Reload, never a save by timer.
    if (!file.dirty || file.conflict || file.status !== 'ready') return;
    clearTimeout(this.timers.get(file.path));
    this.timers.set(
      file.path,
      setTimeout(() => {
        this.timers.delete(file.path);
        if (this.files.get(file.path)?.dirty) this.save(file.path);
      }, this.delayMs),
    );
  }

  private save(path: string): void {
    // Refused saves (changed on disk) raise the tab's conflict bar, as a manual save does.
    void this.files.save(path).catch(() => undefined);
  }

  private clearTimers(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
