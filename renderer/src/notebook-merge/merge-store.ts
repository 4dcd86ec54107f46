import type { KilnBridge, NotebookMergeResult } from '../../../shared/contract';
import type { MergeResolution } from '../../../shared/notebook-diff';
import { Store, errorText } from '../base';

/*
 * The resolver of one notebook git left in conflict: main's three-way merge, the operator's choice per conflict,
 * and Save (the resolved notebook written) or Save and Stage (then `git add`). Nothing is staged otherwise.
 */

export interface NotebookMergeState {
  /** `saved`: written (and staged when asked); the notebook reopens and this merge is done. */
  status: 'loading' | 'ready' | 'saving' | 'saved' | 'error';
  merge: NotebookMergeResult | null;
  /** Conflict id → the operator's choice. */
  resolutions: Record<string, MergeResolution>;
  /** Why loading or saving failed, as the UI says it. */
  error: string | null;
}

export class NotebookMergeStore extends Store<NotebookMergeState> {
  constructor(
    private readonly bridge: KilnBridge,
    readonly path: string,
    /** Called once the resolved notebook is written (and staged when asked): the notebook opens as usual. */
    private readonly onSaved: () => void,
  ) {
    super({ status: 'loading', merge: null, resolutions: {}, error: null });
  }

  async load(): Promise<void> {
    this.set({ status: 'loading', error: null });
    try {
      const merge = await this.bridge.request('git.notebookMerge', { path: this.path });
      if (this.isDisposed) return;
      this.set({ status: 'ready', merge, resolutions: {} });
    } catch (err) {
      this.set({ status: 'error', error: errorText(err, `Could not merge ${this.path}`) });
    }
  }

  resolve(conflictId: string, resolution: MergeResolution): void {
    this.set({ resolutions: { ...this.state.resolutions, [conflictId]: resolution } });
  }

  /** How many conflicts have a choice, of how many. */
  progress(): { resolved: number; total: number } {
    const ids = this.state.merge?.merge.conflictIds ?? [];
    return { resolved: ids.filter((id) => id in this.state.resolutions).length, total: ids.length };
  }

  async save(stage: boolean): Promise<void> {
    const { merge, resolutions, status } = this.state;
    if (!merge || status !== 'ready') return;
    this.set({ status: 'saving', error: null });
    try {
      await this.bridge.request('git.saveNotebookMerge', {
        path: merge.path,
        fileHash: merge.fileHash,
        versions: merge.versions,
        resolutions,
      });
      if (stage) await this.bridge.request('git.stage', { path: merge.path });
    } catch (err) {
      this.set({ status: 'ready', error: errorText(err, stage ? 'Could not save and stage' : 'Could not save') });
      return;
    }
    this.set({ status: 'saved' });
    this.onSaved();
  }
}
