import { useEffect } from 'react';
import { useStore } from '../base';
import { useAgentReviewStore, actionsText, type AgentCellMark } from './agent-review-store';

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
  // "AI" is CSS content: decoration, not part of the button's name (WCAG 2.5.3 compares the two).
  return (
    <button
      type="button"
      className="nb-agent-mark"
      aria-label={`Review the Agent's change (${what})`}
      title={`The Agent ${what} this cell: review (Keep / Undo)`}
      onClick={() => store.open(mark.turn, mark.path)}
    />
  );
}
