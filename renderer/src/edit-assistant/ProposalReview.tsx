import { nameOf } from '../../../shared/paths';
import { DiffView } from '../editor';
import { DiffIcon, WarningIcon, XIcon, usePrefs } from '../ui';
import { useStore } from '../base';
import { useEditAssistantStore } from './edit-assistant-store';
import './edit-assistant.css';
import { PROPOSAL_STATUS_SHOWN } from './proposal-status';
import { NotebookProposalReview } from './NotebookProposalReview';

/**
 * The centre's view of a proposal under review: a Monaco diff of baseline (or disk) ↔ proposal.
 * EditorArea renders this slot above its document; it is empty unless the active file has a review,
 * and then the editor below is hidden (CSS) until the review closes.
 */
export function ProposalReviewSlot({ path }: { path: string | null | undefined }) {
  const store = useEditAssistantStore();
  // Only this file's review: a transcript streaming in the panel does not re-render the centre.
  const review = useStore(store, (s) => (path ? s.reviews[path] : undefined));
  const { prefs } = usePrefs();
  const ready = review !== undefined && review.original !== null && review.modified !== null;

  if (!path || !review) return null;
  const name = nameOf(path);
  const summary = review.summary;
  const sideBySide = prefs?.diffSideBySide ?? true;
  // A notebook proposal made against the open notebook's unsaved edits is compared with those, not a saved file.
  const oldSide = review.against === 'disk' ? 'on disk now' : summary?.cells?.open ? 'unsaved notebook' : 'baseline';

  return (
    <section
      className="proposal-review"
      aria-label={`Proposed changes to ${name}`}
      data-proposal-id={review.proposalId}
      data-ready={ready ? 'true' : undefined}
    >
      <div className="pr-header">
        <span className="pr-icon">
          <DiffIcon />
        </span>
        <span className="pr-title">
          {review.against === 'disk' ? 'On disk ↔ proposal' : 'Proposed changes'}
          <span className="pr-file"> · {name}</span>
        </span>
        {summary && (
          <span className="ea-chip-counts">
            <span className="ea-added">+{summary.linesAdded}</span>{' '}
            <span className="ea-removed">−{summary.linesRemoved}</span>
          </span>
        )}
        {summary && <span className={`ea-pill status-${summary.status}`}>{PROPOSAL_STATUS_SHOWN[summary.status]}</span>}
        <span className="spacer" />
        <span className="pr-legend">
          {sideBySide ? `left: ${oldSide} · right: proposal` : `− ${oldSide} · + proposal`}
        </span>
        <button
          type="button"
          className="chat-icon-btn"
          title="Back to the editor"
          aria-label="Close review"
          onClick={() => store.closeReview(path)}
        >
          <XIcon />
        </button>
      </div>
      {review.error ? (
        <div className="chat-banner chat-banner-error" role="alert">
          <WarningIcon />
          <span>{review.error}</span>
        </div>
      ) : ready && (summary ? summary.cells : path.toLowerCase().endsWith('.ipynb')) ? (
        <NotebookProposalReview
          review={{ ...review, original: review.original!, modified: review.modified! }}
          name={name}
          sideBySide={sideBySide}
        />
      ) : ready ? (
        <DiffView
          path={path}
          original={review.original!}
          modified={review.modified!}
          sideBySide={sideBySide}
          originalLabel={review.against === 'disk' ? `${name} on disk now` : `${name} before the proposal`}
          modifiedLabel={`${name} as proposed`}
          className="pr-diff"
        />
      ) : (
        <div className="pr-loading">Loading proposal…</div>
      )}
    </section>
  );
}
