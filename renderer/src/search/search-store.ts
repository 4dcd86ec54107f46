import type { KilnBridge, SearchEngine, SearchFileResult, SearchQuery } from '../../../shared/contract';
import { unpackSearchFile } from '../../../shared/search-results';
import { Store, errorText, perBridge } from '../base';

export interface SearchState {
  query: Required<SearchQuery>;
  status: 'idle' | 'searching' | 'done' | 'cancelled' | 'error';
  /** Files in the order their results arrived. */
  files: SearchFileResult[];
  matchCount: number;
  limitHit: boolean;
  engine: SearchEngine | null;
  error: string | null;
}

const EMPTY_QUERY: Required<SearchQuery> = {
  pattern: '',
  isRegex: false,
  matchCase: false,
  wholeWord: false,
  include: '',
  exclude: '',
};

/** Find in Files: the query, and the results of the latest search as they stream in. */
export class SearchStore extends Store<SearchState> {
  private currentId: string | null = null;

  constructor(private readonly bridge: KilnBridge) {
    super({ query: EMPTY_QUERY, status: 'idle', files: [], matchCount: 0, limitHit: false, engine: null, error: null });
    this.own(
      bridge.on('search.results', ({ searchId, files: packed }) => {
        if (searchId !== this.currentId) return;
        const files = packed.map(unpackSearchFile);
        this.set({
          files: [...this.state.files, ...files],
          matchCount: this.state.matchCount + files.reduce((n, f) => n + f.matches.length, 0),
        });
      }),
      bridge.on('search.done', (done) => {
        if (done.searchId !== this.currentId) return;
        this.currentId = null;
        const status = done.error ? 'error' : done.cancelled ? 'cancelled' : 'done';
        this.set({ status, limitHit: done.limitHit, error: done.error?.message ?? null });
      }),
    );
  }

  /** Changes the query; a non-empty one starts a new search (the main side cancels the old). */
  async search(change: Partial<SearchQuery>): Promise<void> {
    const query = { ...this.state.query, ...change };
    const searchId = `search-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.currentId = query.pattern ? searchId : null;
    if (!query.pattern) {
      this.set({ query, status: 'idle', files: [], matchCount: 0, limitHit: false, error: null });
      return;
    }
    this.set({ query, status: 'searching', files: [], matchCount: 0, limitHit: false, error: null });
    try {
      const { engine } = await this.bridge.request('search.start', { ...query, searchId });
      if (this.currentId === searchId) this.set({ engine });
    } catch (err) {
      if (this.currentId !== searchId) return;
      this.currentId = null;
      this.set({ status: 'error', error: errorText(err) });
    }
  }

  /** Takes matches out of the results (Dismiss, or replaced): `indexes` of the file's matches, or the whole file. */
  dismiss(path: string, indexes?: number[]): void {
    const files = this.state.files.flatMap((file) => {
      if (file.path !== path) return [file];
      const matches = indexes ? file.matches.filter((_, i) => !indexes.includes(i)) : [];
      return matches.length ? [{ ...file, matches }] : [];
    });
    const matchCount = files.reduce((n, f) => n + f.matches.length, 0);
    this.set({ files, matchCount });
  }

  async cancel(): Promise<void> {
    if (this.currentId) await this.bridge.request('search.cancel', { searchId: this.currentId });
  }

  override dispose(): void {
    void this.cancel();
    super.dispose();
  }
}

export const useSearchStore = perBridge((bridge) => new SearchStore(bridge));
