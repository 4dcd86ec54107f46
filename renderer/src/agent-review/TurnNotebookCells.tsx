import { useEffect } from 'react';
import type { TurnNotebook } from '../../../shared/contract';
import { useStore } from '../base';
import { useOpenFilesStore } from '../editor';
import { UNDO_REFUSED_WORDS, actionsText, useAgentReviewStore } from './agent-review-store';

/**
 * The notebooks a finished turn changed, cell by cell (asked of main once the turn has run), and `reload` for
 * after the turn's files changed otherwise (Undo this turn, Redo).
 */
export function useTurnNotebooks(turn: string, running: boolean): { notebooks: TurnNotebook[]; reload: () => void } {
  const store = useAgentReviewStore();
  // Re-read on every store change: a decision answered by main updates the turn's notebooks.
  useStore(store);
  // A failed read leaves the turn's list without its cells (the files still show); said in the console, not hidden.
  const load = () =>
    void store
      .loadTurn(turn)
      .catch((err) => console.warn(`Kiln: the cells turn ${turn} changed could not be read`, err));
  useEffect(() => {
    if (!running) load();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- load only closes over store and turn
  }, [store, turn, running]);
  return { notebooks: store.notebooksOf(turn) ?? [], reload: load };
}

/**
 * Under a notebook in a turn's list of changes: the cells the turn added, edited, deleted and ran, what was
 * decided of each, and "Review cells" (the notebook opens with the turn's changes to keep or undo).
 */
export function TurnNotebookCells({ turn, notebook }: { turn: string; notebook: TurnNotebook }) {
  const store = useAgentReviewStore();
  const files = useOpenFilesStore();
  if (notebook.changedElsewhere)
    return (
      <div className="turn-cells" role="group" aria-label={`Cells of ${notebook.path}`}>
        <div className="turn-cell turn-cell-decided">
          Changed since by another program: its cells cannot be compared with the turn's
        </div>
      </div>
    );
  if (notebook.unsaved === 'discarded')
    return (
      <div className="turn-cells" role="group" aria-label={`Cells of ${notebook.path}`}>
        <div className="turn-cell turn-cell-decided">
          Its changes were in the open notebook, unsaved, and were discarded with it: nothing of them is left
        </div>
      </div>
    );
  if (notebook.cells.length === 0 && Object.keys(notebook.decided).length === 0) return null;
  const undone = Object.values(notebook.decided).filter((d) => d === 'undone').length;
  return (
    <div className="turn-cells" role="group" aria-label={`Cells of ${notebook.path}`}>
      {notebook.cells.map((cell) => (
        <div key={cell.changeId} className="turn-cell" data-decided={notebook.decided[cell.changeId] ?? 'no'}>
          Cell {cell.number}: {actionsText(cell.actions)}
          {notebook.decided[cell.changeId] === 'kept' && <span className="turn-cell-decided"> (kept)</span>}
          {!notebook.decided[cell.changeId] && cell.undoRefused && (
            <span className="turn-cell-decided" title={cell.undoRefused}>
              {' '}
              ({UNDO_REFUSED_WORDS})
            </span>
          )}
        </div>
      ))}
      {notebook.unsaved === 'open' && notebook.cells.length > 0 && (
        <div className="turn-cell turn-cell-decided">In the open notebook, not saved yet (with your unsaved edits)</div>
      )}
      {undone > 0 && (
        <div className="turn-cell turn-cell-decided">
          {undone} cell change{undone === 1 ? '' : 's'} undone
        </div>
      )}
      {notebook.cells.length > 0 && (
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            void files.open(notebook.path);
            store.open(turn, notebook.path);
          }}
        >
          Review cells
        </button>
      )}
    </div>
  );
}
