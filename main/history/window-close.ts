import { Emitter, type Event } from '../../shared/base/event';
import type { HandlersFor } from '../router';
import type { BackupStore } from './backups';
import type { NotebookBackups } from './notebook-backups';

/**
 * What the Electron host needs to ask about dirty tabs when its window closes: the window's dirty tabs (only
 * the renderer knows text buffers), the window's "all saved, close now", and Don't Save's dropping of backups.
 */
export class WindowCloseState {
  private dirty: string[] = [];
  private readonly closeRequested = new Emitter<void>();
  readonly onCloseRequested: Event<void> = this.closeRequested.event;

  constructor(
    private readonly backups: BackupStore,
    private readonly notebookBackups: NotebookBackups,
  ) {}

  get dirtyPaths(): readonly string[] {
    return this.dirty;
  }

  setDirty(paths: string[]): void {
    this.dirty = [...paths];
  }

  requestClose(): boolean {
    this.closeRequested.fire();
    return true;
  }

  /** Don't Save: the unsaved changes go, so no backup may bring them back on the next start. */
  async dropBackups(): Promise<void> {
    this.notebookBackups.cancelAll();
    for (const backup of await this.backups.list()) await this.backups.discard(backup.path);
  }

  dispose(): void {
    this.closeRequested.dispose();
  }
}

export function windowCloseHandlers(state: WindowCloseState): HandlersFor<'window.dirty' | 'window.close'> {
  return {
    'window.dirty': ({ paths }) => {
      state.setDirty(paths);
      return { ok: true };
    },
    'window.close': () => ({ closing: state.requestClose() }),
  };
}
