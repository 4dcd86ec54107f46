import { randomUUID } from 'node:crypto';
import {
  LARGE_FILE_BYTES,
  type ProposalContent,
  type ProposalSummary,
  type RunState,
  type SessionSnapshot,
  type TranscriptEntry,
} from '../../shared/contract';
import { KilnError, type WireError } from '../../shared/errors';
import type { ResolvedConfig } from '../config';
import type { EditAssistantEmitters } from './edit-assistant-events';
import type { EditSessionRecord, SessionStore, StoredProposal } from './session-store';

/** What the journal needs of the service: where to announce, where to persist, and whether it still counts. */
export interface SessionJournalHost {
  readonly events: EditAssistantEmitters;
  readonly store: SessionStore;
  readonly config: { current(): ResolvedConfig };
  /** False once the session was cleared or its file went away: it then announces and records nothing. */
  isCurrent(): boolean;
}

type MarkerEntry = Extract<TranscriptEntry, { type: 'marker' }>;

/**
 * The record of one edit session and every change made to it. Each change is announced on the wire as it is
 * made, here and nowhere else, so the transcript, the proposals and the panel cannot disagree; the session
 * (edit-session.ts) decides what changes.
 */
export class SessionJournal {
  runState: RunState = 'idle';

  /**
   * @param persisted Opening or viewing a file persists nothing: the record is written from the first
   *   message on (`startPersisting`).
   */
  constructor(
    readonly record: EditSessionRecord,
    private readonly host: SessionJournalHost,
    private persisted: boolean,
  ) {}

  get path(): string {
    return this.record.path;
  }

  startPersisting(): void {
    this.persisted = true;
  }

  async persist(): Promise<void> {
    if (this.persisted) await this.host.store.save(this.record);
  }

  addEntry(entry: TranscriptEntry): void {
    if (!this.host.isCurrent()) return;
    this.record.transcript.push(entry);
    this.host.events.transcriptChanged.fire({ path: this.path, entry: structuredClone(entry) });
  }

  addMarker(marker: MarkerEntry['marker'], text: string, proposalId?: string): void {
    this.addEntry({
      type: 'marker',
      id: randomUUID(),
      at: Date.now(),
      marker,
      text,
      ...(proposalId ? { proposalId } : {}),
    });
  }

  setRunState(state: RunState, error?: WireError): void {
    this.runState = state;
    if (!this.host.isCurrent()) return;
    this.host.events.runStateChanged.fire({ path: this.path, state, ...(error ? { error } : {}) });
  }

  /** A new proposal supersedes the pending ones; its chip goes into the transcript. */
  addProposal(proposal: StoredProposal): void {
    for (const older of this.record.proposals) {
      if (older.status === 'pending') this.setProposalStatus(older, 'superseded');
    }
    this.record.proposals.push(proposal);
    const counts = { linesAdded: proposal.linesAdded, linesRemoved: proposal.linesRemoved };
    this.addEntry({
      type: 'proposal',
      id: `chip-${proposal.id}`,
      at: proposal.createdAt,
      proposalId: proposal.id,
      status: 'pending',
      ...counts,
    });
    this.host.events.proposalChanged.fire({
      path: this.path,
      proposal: summary(proposal),
      texts: { content: proposal.content, baselineContent: proposal.baselineText },
    });
  }

  setProposalStatus(proposal: StoredProposal, status: StoredProposal['status']): void {
    proposal.status = status;
    const chip = this.record.transcript.find((e) => e.type === 'proposal' && e.proposalId === proposal.id);
    if (chip && chip.type === 'proposal') {
      chip.status = status;
      this.host.events.transcriptChanged.fire({ path: this.path, entry: structuredClone(chip) });
    }
    this.announceProposal(proposal);
  }

  /** A proposal decided: an accepted one makes every other pending proposal stale (its baseline is gone). */
  settleProposal(proposal: StoredProposal, status: 'accepted' | 'rejected'): void {
    this.setProposalStatus(proposal, status);
    if (status !== 'accepted') return;
    for (const other of this.record.proposals) {
      if (other !== proposal && other.status === 'pending') this.setProposalStatus(other, 'superseded');
    }
  }

  announceProposal(proposal: StoredProposal): void {
    this.host.events.proposalChanged.fire({ path: this.path, proposal: summary(proposal) });
  }

  /** Announces the whole session (after a change the panel cannot follow entry by entry) and returns it. */
  announceSession(): SessionSnapshot {
    const snapshot = this.snapshot();
    this.host.events.sessionChanged.fire({ path: this.path, snapshot });
    return snapshot;
  }

  findProposal(proposalId: string): StoredProposal {
    const proposal = this.record.proposals.find((p) => p.id === proposalId);
    if (!proposal) throw new KilnError('E_NOT_FOUND', `No proposal ${proposalId} in the session of ${this.path}`);
    return proposal;
  }

  snapshot(): SessionSnapshot {
    const r = this.record;
    return structuredClone({
      path: r.path,
      kind: r.kind,
      transcript: r.transcript,
      baselineHash: r.baseline.hash,
      latestProposalId: r.proposals.at(-1)?.id ?? null,
      proposals: r.proposals.map(summary),
      model: r.modelOverride ?? this.host.config.current().fileEditing?.model ?? null,
      modelOverride: r.modelOverride,
      runState: this.runState,
      warnings:
        r.disk.size > LARGE_FILE_BYTES
          ? [
              {
                code: 'large-file' as const,
                message: `This file is over ${LARGE_FILE_BYTES / 1024} KB: work on it belongs in a full agent session.`,
              },
            ]
          : [],
    });
  }
}

export function proposalContent(proposal: StoredProposal): ProposalContent {
  return {
    ...summary(proposal),
    content: proposal.content,
    baselineContent: proposal.baselineText,
    baselineHash: proposal.baselineHash,
  };
}

function summary(p: StoredProposal): ProposalSummary {
  return {
    id: p.id,
    linesAdded: p.linesAdded,
    linesRemoved: p.linesRemoved,
    status: p.status,
    createdAt: p.createdAt,
    ...(p.notebook
      ? { cells: { decided: { ...p.notebook.decided }, ...(p.notebook.open ? { open: true } : {}) } }
      : {}),
  };
}
