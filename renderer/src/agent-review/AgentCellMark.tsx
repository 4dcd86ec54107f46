import { useEffect } from 'react';
import { useStore } from '../base';
import { UNDO_REFUSED_WORDS, useAgentReviewStore, actionsText, type AgentCellMark } from './agent-review-store';

const NO_MARKS: Readonly<Record<string, AgentCellMark>> = {};

/** The cells of the notebook at `path` an Agent turn changed and the operator has not reviewed, by cell id. */
export function useAgentCellMarks(path: string): Readonly<Record<string, AgentCellMark>> {
  const store = useAgentReviewStore();
  // Asked of main while the notebook is shown: its unreviewed agent cells, whether or not the Agent panel loaded them.
  useEffect(() => store.watchNotebook(path), [store, path]);
  return useStore(store, (state) => state.marks[path] ?? NO_MARKS);
}

/** In a marked cell's gutter: the agent's mark, which opens the review of the turn's changes to this notebook. */
export function AgentCellMarkButton({ mark }: { mark: AgentCellMark }) {
  const store = useAgentReviewStore();
  const what = actionsText(mark.actions);
  // A cell whose Undo main refuses says so in its mark: the operator edited the agent's lines since.
  const refused = mark.undoRefused ? `; ${UNDO_REFUSED_WORDS}` : '';
  // "AI" is CSS content: decoration, not part of the button's name (WCAG 2.5.3 compares the two).
  return (
    <button
      type="button"
      className={`nb-agent-mark${mark.undoRefused ? ' nb-agent-mark-refused' : ''}`}
      aria-label={`Review the Agent's change (${what}${refused})`}
      title={
        mark.undoRefused
          ? `The Agent ${what} this cell and you edited its lines since: Undo is refused (${mark.undoRefused}); review (Keep, or change it by hand)`
          : `The Agent ${what} this cell: review (Keep / Undo)`
      }
      onClick={() => store.open(mark.turn, mark.path)}
    />
  );
}
