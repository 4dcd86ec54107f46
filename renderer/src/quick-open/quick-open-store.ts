import type { KilnBridge, QuickOpenResult } from '../../../shared/contract';
import { Store, errorText, perBridge } from '../base';
import { useOpenFilesStore, type OpenFilesStore } from '../editor';

const KEEP_RECENT = 200;

export interface QuickOpenState {
  /** The dialog is showing. */
  open: boolean;
  query: string;
  /** The recently opened files as they were when the dialog opened, most recent first. */
  recent: string[];
  result: QuickOpenResult | null;
  error: string | null;
}

/** Quick Open: the files the operator opened (listed first) and the dialog's query and answer. */
export class QuickOpenStore extends Store<QuickOpenState> {
  private history: string[] = [];
  /** Answers can overtake each other; only the latest query's is shown. */
  private asked = 0;

  constructor(
    private readonly bridge: KilnBridge,
    openFiles: OpenFilesStore,
  ) {
    super({ open: false, query: '', recent: [], result: null, error: null });
    let last: string | null = null;
    this.own(
      openFiles.subscribe(() => {
        const active = openFiles.getState().active;
        if (active && active !== last)
          this.history = [active, ...this.history.filter((p) => p !== active)].slice(0, KEEP_RECENT);
        last = active;
      }),
      // The first scan finished while the dialog was open: ask again over the whole workspace.
      bridge.on('quickOpen.indexed', () => this.state.open && this.search()),
    );
  }

  show(): void {
    this.set({ open: true, query: '', recent: [...this.history], result: null, error: null });
    this.search();
  }

  hide(): void {
    this.asked++;
    this.set({ open: false });
  }

  setQuery(query: string): void {
    this.set({ query });
    this.search();
  }

  private search(): void {
    const ticket = ++this.asked;
    const { query, recent } = this.state;
    this.bridge.request('quickOpen.search', { query, recent, limit: 100 }).then(
      (result) => ticket === this.asked && this.set({ result, error: null }),
      (err: unknown) => ticket === this.asked && this.set({ error: errorText(err) }),
    );
  }
}

export const useQuickOpenStore = perBridge((bridge) => new QuickOpenStore(bridge, useOpenFilesStore.of(bridge)));
