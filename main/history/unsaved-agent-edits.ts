import { rekeyAfterMove } from '../../shared/fs-change';
import { currentWriteCause } from './cause';

/*
 * An Agent turn's changes to a notebook that was open with the operator's unsaved edits. The verbs change the open
 * notebook and do not save it (the operator's edits are never written behind their back), so nothing reaches local
 * history and the turn's review has no "before" or "what the turn left". They are kept here instead: the open
 * notebook's bytes (as a save would write them) before the turn's first change and after its last. In memory, not
 * in local history: these versions were never on disk, and local history's entries are what a write replaced, which
 * Timeline restores and "Undo this turn" writes back; an unsaved version there would be written over the file.
 * Lost on restart, as the turn's link to the open notebook is (hot exit keeps the notebook's text, not the turn).
 */

/** One turn's changes to one open notebook: its text before the turn's first change and after its last. */
export interface UnsavedAgentEdit {
  base: string;
  left: string;
  /** The file's hash the open notebook was based on when the turn changed it: a save since changes it. */
  diskHash: string | null;
  /** When the turn first changed it unsaved. */
  firstAt: number;
  /** When the turn last changed it (orders the turns of a notebook). */
  at: number;
}

/** Turns kept, the newest: each holds up to two copies of a notebook's text. */
const KEPT_TURNS = 50;
/** And at most this many characters of notebook text in all (the oldest turns go first; the newest always stays). */
const KEPT_CHARS = 256 * 1024 * 1024;

export class UnsavedAgentEdits {
  /** By turn (oldest first), then by notebook path. */
  private readonly byTurn = new Map<string, Map<string, UnsavedAgentEdit>>();

  /**
   * An agent's change to an open notebook that stayed unsaved: `before` and `after` are its bytes as a save would
   * write them. Kept under the turn of the write cause; a change outside an Agent turn is nobody's turn to review.
   */
  noteChange(path: string, before: string, after: string, diskHash: string | null, at = Date.now()): void {
    const turn = currentWriteCause().turn;
    if (!turn || before === after) return;
    let notebooks = this.byTurn.get(turn);
    if (!notebooks) this.byTurn.set(turn, (notebooks = new Map()));
    const known = notebooks.get(path);
    notebooks.set(path, { base: known?.base ?? before, left: after, diskHash, firstAt: known?.firstAt ?? at, at });
    this.trim(turn);
  }

  /** Drops the oldest turns past the bounds, never `current` (a turn that lost its record lists the notebook no more). */
  private trim(current: string): void {
    let chars = 0;
    for (const notebooks of this.byTurn.values())
      for (const edit of notebooks.values()) chars += edit.base.length + edit.left.length;
    for (const [turn, notebooks] of this.byTurn) {
      if (turn === current || (this.byTurn.size <= KEPT_TURNS && chars <= KEPT_CHARS)) continue;
      for (const edit of notebooks.values()) chars -= edit.base.length + edit.left.length;
      this.byTurn.delete(turn);
    }
  }

  of(turn: string, path: string): UnsavedAgentEdit | undefined {
    return this.byTurn.get(turn)?.get(path);
  }

  pathsOf(turn: string): string[] {
    return [...(this.byTurn.get(turn)?.keys() ?? [])];
  }

  /** The turns that changed this notebook unsaved, newest first. */
  turnsOf(path: string): string[] {
    return [...this.byTurn]
      .filter(([, notebooks]) => notebooks.has(path))
      .sort(([, a], [, b]) => b.get(path)!.at - a.get(path)!.at)
      .map(([turn]) => turn);
  }

  /** Follows a rename or move (of the notebook or a folder above it), as local history does. */
  applyMove(from: string, to: string): void {
    for (const notebooks of this.byTurn.values()) rekeyAfterMove(notebooks, from, to);
  }
}
