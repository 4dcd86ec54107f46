import { useEffect, useRef } from 'react';
import type { RunState, TranscriptEntry } from '../../../shared/contract';
import { SparkIcon, WarningIcon } from './icons';

export interface TranscriptProps {
  entries: TranscriptEntry[];
  runState: RunState;
  /** The proposal shown in the centre, highlighted on its chip. */
  reviewingId: string | null;
  onOpenProposal: (proposalId: string) => void;
}

const STATUS_LABEL: Record<string, string> = {
  pending: 'pending',
  accepted: 'accepted',
  rejected: 'rejected',
  superseded: 'superseded',
};

/**
 * The chip's accessible name. It avoids the words "accept"/"reject", so the panel's Accept and Reject
 * buttons stay the only buttons those names match.
 */
const STATUS_SPOKEN: Record<string, string> = {
  pending: 'awaiting review',
  accepted: 'written to disk',
  rejected: 'declined',
  superseded: 'superseded by a newer proposal',
};

/** The conversation: text streams in, proposals are chips (never the file's text), errors are alerts. */
export function Transcript({ entries, runState, reviewingId, onOpenProposal }: TranscriptProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  // Follow the stream while the operator is at the bottom; leave them be when they scrolled up.
  useEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });

  const last = entries.at(-1);
  const waiting = runState === 'running' && !(last?.type === 'assistant' && last.streaming && last.text);

  return (
    <div
      ref={scroller}
      className="ea-transcript"
      role="log"
      aria-label="Transcript"
      aria-live="polite"
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {entries.length === 0 && runState !== 'running' && (
        <div className="ea-transcript-empty">
          <SparkIcon size={22} />
          <p>Ask for a change to this file: rename across it, reformat, a mechanical refactor.</p>
          <p className="ea-dim">The assistant proposes the whole new file; you review the diff and Accept or Reject.</p>
        </div>
      )}
      {entries.map((entry) => (
        <Entry key={entry.id} entry={entry} reviewing={entry.type === 'proposal' && entry.proposalId === reviewingId} onOpenProposal={onOpenProposal} />
      ))}
      {waiting && (
        <div className="ea-msg ea-assistant ea-thinking" aria-label="Thinking">
          <span /><span /><span />
        </div>
      )}
    </div>
  );
}

function Entry({ entry, reviewing, onOpenProposal }: { entry: TranscriptEntry; reviewing: boolean; onOpenProposal: (id: string) => void }) {
  switch (entry.type) {
    case 'user':
      return <div className="ea-msg ea-user">{entry.text}</div>;
    case 'assistant':
      return (
        <div className={`ea-msg ea-assistant${entry.streaming ? ' streaming' : ''}`} data-streaming={entry.streaming ? 'true' : undefined}>
          <AssistantText text={entry.text} />
        </div>
      );
    case 'proposal':
      return (
        <button
          type="button"
          className={`ea-chip status-${entry.status}${reviewing ? ' reviewing' : ''}`}
          aria-current={reviewing ? 'true' : undefined}
          aria-label={`Proposed changes +${entry.linesAdded} −${entry.linesRemoved} lines, ${STATUS_SPOKEN[entry.status]}`}
          title="Show this proposal's diff"
          onClick={() => onOpenProposal(entry.proposalId)}
        >
          <span className="ea-chip-icon" aria-hidden>
            <FileDiffGlyph />
          </span>
          <span className="ea-chip-label">Proposed changes</span>
          <span className="ea-chip-counts">
            <span className="ea-added">+{entry.linesAdded}</span> <span className="ea-removed">−{entry.linesRemoved}</span>
          </span>
          <span className="ea-chip-status">{STATUS_LABEL[entry.status]}</span>
        </button>
      );
    case 'marker':
      return (
        <div className={`ea-marker marker-${entry.marker}`} role={entry.marker === 'changed-on-disk' ? 'status' : undefined}>
          {entry.marker === 'changed-on-disk' && <WarningIcon />}
          <span>{entry.text}</span>
        </div>
      );
    case 'error':
      return (
        <div className="ea-error" role="alert">
          <WarningIcon />
          <div>
            <div className="ea-error-title">{titleFor(entry.code)}</div>
            <div className="ea-error-message">{entry.message}</div>
          </div>
        </div>
      );
  }
}

/** Just enough markdown for chat: ``` fences and `code` spans; everything else stays plain text. */
function AssistantText({ text }: { text: string }) {
  const parts = text.split(/```[^\n]*\n?/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <pre key={i}>{part.replace(/\n$/, '')}</pre>
        ) : (
          part.split(/(`[^`\n]+`)/).map((piece, j) =>
            piece.length > 2 && piece.startsWith('`') && piece.endsWith('`') ? <code key={`${i}-${j}`}>{piece.slice(1, -1)}</code> : piece,
          )
        ),
      )}
    </>
  );
}

function titleFor(code: string): string {
  switch (code) {
    case 'E_MODEL':
      return 'The model run failed';
    case 'E_NO_MODEL':
      return 'No model';
    case 'E_BUSY':
      return 'Already running';
    case 'E_TOO_LARGE':
      return 'File too large';
    case 'E_CHANGED_ON_DISK':
      return 'Changed on disk';
    default:
      return 'Error';
  }
}

function FileDiffGlyph() {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden focusable="false">
      <path d="M3.5 1.5h6l3 3v10h-9z" fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
      <path d="M8 5.5v4M6 7.5h4M6 12h4" stroke="currentColor" strokeWidth="1.2" />
    </svg>
  );
}
