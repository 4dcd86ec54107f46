import type { HistoryEntry, KilnBridge } from '../../../shared/contract';
import { pathAfterMove } from '../../../shared/fs-change';
import { Store, errorText, perBridge } from '../base';

/** A version under review: its text and the file as it was when the diff was drawn. */
export interface TimelineSelection {
  id: string;
  text: string | null;
  /** The file now (right side of the diff); null when it does not exist. */
  currentText: string | null;
  /** What Restore requires the disk still to hold: refused, as Save is, if the file changed since. */
  currentHash: string | null;
}

export interface TimelineState {
  /** The file whose Timeline is shown; null: the panel is closed. */
  path: string | null;
  entries: HistoryEntry[];
  loading: boolean;
  selected: TimelineSelection | null;
  error: string | null;
  /** The last restore's outcome, said in the panel. */
  notice: string | null;
}

/** The Timeline panel's state: one file's local history, newest first, and the version being compared. */
export class TimelineStore extends Store<TimelineState> {
  private loads = 0;

  constructor(private readonly bridge: KilnBridge) {
    super({ path: null, entries: [], loading: false, selected: null, error: null, notice: null });
    this.own(
      bridge.on('history.changed', ({ path }) => {
        if (path === this.state.path) void this.refresh();
      }),
      bridge.on('fs.change', (change) => {
        if (change.type !== 'moved' || !this.state.path) return;
        const moved = pathAfterMove(this.state.path, change.from, change.to);
        if (moved && moved !== this.state.path) this.set({ path: moved });
      }),
    );
  }

  /** Shows the Timeline of `path` (the tree's and the editor's "Open Timeline"). */
  async show(path: string): Promise<void> {
    this.set({ path, entries: [], selected: null, error: null, notice: null });
    await this.refresh();
  }

  close(): void {
    this.set({ path: null, entries: [], selected: null, error: null, notice: null });
  }

  async refresh(): Promise<void> {
    const path = this.state.path;
    if (!path) return;
    const load = ++this.loads;
    this.set({ loading: true });
    try {
      const { entries } = await this.bridge.request('history.list', { path });
      if (load === this.loads && path === this.state.path) this.set({ entries, loading: false, error: null });
    } catch (err) {
      if (load === this.loads) this.set({ loading: false, error: errorText(err) });
    }
  }

  /** Compares a version with the file as it is now. */
  async select(id: string): Promise<void> {
    const path = this.state.path;
    if (!path) return;
    try {
      const [version, current] = await Promise.all([
        this.bridge.request('history.read', { path, id }),
        this.bridge.request('workspace.read', { path }).catch(() => null),
      ]);
      if (path !== this.state.path) return;
      this.set({
        selected: { id, text: version.text, currentText: current?.text ?? null, currentHash: current?.hash ?? null },
        notice: null,
        error: null,
      });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  unselect(): void {
    this.set({ selected: null });
  }

  /**
   * Writes the selected version over the file, only if the file is still what the diff showed. The version
   * it replaces goes into history, so the restore can itself be undone from the Timeline.
   */
  async restore(): Promise<boolean> {
    const { path, selected } = this.state;
    if (!path || !selected) return false;
    try {
      await this.bridge.request('history.restore', { path, id: selected.id, expectedHash: selected.currentHash });
      this.set({ selected: null, notice: 'Restored. The version it replaced is in the Timeline.', error: null });
      return true;
    } catch (err) {
      this.set({ error: errorText(err) });
      return false;
    }
  }
}

export const useTimelineStore = perBridge((bridge) => new TimelineStore(bridge));
