import type { PackedSearchFile } from '../../shared/contract';
import type { KeptNotebookLists } from './kept-notebook-lists';
import type { ParsedQuery } from './query';

export interface EngineRun {
  root: string;
  query: ParsedQuery;
  /** Stop once this many matches were reported. */
  maxMatches: number;
  signal: AbortSignal;
  /** After reporting this many files, the engine reports no more and waits until the search is cancelled (a test seam). */
  holdAfterFiles?: number;
  /** One file with all its matches, packed as `search.results` carries them (the last one may be cut at `maxMatches`). */
  onFile: (file: PackedSearchFile) => void;
  /** Notebook lists kept between searches (ripgrep's engine lists the notebooks in a walk of its own). */
  keptNotebooks?: KeptNotebookLists;
}

export interface EngineOutcome {
  limitHit: boolean;
}

/** A way to search the workspace: ripgrep where it exists, Node otherwise. */
export type SearchEngineRun = (run: EngineRun) => Promise<EngineOutcome>;
