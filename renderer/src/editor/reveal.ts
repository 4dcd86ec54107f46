import { Emitter } from '../../../shared/base/event';
import { perBridge } from '../base';

/** A place in a file to show and select once its editor has it: Find in Files opens results this way. */
export interface RevealTarget {
  /** 1-based. */
  line: number;
  /** UTF-16 offsets within the line. */
  start: number;
  end: number;
  /** In a notebook: the cell (0-based); `line` is then the line in its source. */
  cell?: number;
  /** In a notebook: the cell by its id (the language server's places), instead of `cell`. */
  cellId?: string;
}

/**
 * The window's reveals waiting for their editor, by path: one per bridge, so a reveal asked in one window (one
 * workspace) is never taken by an editor of another.
 */
export class Reveals {
  private readonly pending = new Map<string, RevealTarget>();
  private readonly requested = new Emitter<string>();

  /** Asks the editor showing `path` (now or once it opens) to select this range and scroll it into view. */
  request(path: string, target: RevealTarget): void {
    this.pending.set(path, target);
    this.requested.fire(path);
  }

  /** The editor takes the request for its path, once. */
  take(path: string): RevealTarget | undefined {
    const target = this.pending.get(path);
    this.pending.delete(path);
    return target;
  }

  onRequest(listener: (path: string) => void): () => void {
    const subscription = this.requested.event(listener);
    return () => void subscription.dispose();
  }

  /** Shows `path`'s pending reveal in its text editor, if there is one: selected, centred, focused. */
  revealPendingIn(path: string, editor: RevealingEditor): void {
    const target = this.take(path);
    if (!target) return;
    const range = {
      startLineNumber: target.line,
      startColumn: target.start + 1,
      endLineNumber: target.line,
      endColumn: target.end + 1,
    };
    editor.setSelection(range);
    editor.revealRangeInCenter(range);
    editor.focus();
  }
}

/** The window's reveals (a hook; `useReveals.of(bridge)` outside React). */
export const useReveals = perBridge(() => new Reveals());

/** What a reveal needs of a Monaco editor (structural: this module loads without Monaco). */
interface RevealingEditor {
  setSelection(range: LineRange): void;
  revealRangeInCenter(range: LineRange): void;
  focus(): void;
}
interface LineRange {
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
}
