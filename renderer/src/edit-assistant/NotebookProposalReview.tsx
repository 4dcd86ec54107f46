import { NotebookCompare, type NotebookDiffDecisions } from '../notebook-diff';
import { useEditAssistantStore, type ReviewState } from './edit-assistant-store';

/**
 * A notebook proposal under review: the notebook diff of what it was made against ↔ the proposal, cell by cell,
 * with Accept / Reject per change and Accept all / Reject all. Each decision goes to main, which writes.
 */
export function NotebookProposalReview({
  review,
  name,
  sideBySide,
}: {
  review: ReviewState & { original: string; modified: string };
  name: string;
  sideBySide: boolean;
}) {
  const store = useEditAssistantStore();
  const { path, proposalId } = review;
  const decided = review.summary?.cells?.decided ?? {};
  const decide = (choice: { accept?: string[]; reject?: string[] }) =>
    void store.decideCells(path, proposalId, choice).catch((err: unknown) => store.addLocalError(path, err));
  const decisions: NotebookDiffDecisions = {
    mode: 'proposal',
    decided,
    onAccept: (changeId) => decide({ accept: [changeId] }),
    onReject: (changeId) => decide({ reject: [changeId] }),
    // The rest: main takes every change not decided yet. Into the open notebook, the cells go through decideCells,
    // which hands back the edits to make there.
    onAcceptAll: (undecided) =>
      review.summary?.cells?.open
        ? decide({ accept: undecided })
        : void store.accept(path, proposalId).catch((err: unknown) => store.addLocalError(path, err)),
    onRejectAll: () => void store.reject(path, proposalId).catch((err: unknown) => store.addLocalError(path, err)),
  };
  return (
    <NotebookCompare
      base={{ text: review.original }}
      next={{ text: review.modified }}
      sideBySide={sideBySide}
      oldLabel={
        review.against === 'disk'
          ? `${name} on disk now`
          : review.summary?.cells?.open
            ? `${name}, unsaved notebook`
            : `${name} before the proposal`
      }
      newLabel={`${name} as proposed`}
      decisions={review.stale ? undefined : decisions}
      fallback={(reason) => (
        <div className="chat-banner chat-banner-error" role="alert">
          {reason}
        </div>
      )}
    />
  );
}
