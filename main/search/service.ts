import { Emitter, type Event } from '../../shared/base/event';
import type { EventPayload, FsChange, PackedSearchFile, SearchEngine, SearchQuery } from '../../shared/contract';
import { toWireError } from '../errors';
import { logListenerError } from '../events';
import { findExecutable } from '../process';
import type { EngineRun } from './engine';
import { KeptNotebookLists } from './kept-notebook-lists';
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
  /**
   * A test seam: searches (either engine) stop reporting after this many files and wait until one is cancelled,
   * so an end-to-end test cancels a search that is surely still running, however loaded the machine. Not only
   * the first search: one started as the operator types is replaced by the one Enter starts.
   */
  holdSearchesAfter?: number;
  /** The watcher whose change feed covers the whole tree now (its walk done, no watch refused), or null: see KeptNotebookLists. */
  feedCoverage?: () => object | null;
}

/** How often streamed results are sent, at most; a burst is one event, not thousands. */
const BATCH_MS = 40;
const BATCH_MATCHES = 2000;

/** Find in Files: one search at a time, streaming its results as events; a new search cancels the old. */
export class SearchService {
  private readonly ripgrep: Promise<string | null>;
  private current: { id: string; abort: AbortController; finished: Promise<void> } | null = null;
  /** options.holdSearchesAfter, until the first cancel. */
  private holdSearchesAfter: number | undefined;
  private readonly keptNotebooks: KeptNotebookLists;
  private readonly resultsEmitter = new Emitter<EventPayload<'search.results'>>({ onListenerError: logListenerError });
  private readonly doneEmitter = new Emitter<EventPayload<'search.done'>>({ onListenerError: logListenerError });
  /** A batch of a running search's files with their matches (a burst is one event, not thousands). */
  readonly onDidFind: Event<EventPayload<'search.results'>> = this.resultsEmitter.event;
  /** A search finished, was cancelled or failed: its totals, after its last batch. */
  readonly onDidFinish: Event<EventPayload<'search.done'>> = this.doneEmitter.event;

  constructor(private readonly options: SearchServiceOptions) {
    this.holdSearchesAfter = options.holdSearchesAfter;
    this.keptNotebooks = new KeptNotebookLists(options.feedCoverage ?? (() => null));
    const fromEnv = process.env.KILN_RIPGREP;
    this.ripgrep = Promise.resolve(
      options.ripgrepPath !== undefined
        ? options.ripgrepPath
        : fromEnv !== undefined
          ? fromEnv || null
          : findExecutable('rg', process.env.PATH),
    );
  }

  async engine(): Promise<SearchEngine> {
    return (await this.ripgrep) ? 'ripgrep' : 'node';
  }

  async start(
    searchId: string,
    query: SearchQuery,
    maxMatches: number,
  ): Promise<{ searchId: string; engine: SearchEngine }> {
    const parsed = parseQuery(query);
    const rg = await this.ripgrep;
    // After the await, so overlapping starts cancel each other in the order they were asked.
    this.current?.abort.abort();
    const abort = new AbortController();
    const run = this.run(searchId, rg, {
      root: this.options.root,
      query: parsed,
      maxMatches,
      signal: abort.signal,
      holdAfterFiles: this.holdSearchesAfter,
      onFile: () => undefined,
      keptNotebooks: this.keptNotebooks,
    });
    this.current = { id: searchId, abort, finished: run };
    return { searchId, engine: rg ? 'ripgrep' : 'node' };
  }

  /** Follows the change feed: a notebook, folder or ignore file that came, went or moved drops the kept lists. */
  applyChange(change: FsChange): void {
    this.keptNotebooks.applyChange(change);
  }

  cancel(searchId: string): boolean {
    if (this.current?.id !== searchId || this.current.abort.signal.aborted) return false;
    this.holdSearchesAfter = undefined;
    this.current.abort.abort();
    return true;
  }

  async dispose(): Promise<void> {
    this.current?.abort.abort();
    await this.current?.finished;
    this.resultsEmitter.dispose();
    this.doneEmitter.dispose();
  }

  private async run(searchId: string, rg: string | null, run: EngineRun): Promise<void> {
    let pending: PackedSearchFile[] = [];
    let pendingMatches = 0;
    let files = 0;
    let matches = 0;
    let timer: NodeJS.Timeout | null = null;
    const send = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (!pending.length || run.signal.aborted) return;
      this.resultsEmitter.fire({ searchId, files: pending });
      pending = [];
      pendingMatches = 0;
    };
    run.onFile = (file) => {
      if (run.signal.aborted) return;
      pending.push(file);
      files++;
      matches += file.previews.length;
      pendingMatches += file.previews.length;
      if (pendingMatches >= BATCH_MATCHES) send();
      else timer ??= setTimeout(send, BATCH_MS);
    };
    try {
      const outcome = rg ? await searchWithRipgrep(rg, run) : await searchWithNode(run);
      send();
      this.doneEmitter.fire({
        searchId,
        files,
        matches,
        cancelled: run.signal.aborted,
        limitHit: outcome.limitHit,
      });
    } catch (err) {
      if (timer) clearTimeout(timer);
      this.doneEmitter.fire({
        searchId,
        files,
        matches,
        cancelled: run.signal.aborted,
        limitHit: false,
        error: toWireError(err),
      });
    } finally {
      if (this.current?.id === searchId) this.current = null;
    }
  }
}
