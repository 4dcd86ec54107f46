import { useCallback, useEffect, useState } from 'react';
import type { NotebookDiffCell, NotebookDiffResult, TurnCellDecision, TurnNotebook } from '../../../shared/contract';
import { nameOf } from '../../../shared/paths';
import { errorText, useBridge, useStore } from '../base';
import { SideBySideToggle, useDiffSideBySide } from '../editor';
import { NotebookDiffView, type NotebookDiffDecisions } from '../notebook-diff';
import { notebookRestoreTarget } from '../notebook-targets';
import { XIcon } from '../ui';
import { undoInOpenNotebook } from './undo-in-notebook';
import { UNDO_REFUSED_WORDS, undoRefusedTitle, useAgentReviewStore } from './agent-review-store';
import './agent-review.css';

/** A `path` side follows the notebook's edits: the review is asked again once they settle. */
const REFRESH_MS = 150;

/**
 * Over the editor: an Agent turn's changes to this notebook (before the turn ↔ now, only the turn's cells as
 * changes), with Keep / Undo per cell and Keep all / Undo all. Undo goes through the open notebook (one step of its
 * undo each) when it is open, else main writes the file; either way every other byte stays.
 */
export function AgentReviewSlot({ path }: { path: string | null | undefined }) {
  const bridge = useBridge();
  const store = useAgentReviewStore();
  const reviewing = useStore(store, (s) => s.reviewing);
  const sideBySide = useDiffSideBySide();
  const [answer, setAnswer] = useState<{
    notebook: TurnNotebook;
    review: NotebookDiffResult;
    undoAs: Record<string, NotebookDiffCell>;
  } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const shown = reviewing && reviewing.path === path ? reviewing : null;
  const turn = shown?.turn;
  const shownPath = shown?.path;

  /** Asks main for the review as things are now; resolves to it (null when it could not be had, said so). */
  const ask = useCallback(async () => {
    if (!turn || !shownPath) return null;
    try {
      const next = await bridge.request('history.turnNotebookReview', { turn, path: shownPath });
      setAnswer(next);
      store.update(turn, next.notebook);
      return next;
    } catch (err) {
      setError(errorText(err));
      return null;
    }
  }, [bridge, store, turn, shownPath]);

  useEffect(() => {
    setAnswer(null);
    setError(null);
    if (!turn || !shownPath) return;
    void ask();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const again = ({ path: changed }: { path: string }) => {
      if (changed !== shownPath) return;
      clearTimeout(timer);
      timer = setTimeout(() => void ask(), REFRESH_MS);
    };
    const offs = [bridge.on('notebook.dirty', again), bridge.on('notebook.changed', again)];
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
  }, [bridge, ask, turn, shownPath]);

  if (!shown) return null;
  const name = nameOf(shown.path);

  const decide = async (changeIds: string[], decision: TurnCellDecision) => {
    if (!answer || changeIds.length === 0) return;
    setBusy(true);
    setError(null);
    try {
      let write = false;
      let refusedText: string | null = null;
      // An undo is planned over the notebook as it is now: the operator's last keystrokes reach main first and the
      // review is asked again, so a cell edited a moment ago is refused (or merged), never overwritten.
      const target = decision === 'undone' ? notebookRestoreTarget(bridge, shown.path) : null;
      if (target) await target.flushEdits();
      const current = decision === 'undone' ? ((await ask()) ?? answer) : answer;
      if (decision === 'undone') {
        // Cells whose undo would lose the operator's later edits stay as they are, said so, the others go on.
        const refused = current.notebook.cells.filter((cell) => changeIds.includes(cell.changeId) && cell.undoRefused);
        if (refused.length) {
          refusedText = undoRefusedTitle(refused.map((cell) => `Cell ${cell.number} (${cell.undoRefused})`).join(', '));
          changeIds = changeIds.filter((id) => !refused.some((cell) => cell.changeId === id));
        }
      }
      if (decision === 'undone' && changeIds.length) {
        // The notebook-level change has no cell to put back: main writes it (refused over unsaved edits).
        const cells = changeIds.filter((id) => id !== 'notebook');
        if (target) {
          const why = await undoInOpenNotebook(target, current, cells);
          if (why) throw new Error(why);
          if (cells.length) {
            const done = await bridge.request('history.decideTurnCells', {
              turn: shown.turn,
              path: shown.path,
              changeIds: cells,
              decision,
            });
            store.update(shown.turn, done);
          }
          changeIds = changeIds.filter((id) => id === 'notebook');
        }
        write = true;
      }
      if (changeIds.length) {
        const done = await bridge.request('history.decideTurnCells', {
          turn: shown.turn,
          path: shown.path,
          changeIds,
          decision,
          write,
        });
        store.update(shown.turn, done);
      }
      await ask();
      if (refusedText) setError(refusedText);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const decided = answer?.notebook.decided ?? {};
  const open = (answer?.review.diff.changeIds ?? []).filter((id) => !decided[id]);
  const decisions: NotebookDiffDecisions = {
    mode: 'agent',
    decided: Object.fromEntries(Object.entries(decided).map(([id, d]) => [id, d === 'kept' ? 'accepted' : 'rejected'])),
    refused: Object.fromEntries(
      (answer?.notebook.cells ?? []).flatMap((cell) =>
        cell.undoRefused
          ? [[cell.changeId, { words: UNDO_REFUSED_WORDS, why: undoRefusedTitle(cell.undoRefused) }]]
          : [],
      ),
    ),
    onAccept: (id) => void decide([id], 'kept'),
    onReject: (id) => void decide([id], 'undone'),
    onAcceptAll: () => void decide(open, 'kept'),
    onRejectAll: () => void decide(open, 'undone'),
  };
  return (
    <section className="agent-review" aria-label={`Agent's changes to ${name}`} aria-busy={busy}>
      <div className="compare-header">
        <span className="agent-review-title">{name}: the Agent's changes in this turn ↔ before the turn</span>
        <span className="spacer" />
        <SideBySideToggle />
        <button type="button" className="chat-icon-btn" aria-label="Close review" onClick={() => store.close()}>
          <XIcon />
        </button>
      </div>
      {error && (
        <div className="timeline-notice timeline-error" role="alert">
          {error}
        </div>
      )}
      {!answer ? (
        !error && <div className="nbd-loading">Comparing cells…</div>
      ) : (
        <NotebookDiffView
          result={answer.review}
          sideBySide={sideBySide}
          oldLabel="before the turn"
          newLabel={answer.review.unsaved.next ? 'now (unsaved)' : 'now'}
          decisions={decisions}
        />
      )}
    </section>
  );
}
