import type { KilnBridge } from '../../../shared/contract';
import { Store, errorText, perBridge } from '../base';

const isNotebookPath = (path: string) => path.toLowerCase().endsWith('.ipynb');

export interface OpenChangesState {
  /** The file whose changes are shown; null: closed. */
  path: string | null;
  /** The file at HEAD; null when it is not in HEAD (new) or binary. */
  head: string | null;
  /** The working file; null when deleted, binary or too large. */
  working: string | null;
  /** Whether HEAD has the file. */
  inHead: boolean;
  /** Why the last "Open Changes" failed (untrusted folder, no repository), for the overlay to toast once. */
  error: string | null;
}

const CLOSED = { path: null, head: null, working: null, inHead: false } as const;

/** "Open Changes": one file's working version against git HEAD, shown over the editor. */
export class OpenChangesStore extends Store<OpenChangesState> {
  private loads = 0;

  constructor(private readonly bridge: KilnBridge) {
    super({ ...CLOSED, error: null });
  }

  async show(path: string): Promise<void> {
    const load = ++this.loads;
    try {
      // A notebook compares as cells in main, which reads HEAD itself: its texts (20 MB each for a big notebook)
      // cross only when it must be shown as text after all (NotebookTextChanges).
      const texts = !isNotebookPath(path);
      const changes = await this.bridge.request('git.openChanges', { path, texts });
      if (load === this.loads)
        this.set({ path, head: changes.head, working: changes.working, inHead: changes.inHead, error: null });
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
