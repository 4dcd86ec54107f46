import type { KilnBridge } from '../../../shared/contract';
import { Store, errorText, perBridge } from '../base';

export interface OpenChangesState {
  /** The file whose changes are shown; null: closed. */
  path: string | null;
  /** The file at HEAD; null when it is not in HEAD (new) or binary. */
  head: string | null;
  /** The working file; null when deleted, binary or too large. */
  working: string | null;
  /** Why the last "Open Changes" failed (untrusted folder, no repository), for the overlay to toast once. */
  error: string | null;
}

const CLOSED = { path: null, head: null, working: null } as const;

/** "Open Changes": one file's working version against git HEAD, shown over the editor. */
export class OpenChangesStore extends Store<OpenChangesState> {
  private loads = 0;

  constructor(private readonly bridge: KilnBridge) {
    super({ ...CLOSED, error: null });
  }

  async show(path: string): Promise<void> {
    const load = ++this.loads;
    try {
      const changes = await this.bridge.request('git.openChanges', { path });
      if (load === this.loads) this.set({ path, head: changes.head, working: changes.working, error: null });
    } catch (err) {
      if (load === this.loads) this.set({ ...CLOSED, error: errorText(err) });
    }
  }

  close(): void {
    this.loads++;
    this.set({ ...CLOSED });
  }

  /** The error was said (a toast): forget it so it is said once. */
  errorShown(): void {
    this.set({ error: null });
  }
}

export const useOpenChangesStore = perBridge((bridge) => new OpenChangesStore(bridge));
