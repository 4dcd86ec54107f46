import type { EventPayload, SearchEngine, SearchFileResult, SearchQuery } from '../../shared/contract';
import { toWireError } from '../../shared/errors';
import { findExecutable } from '../executables';
import type { EngineRun } from './engine';
import { searchWithNode } from './node-search';
import { parseQuery } from './query';
import { searchWithRipgrep } from './ripgrep';

export interface SearchServiceOptions {
  root: string;
  /**
   * ripgrep's path; null forces the Node engine. By default KILN_RIPGREP (a path, or empty for none),
   * else `rg` on PATH.
   */
  ripgrepPath?: string | null;
  emit: {
    (channel: 'search.results', payload: EventPayload<'search.results'>): void;
    (channel: 'search.done', payload: EventPayload<'search.done'>): void;
  };
}

/** How often streamed results are sent, at most; a burst is one event, not thousands. */
const BATCH_MS = 40;
const BATCH_MATCHES = 2000;

/** Find in Files: one search at a time, streaming its results as events; a new search cancels the old. */
export class SearchService {
  private readonly ripgrep: string | null;
  private current: { id: string; abort: AbortController; finished: Promise<void> } | null = null;

  constructor(private readonly options: SearchServiceOptions) {
    const fromEnv = process.env.KILN_RIPGREP;
    this.ripgrep = options.ripgrepPath !== undefined ? options.ripgrepPath : fromEnv !== undefined ? fromEnv || null : findExecutable('rg');
  }

  get engine(): SearchEngine {
    return this.ripgrep ? 'ripgrep' : 'node';
  }

  start(searchId: string, query: SearchQuery, maxMatches: number): { searchId: string; engine: SearchEngine } {
    const parsed = parseQuery(query);
    this.current?.abort.abort();
    const abort = new AbortController();
    const run = this.run(searchId, { root: this.options.root, query: parsed, maxMatches, signal: abort.signal, onFile: () => undefined });
    this.current = { id: searchId, abort, finished: run };
    return { searchId, engine: this.engine };
  }

  cancel(searchId: string): boolean {
    if (this.current?.id !== searchId || this.current.abort.signal.aborted) return false;
    this.current.abort.abort();
    return true;
  }

  async dispose(): Promise<void> {
    this.current?.abort.abort();
    await this.current?.finished;
  }

  private async run(searchId: string, run: EngineRun): Promise<void> {
    let pending: SearchFileResult[] = [];
    let pendingMatches = 0;
    let files = 0;
    let matches = 0;
    let timer: NodeJS.Timeout | null = null;
    const send = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (!pending.length || run.signal.aborted) return;
      this.options.emit('search.results', { searchId, files: pending });
      pending = [];
      pendingMatches = 0;
    };
    run.onFile = (file) => {
      if (run.signal.aborted) return;
      pending.push(file);
      files++;
      matches += file.matches.length;
      pendingMatches += file.matches.length;
      if (pendingMatches >= BATCH_MATCHES) send();
      else timer ??= setTimeout(send, BATCH_MS);
    };
    try {
      const outcome = this.ripgrep ? await searchWithRipgrep(this.ripgrep, run) : await searchWithNode(run);
      send();
      this.options.emit('search.done', { searchId, files, matches, cancelled: run.signal.aborted, limitHit: outcome.limitHit });
    } catch (err) {
      if (timer) clearTimeout(timer);
      this.options.emit('search.done', { searchId, files, matches, cancelled: run.signal.aborted, limitHit: false, error: toWireError(err) });
    } finally {
      if (this.current?.id === searchId) this.current = null;
    }
  }
}
