import { Store, type Readable } from '../../base';
import type { ReplaceStep } from '../notebook-controller';
import type { NotebookSession } from '../notebook-session';
import {
  EMPTY_QUERY,
  findInCells,
  matchesByCell,
  nearestMatch,
  replaceInSource,
  replacementFor,
  stepMatch,
  type FindMatch,
  type FindQuery,
} from './find-model';
import { outputReaders } from './page-readers';

export interface FindState {
  open: boolean;
  /** The replace row is shown (Ctrl/Cmd+H). */
  replacing: boolean;
  query: FindQuery;
  replacement: string;
  matches: readonly FindMatch[];
  /** The matches of each cell (a cell's list stays the same object while its matches do). */
  byCell: ReadonlyMap<string, readonly FindMatch[]>;
  current: number | null;
  error: string | null;
  /** Bumped to move focus into the find field. */
  focusTick: number;
  /** The last Replace All, which one Undo puts back. */
  lastReplaceAll: { count: number; before: { cellId: string; source: string }[]; step: ReplaceStep | null } | null;
}

const NO_MATCHES: ReadonlyMap<string, readonly FindMatch[]> = new Map();

/**
 * Find and replace over the whole notebook: every cell's source (and, when asked, its text outputs), whether
 * its editor exists or not and whether its section is collapsed. The model is the session's cells, not the
 * DOM, so a cell far down or folded away is counted and highlighted all the same.
 */
export class FindController extends Store<FindState> {
  private cellsSeen: unknown = null;
  private readonly trailing = new TrailingStore<FindState>(this.state);

  /**
   * The same state once the frame that shows the first highlights has painted: what is off screen (cells
   * whose editors do not exist yet, rendered markdown) follows from here, so a query over thousands of cells
   * paints the highlights in view first.
   */
  readonly later: Readable<FindState> = this.trailing;

  constructor(
    private readonly session: NotebookSession,
    private readonly options: {
      /** Brings a match into view: its section expanded, its cell scrolled to. */
      reveal: (match: FindMatch) => void;
      onError: (err: unknown) => void;
      /** Writes new sources as one step of the notebook's undo stack (so Z takes a Replace All back whole). */
      replaceSources: (edits: { cellId: string; source: string }[]) => Promise<ReplaceStep | null>;
      /** The notebook's Undo (Z). */
      undo: () => void;
    },
  ) {
    super({
      open: false,
      replacing: false,
      query: EMPTY_QUERY,
      replacement: '',
      matches: [],
      byCell: NO_MATCHES,
      current: null,
      error: null,
      focusTick: 0,
      lastReplaceAll: null,
    });
    this.own(
      session.subscribe(() => this.refresh()),
      this.subscribe(() => this.trailing.follow(this.state)),
      () => this.trailing.dispose(),
    );
  }

  /** Opens the bar (with the replace row for Ctrl/Cmd+H) and puts focus in it, seeded with `text` when given. */
  show = (replacing: boolean, text?: string): void => {
    const query = text ? { ...this.state.query, text } : this.state.query;
    this.set({ open: true, replacing: replacing || this.state.replacing, focusTick: this.state.focusTick + 1 });
    this.search(query, false);
  };

  close = (): void => {
    this.set({ open: false, matches: [], byCell: NO_MATCHES, current: null });
    this.cellsSeen = null;
  };

  setQuery = (patch: Partial<FindQuery>): void => this.search({ ...this.state.query, ...patch }, true);

  setReplacement = (replacement: string): void => this.set({ replacement });

  toggleReplace = (): void => this.set({ replacing: !this.state.replacing });

  next = (): void => this.go(1);

  previous = (): void => this.go(-1);

  /** Replaces the current match (in a cell's source) and moves to the next one. */
  replaceCurrent = async (): Promise<void> => {
    const { matches, current, replacement, query } = this.state;
    const match = current === null ? null : matches[current];
    if (!match) return;
    if (match.area !== 'source') return this.go(1);
    const view = this.session.cell(match.cellId);
    if (!view) return;
    const source = replaceInSource(view.cell.source, [match], replacement, query);
    const after = { cellIndex: match.cellIndex, area: match.area, start: match.start + this.replacedLength(match) };
    try {
      await this.options.replaceSources([{ cellId: match.cellId, source }]);
    } catch (err) {
      return this.options.onError(err);
    }
    this.refresh(after);
    const now = this.state.current;
    if (now !== null) this.options.reveal(this.state.matches[now]);
  };

  /** Replaces every source match in every cell, as one edit of the notebook (one Undo puts it all back). */
  replaceAll = async (): Promise<void> => {
    const { byCell, replacement, query } = this.state;
    const edits: { cellId: string; source: string }[] = [];
    const before: { cellId: string; source: string }[] = [];
    let count = 0;
    for (const [cellId, matches] of byCell) {
      const view = this.session.cell(cellId);
      const inSource = matches.filter((m) => m.area === 'source');
      if (!view || !inSource.length) continue;
      count += inSource.length;
      before.push({ cellId, source: view.cell.source });
      edits.push({ cellId, source: replaceInSource(view.cell.source, inSource, replacement, query) });
    }
    if (!edits.length) return;
    try {
      const step = await this.options.replaceSources(edits);
      this.set({ lastReplaceAll: { count, before, step } });
    } catch (err) {
      this.options.onError(err);
    }
  };

  /**
   * Puts back what the last Replace All changed: the notebook's Undo when it is the latest step (so Shift+Z
   * redoes it), else its sources written back as a new step.
   */
  undoReplaceAll = async (): Promise<void> => {
    const last = this.state.lastReplaceAll;
    if (!last) return;
    this.set({ lastReplaceAll: null });
    if (last.step?.isLatest()) return this.options.undo();
    const present = last.before.filter((e) => this.session.cell(e.cellId));
    try {
      await this.options.replaceSources(present);
    } catch (err) {
      this.options.onError(err);
    }
  };

  private replacedLength(match: FindMatch): number {
    const view = this.session.cell(match.cellId);
    const matched = view?.cell.source.slice(match.start, match.end) ?? '';
    return replacementFor(matched, this.state.replacement, this.state.query).length;
  }

  private go(step: 1 | -1): void {
    if (!this.state.open) return;
    const current = stepMatch(this.state.matches.length, this.state.current, step);
    this.set({ current });
    if (current !== null) this.options.reveal(this.state.matches[current]);
  }

  private search(query: FindQuery, reveal: boolean): void {
    const previous = this.state.current === null ? null : this.state.matches[this.state.current];
    this.set({ query, lastReplaceAll: query.text === this.state.query.text ? this.state.lastReplaceAll : null });
    this.cellsSeen = null;
    this.refresh(previous ?? null);
    const current = this.state.current;
    if (reveal && current !== null) this.options.reveal(this.state.matches[current]);
  }

  /** Runs the search again when the cells changed (typing, a run's output), keeping the current match near. */
  private refresh(near?: Pick<FindMatch, 'cellIndex' | 'area' | 'output' | 'start'> | null): void {
    if (!this.state.open) return;
    const { cells } = this.session.getState();
    if (cells === this.cellsSeen && near === undefined) return;
    this.cellsSeen = cells;
    const { matches, error } = findInCells(
      cells.map((v) => v.cell),
      this.state.query,
      outputReaders(),
    );
    const old = this.state.current === null ? null : this.state.matches[this.state.current];
    const where = near !== undefined ? near : old;
    this.set({
      matches,
      error,
      byCell: matches.length ? matchesByCell(matches, this.state.byCell) : NO_MATCHES,
      current: nearestMatch(matches, where),
    });
  }
}

/** A store that takes a value after the next frame has painted (coalesced: the last value wins). */
class TrailingStore<S extends object> extends Store<S> {
  private waiting: S | null = null;
  private paintTimer: ReturnType<typeof setTimeout> | null = null;
  private paintFrame: number | null = null;

  follow(state: S): void {
    this.waiting = state;
    if (this.paintFrame !== null || this.paintTimer !== null) return;
    this.paintFrame = requestAnimationFrame(() => {
      this.paintFrame = null;
      this.paintTimer = setTimeout(() => {
        this.paintTimer = null;
        if (this.waiting) this.set(this.waiting);
        this.waiting = null;
      }, 0);
    });
  }

  override dispose(): void {
    if (this.paintFrame !== null) cancelAnimationFrame(this.paintFrame);
    if (this.paintTimer !== null) clearTimeout(this.paintTimer);
    super.dispose();
  }
}
