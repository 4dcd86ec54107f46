import type { RunState, TranscriptEntry } from '../../../shared/contract';
import { AssistantMessage, ChatError, ChatLog, ChatLogEmpty, ChatMarker, ThinkingDots, UserMessage } from '../chat';
import { FileDiffIcon, SparkIcon, WarningIcon } from '../ui';
import { PROPOSAL_STATUS_SHOWN } from './proposal-status';

export interface TranscriptProps {
  entries: TranscriptEntry[];
  runState: RunState;
  /** The proposal shown in the centre, highlighted on its chip. */
  reviewingId: string | null;
  onOpenProposal: (proposalId: string) => void;
}

/** The conversation: text streams in, proposals are chips (never the file's text), errors are alerts. */
export function Transcript({ entries, runState, reviewingId, onOpenProposal }: TranscriptProps) {
  const last = entries.at(-1);
  const waiting = runState === 'running' && !(last?.type === 'assistant' && last.streaming && last.text);

  return (
    <ChatLog label="Transcript" live>
      {entries.length === 0 && runState !== 'running' && (
        <ChatLogEmpty>
          <SparkIcon size={22} />
          <p>Ask for a change to this file: rename across it, reformat, a mechanical refactor.</p>
          <p className="chat-dim">
            The assistant proposes the whole new file; you review the diff and Accept or Reject.
          </p>
        </ChatLogEmpty>
      )}
      {entries.map((entry) => (
        <Entry
          key={entry.id}
          entry={entry}
          reviewing={entry.type === 'proposal' && entry.proposalId === reviewingId}
          onOpenProposal={onOpenProposal}
        />
      ))}
      {waiting && <ThinkingDots label="Thinking" />}
    </ChatLog>
  );
}

function Entry({
  entry,
  reviewing,
  onOpenProposal,
}: {
  entry: TranscriptEntry;
  reviewing: boolean;
  onOpenProposal: (id: string) => void;
}) {
  switch (entry.type) {
    case 'user':
      return <UserMessage text={entry.text} />;
    case 'assistant':
      return <AssistantMessage text={entry.text} streaming={entry.streaming} />;
    case 'proposal':
      return (
        <button
          type="button"
          className={`ea-chip status-${entry.status}${reviewing ? ' reviewing' : ''}`}
          aria-current={reviewing ? 'true' : undefined}
          title="Show this proposal's diff"
          onClick={() => onOpenProposal(entry.proposalId)}
        >
          <span className="ea-chip-icon" aria-hidden>
            <FileDiffIcon />
          </span>
          <span className="ea-chip-label">Proposed changes</span>
          <span className="ea-chip-counts">
            <span className="ea-added">+{entry.linesAdded}</span>{' '}
            <span className="ea-removed">−{entry.linesRemoved}</span>
          </span>
          <span className="ea-chip-status">{PROPOSAL_STATUS_SHOWN[entry.status]}</span>
        </button>
      );
    case 'marker': {
      const onDisk = entry.marker === 'changed-on-disk';
      return (
        <ChatMarker
          marker={entry.marker}
          text={entry.text}
          icon={onDisk ? <WarningIcon /> : undefined}
          role={onDisk ? 'status' : undefined}
        />
      );
    }
    case 'error':
      return <ChatError code={entry.code} message={entry.message} icon={<WarningIcon />} />;
  }
}
