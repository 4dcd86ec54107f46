import type { KilnBridge, TurnCell, TurnNotebook } from '../../../shared/contract';
import { pathAfterMove } from '../../../shared/fs-change';
import { Store, perBridge } from '../base';

/** A cell an Agent turn changed that the operator has not reviewed yet: what the notebook marks. */
export interface AgentCellMark {
  turn: string;
  path: string;
  changeId: string;
  actions: TurnCell['actions'];
}

export interface AgentReviewState {
  /** Unreviewed cells by notebook path, then by cell id. */
  marks: Readonly<Record<string, Readonly<Record<string, AgentCellMark>>>>;
  /** The turn's changes to a notebook shown over the editor (Keep / Undo), or none. */
  reviewing: { turn: string; path: string } | null;
}

/**
 * The window's part of reviewing an Agent turn's notebook edits: which cells are still to review (marked in the
 * open notebook), and which review is open. Main holds the changes and the decisions; this follows its answers.
 */
export class AgentReviewStore extends Store<AgentReviewState> {
  /** Per turn, the notebooks it changed as main last answered. */
  private readonly turns = new Map<string, TurnNotebook[]>();

  constructor(private readonly bridge: KilnBridge) {
    super({ marks: {}, reviewing: null });
    this.own(
      bridge.on('fs.change', (change) => {
        if (change.type !== 'moved') return;
        const reviewing = this.state.reviewing;
        const moved = reviewing && pathAfterMove(reviewing.path, change.from, change.to);
        if (reviewing && moved && moved !== reviewing.path) this.set({ reviewing: { ...reviewing, path: moved } });
      }),
    );
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
          if (!cell.cellId || notebook.decided[cell.changeId] || cell.actions.includes('deleted')) continue;
          (marks[notebook.path] ??= {})[cell.cellId] = {
            turn,
            path: notebook.path,
            changeId: cell.changeId,
            actions: cell.actions,
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
