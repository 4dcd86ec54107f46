import type { KilnBridge, TurnCell, TurnNotebook } from '../../../shared/contract';
import { createdPaths, pathAfterMove } from '../../../shared/fs-change';
import { Store, perBridge } from '../base';
import { notebookRestoreTarget } from '../notebook-targets';

/** A cell an Agent turn changed that the operator has not reviewed yet: what the notebook marks. */
export interface AgentCellMark {
  turn: string;
  path: string;
  changeId: string;
  actions: TurnCell['actions'];
  /** Set when Undo of this cell is refused (the operator edited lines the agent changed since): why. */
  undoRefused?: string;
}

export interface AgentReviewState {
  /** Unreviewed cells by notebook path, then by cell id. */
  marks: Readonly<Record<string, Readonly<Record<string, AgentCellMark>>>>;
  /** The turn's changes to a notebook shown over the editor (Keep / Undo), or none. */
  reviewing: { turn: string; path: string } | null;
}

/** How long the operator's edits of a marked notebook pause before its marks are asked of main again. */
const EDITS_SETTLE_MS = 300;

/**
 * The window's part of reviewing an Agent turn's notebook edits: which cells are still to review (marked in the
 * open notebook), and which review is open. Main holds the changes and the decisions; this follows its answers.
 */
export class AgentReviewStore extends Store<AgentReviewState> {
  /** Per turn, the notebooks it changed as main last answered. */
  private readonly turns = new Map<string, TurnNotebook[]>();
  /** Open notebooks whose marks this window keeps, by path: how many views show each. */
  private readonly watched = new Map<string, number>();
  /** Per watched path, whether an ask of main is running, and whether another must follow it. */
  private readonly asking = new Map<string, 'running' | 'again'>();

  /** Per marked notebook, the ask due once the operator's edits settle. */
  private readonly editTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly bridge: KilnBridge) {
    super({ marks: {}, reviewing: null });
    // The agent changed an open notebook without saving it (over the operator's unsaved edits), or the notebook
    // was saved or reverted (those changes now on disk, or discarded): its marks are asked of main again.
    this.own(
      bridge.on('notebook.changed', ({ path }) => {
        if (this.watched.has(path)) this.askMarks(path);
      }),
    );
    this.own(
      bridge.on('notebook.dirty', ({ path, dirty }) => {
        if (!dirty && this.watched.has(path)) this.askMarks(path);
      }),
      // A turn's unsaved changes were saved, reverted or closed without saving (no view of the notebook left to
      // ask): the turn's list is asked again, so it says what became of them.
      bridge.on('history.turnNotebook', ({ turn, path }) => {
        if (this.turns.has(turn))
          void this.loadTurn(turn).catch((err: unknown) => console.warn(`Kiln: turn ${turn}`, err));
        if (this.watched.has(path)) this.askMarks(path);
      }),
    );
    this.own(
      // The operator's edits of a marked cell can make its Undo refused (or no longer): its mark is asked again.
      bridge.on('notebook.dirty', ({ path }) => {
        if (!this.watched.has(path) || !this.state.marks[path]) return;
        clearTimeout(this.editTimers.get(path));
        this.editTimers.set(
          path,
          setTimeout(() => {
            this.editTimers.delete(path);
            if (this.watched.has(path)) this.askMarks(path);
          }, EDITS_SETTLE_MS),
        );
      }),
      () => this.editTimers.forEach((timer) => clearTimeout(timer)),
      bridge.on('fs.change', (change) => {
        // The agent wrote an open notebook (a cell verb, a turn's write): its marks are asked of main again.
        if (change.type === 'createdFiles') {
          if (change.origin === 'agent')
            for (const rel of createdPaths(change)) if (this.watched.has(rel)) this.askMarks(rel);
          return;
        }
        if ((change.type === 'updated' || change.type === 'created') && change.origin === 'agent') {
          if (this.watched.has(change.path)) this.askMarks(change.path);
          return;
        }
        if (change.type !== 'moved') return;
        const reviewing = this.state.reviewing;
        const moved = reviewing && pathAfterMove(reviewing.path, change.from, change.to);
        if (reviewing && moved && moved !== reviewing.path) this.set({ reviewing: { ...reviewing, path: moved } });
      }),
    );
  }

  /**
   * Keeps the marks of an open notebook: every Agent turn's changes to it still to review, asked of main now and
   * after each agent write to it, so a notebook opened after a restart (or with the Agent panel never shown) is
   * marked too. Returns the disposer for when the view closes.
   */
  watchNotebook(path: string): () => void {
    this.watched.set(path, (this.watched.get(path) ?? 0) + 1);
    this.askMarks(path);
    return () => {
      const left = (this.watched.get(path) ?? 1) - 1;
      if (left > 0) this.watched.set(path, left);
      else this.watched.delete(path);
    };
  }

  /** One ask at a time per notebook; changes meanwhile ask once more after it. */
  private askMarks(path: string): void {
    if (this.asking.has(path)) {
      this.asking.set(path, 'again');
      return;
    }
    this.asking.set(path, 'running');
    void this.bridge
      .request('history.notebookTurnsToReview', { path })
      .then(({ turns }) => {
        for (const { turn, notebook } of turns) this.update(turn, notebook);
        // A turn whose unsaved changes here main no longer lists (discarded with the open notebook): asked again,
        // so its marks go and its list says so.
        for (const [turn, notebooks] of this.turns) {
          const listed = turns.some((answered) => answered.turn === turn);
          const marking = notebooks.some(
            (nb) => nb.path === path && nb.unsaved === 'open' && nb.cells.some((cell) => !nb.decided[cell.changeId]),
          );
          if (!listed && marking)
            void this.loadTurn(turn).catch((err: unknown) => console.warn(`Kiln: turn ${turn}`, err));
        }
      })
      .catch((err: unknown) => {
        // Marks are a hint: the notebook stays usable; the Agent panel's turn list still lists the cells.
        console.warn(`Kiln: the agent's marks of ${path} could not be read`, err);
      })
      .finally(() => {
        const again = this.asking.get(path) === 'again';
        this.asking.delete(path);
        if (again && this.watched.has(path)) this.askMarks(path);
      });
  }

  /** Asks main which notebooks a finished turn changed, cell by cell. */
  async loadTurn(turn: string): Promise<TurnNotebook[]> {
    const { notebooks } = await this.bridge.request('history.turnNotebooks', { turn });
    this.turns.set(turn, notebooks);
    this.remark();
    return notebooks;
  }

  /** Main's answer after a decision (or a review's load): the notebook's cells and decisions now. */
  update(turn: string, notebook: TurnNotebook): void {
    const known = (this.turns.get(turn) ?? []).filter((nb) => nb.path !== notebook.path);
    this.turns.set(turn, [...known, notebook]);
    this.remark();
  }

  notebooksOf(turn: string): TurnNotebook[] | undefined {
    return this.turns.get(turn);
  }

  open(turn: string, path: string): void {
    this.set({ reviewing: { turn, path } });
  }

  close(): void {
    this.set({ reviewing: null });
  }

  private remark(): void {
    const marks: Record<string, Record<string, AgentCellMark>> = {};
    for (const [turn, notebooks] of this.turns) {
      for (const notebook of notebooks) {
        for (const cell of notebook.cells) {
          if (notebook.decided[cell.changeId] || cell.actions.includes('deleted')) continue;
          // A cell without an id in its file (nbformat 4.4) is the open notebook's cell at its position now.
          const cellId = cell.cellId ?? notebookRestoreTarget(this.bridge, notebook.path)?.cellIds()[cell.number - 1];
          if (!cellId) continue;
          (marks[notebook.path] ??= {})[cellId] = {
            turn,
            path: notebook.path,
            changeId: cell.changeId,
            actions: cell.actions,
            ...(cell.undoRefused ? { undoRefused: cell.undoRefused } : {}),
          };
        }
      }
    }
    this.set({ marks });
  }
}

export const useAgentReviewStore = perBridge((bridge) => new AgentReviewStore(bridge));

/** "edited, ran" */
export function actionsText(actions: readonly string[]): string {
  return actions.join(', ');
}

/** The short name of a cell whose Undo is refused: what its mark, its review group and its list line say. */
export const UNDO_REFUSED_WORDS = 'not undone, edited since';

/** The title of a refused cell's Undo: why, and what the operator can do instead. */
export function undoRefusedTitle(why: string): string {
  return `Not undone, to keep your later edits: ${why}. Compare it below and change it by hand, or keep it.`;
}
