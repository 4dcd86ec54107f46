import { Emitter } from '../../../shared/base/event';

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

const pending = new Map<string, RevealTarget>();
const requested = new Emitter<string>();

/** Asks the editor showing `path` (now or once it opens) to select this range and scroll it into view. */
export function requestReveal(path: string, target: RevealTarget): void {
  pending.set(path, target);
  requested.fire(path);
}

/** The editor takes the request for its path, once. */
export function takeReveal(path: string): RevealTarget | undefined {
  const target = pending.get(path);
  pending.delete(path);
  return target;
}

export function onRevealRequest(listener: (path: string) => void): () => void {
  const subscription = requested.event(listener);
  return () => void subscription.dispose();
}

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

/** Shows `path`'s pending reveal in its text editor, if there is one: selected, centred, focused. */
export function revealPendingIn(path: string, editor: RevealingEditor): void {
  const target = takeReveal(path);
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
