import { randomUUID } from 'node:crypto';
import type { LanguageModel } from 'ai';
import {
  LARGE_FILE_BYTES,
  type Entry,
  type FileContent,
  type ModelAliasInfo,
  type OpenNotebookCellEdit,
  type ProposalContent,
  type RunOutcome,
  type RunState,
  type SessionSnapshot,
  type TranscriptEntry,
  type WriteResult,
} from '../../shared/contract';
import { SerialQueue } from '../../shared/base/serial-queue';
import { hashText } from '../workspace/encoding';
import { isKilnError, KilnError } from '../../shared/errors';
import type { ModelConfig, ResolvedConfig } from '../config';
import { toWireError } from '../errors';
import type { EngineOutcome, RunEngine } from '../models';
import { buildModelMessages, editTools, harnessPrompt, notebookHarnessPrompt, modelTurnsOf, notes } from './harness';
import { decideNotebookCells, rebaseNotebookProposal } from './notebook-decisions';
import { isNotebookPath, notebookForModel } from './notebook-proposal';
import { countLineChanges } from './line-diff';
import { proposalOfRun, type ProposalBase } from './run-proposal';
import { proposalContent, SessionJournal } from './session-journal';
import type { EditAssistantEmitters } from './edit-assistant-events';
import type { EditSessionRecord, SessionStore, StoredProposal } from './session-store';

/** The file operations an edit session needs; `Workspace` provides them (path-guarded, atomic). */
export interface EditFileAccess {
  read(rel: string): Promise<FileContent>;
  stat(rel: string): Promise<Entry>;
  write(rel: string, text: string, options: { origin: 'agent'; expectedHash?: string }): Promise<WriteResult>;
}

/** What edit sessions read from the config; `ConfigService` provides it. */
export interface EditConfigSource {
  current(): ResolvedConfig;
  model(alias: string): ModelConfig;
  models(): ModelAliasInfo[];
}

/** What every edit session shares with the others, through the service that holds them. */
export interface EditSessionHost {
  readonly files: EditFileAccess;
  readonly config: EditConfigSource;
  readonly store: SessionStore;
  readonly engine: RunEngine;
  readonly events: EditAssistantEmitters;
  createModel(config: ModelConfig): LanguageModel;
  /** False once the session was cleared or its file went away: it then announces and records nothing. */
  isCurrent(session: EditSession): boolean;
  /** An open notebook's bytes as a save would write them (null: clean; undefined: not open). */
  unsavedNotebook(rel: string): string | null | undefined;
}

type AssistantEntry = Extract<TranscriptEntry, { type: 'assistant' }>;

type CellsDecided = { path: string; hash: string; snapshot: SessionSnapshot; cellEdits?: OpenNotebookCellEdit[] };

/**
 * The edit session of one file lineage: the propose/accept loop around the run engine. Only `accept`
 * writes to the workspace, and only over the exact content the proposal was reviewed against. What the
 * session records, and announces, goes through its journal (session-journal.ts).
 */
export class EditSession {
  /** State changes of the session, one at a time (the streaming itself runs outside it). */
  private readonly lock = new SerialQueue();
  private readonly journal: SessionJournal;

  /**
   * @param persisted Opening or viewing a file persists nothing: the record is written from the first
   *   message on.
   */
  constructor(
    private readonly host: EditSessionHost,
    record: EditSessionRecord,
    persisted: boolean,
  ) {
    this.journal = new SessionJournal(
      record,
      { events: host.events, store: host.store, config: host.config, isCurrent: () => host.isCurrent(this) },
      persisted,
    );
  }

  get record(): EditSessionRecord {
    return this.journal.record;
  }

  get runState(): RunState {
    return this.journal.runState;
  }

  get path(): string {
    return this.record.path;
  }

  /** A notebook's session shows the model cells and takes `propose_notebook`; its proposals are decided per cell. */
  get isNotebook(): boolean {
    return isNotebookPath(this.record.path);
  }

  /** Sends the operator's message and runs the model; resolves with the outcome when the run ends. */
  async send(text: string, opts: { modelOverride?: string; confirmLarge?: boolean }): Promise<RunOutcome> {
    const { config, engine } = this.host;
    const alias = opts.modelOverride ?? this.record.modelOverride ?? config.current().fileEditing?.model ?? null;
    if (!alias) {
      throw new KilnError('E_NO_MODEL', 'File editing is not enabled: set file_editing.model in .kiln/config.yaml.');
    }
    const modelConfig = config.model(alias);

    const slot = await engine.acquire(this.record.id, 'edit');
    const runId = randomUUID();
    try {
      const prepared = await this.lock.run(async () => {
        await this.syncWithDisk();
        if (this.record.disk.size > LARGE_FILE_BYTES && !this.record.largeConfirmed) {
          if (!opts.confirmLarge) throw tooLarge(this.path, this.record.disk.size);
          this.record.largeConfirmed = true;
        }
        if (opts.modelOverride !== undefined && opts.modelOverride !== this.record.modelOverride) {
          this.record.modelOverride = opts.modelOverride;
        }
        // Notes stay pending (and persisted) until a turn that carried them is recorded.
        const turnNotes = [...this.record.pendingNotes];
        // A notebook open with unsaved edits is proposed against them, not the file.
        const unsaved = this.isNotebook ? this.host.unsavedNotebook(this.path) : undefined;
        const against = typeof unsaved === 'string' ? { text: unsaved, hash: hashText(unsaved), open: true } : null;
        this.journal.addEntry({ type: 'user', id: randomUUID(), at: Date.now(), text });
        this.journal.setRunState('running');
        this.journal.startPersisting();
        await this.journal.persist();
        return { turnNotes, against };
      });

      const assistant: AssistantEntry = {
        type: 'assistant',
        id: randomUUID(),
        at: Date.now(),
        text: '',
        streaming: true,
      };
      let outcome: EngineOutcome;
      try {
        const model = this.host.createModel(modelConfig);
        outcome = await engine.stream(slot, {
          kind: 'edit',
          model,
          target: { alias, model: modelConfig.model, baseUrl: modelConfig.baseUrl },
          harnessPrompt: this.isNotebook
            ? notebookHarnessPrompt(this.path, notebookForModel((prepared.against ?? this.record.baseline).text))
            : harnessPrompt(this.path, this.record.baseline.text),
          operatorPrompt: config.current().fileEditing?.systemPrompt ?? '',
          intrinsic: editTools(this.isNotebook),
          messages: buildModelMessages(modelTurnsOf(this.record), { notes: prepared.turnNotes, userText: text }),
          onTextDelta: (delta) => {
            if (!this.host.isCurrent(this)) return;
            if (assistant.text === '') this.journal.addEntry(assistant);
            assistant.text += delta;
            this.host.events.streamed.fire({ path: this.path, entryId: assistant.id, text: delta });
          },
        });
      } catch (err) {
        // Building the model failed (e.g. the key's env var is unset): same report as a failed call.
        const error = err instanceof KilnError ? err : new KilnError('E_MODEL', String(err));
        outcome = { status: 'error', text: '', toolCalls: [], error };
      }
      return await this.lock.run(() => this.finishRun(runId, prepared, text, assistant, outcome));
    } finally {
      slot.dispose();
    }
  }

  stop(): boolean {
    return this.host.engine.stop(this.record.id);
  }

  getProposal(proposalId: string): ProposalContent {
    return proposalContent(this.journal.findProposal(proposalId));
  }

  /**
   * After a refused Accept: the proposal is bound to the file as it is now, and the operator sees that
   * diff. Accepting it then writes knowingly, over exactly what they were shown.
   */
  reviewAgainstDisk(proposalId: string): Promise<ProposalContent> {
    return this.lock.run(async () => {
      const proposal = undecided(this.journal.findProposal(proposalId));
      // A notebook open with unsaved edits is reviewed against them, as it was proposed against them.
      const unsaved = proposal.notebook ? this.host.unsavedNotebook(this.path) : undefined;
      const disk =
        typeof unsaved === 'string'
          ? { text: unsaved, hash: hashText(unsaved), open: true }
          : { ...(await this.host.files.read(this.path)), open: false };
      if (disk.text === null)
        throw new KilnError('E_BAD_REQUEST', `${this.path} is binary now; the proposal cannot be compared with it`);
      if (proposal.notebook) rebaseNotebookProposal(proposal, { text: disk.text, hash: disk.hash, open: disk.open });
      else
        Object.assign(
          proposal,
          { baselineText: disk.text, baselineHash: disk.hash },
          countLineChanges(disk.text, proposal.content),
        );
      await this.journal.persist();
      this.journal.announceProposal(proposal);
      return proposalContent(proposal);
    });
  }

  /**
   * The only write of an edit session: checks the disk still holds exactly the content the proposal was
   * reviewed against, then writes it through the workspace and makes it the baseline. Anything else on
   * disk refuses with E_CHANGED_ON_DISK and the proposal stays pending.
   */
  accept(proposalId: string): Promise<{ path: string; hash: string; snapshot: SessionSnapshot }> {
    return this.lock.run(async () => {
      const key = this.path;
      const proposal = undecided(this.journal.findProposal(proposalId));
      // Made against the open notebook: only decideCells hands the renderer the edits to make there.
      if (proposal.notebook?.open)
        throw new KilnError('E_BAD_REQUEST', `Proposal ${proposalId} goes into the open notebook: decide its cells`);
      if (proposal.notebook) return this.decideCellsNow(proposal, { accept: 'rest', reject: [] });
      const baselineHash = proposal.baselineHash;
      const changed = (diskHash: string | null) =>
        new KilnError(
          'E_CHANGED_ON_DISK',
          `${key} changed on disk since this proposal was made: review it against the current file, or discard it.`,
          {
            path: key,
            diskHash,
            baselineHash,
          },
        );
      const diskHash = await this.host.files.read(key).then(
        (c) => c.hash,
        (err: unknown) => {
          if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return null;
          throw err;
        },
      );
      if (diskHash !== baselineHash) throw changed(diskHash);
      let written: WriteResult;
      try {
        // The workspace checks the hash again at the write, and once more after the temp file is written, right
        // before the rename: a write by another program during the accept is refused, not overwritten.
        written = await this.host.files.write(key, proposal.content, { origin: 'agent', expectedHash: baselineHash });
      } catch (err) {
        if (isKilnError(err, 'E_CHANGED_ON_DISK')) {
          throw changed(err.details?.diskHash ?? null);
        }
        throw err;
      }
      this.adoptWritten(proposal.content, written);
      this.journal.settleProposal(proposal, 'accepted');
      this.journal.addMarker('accepted', `Accepted proposal: ${key} written`, proposalId);
      this.record.pendingNotes.push(notes.accepted(proposalId));
      await this.journal.persist();
      return { path: key, hash: written.hash, snapshot: this.journal.announceSession() };
    });
  }

  /** The baseline stays; the agent hears about it at its next turn and continues from its own proposal. */
  reject(proposalId: string): Promise<SessionSnapshot> {
    return this.lock.run(async () => {
      const proposal = undecided(this.journal.findProposal(proposalId));
      if (proposal.notebook) return (await this.decideCellsNow(proposal, { accept: [], reject: 'rest' })).snapshot;
      this.journal.settleProposal(proposal, 'rejected');
      this.journal.addMarker('rejected', 'Rejected proposal: the file is unchanged', proposalId);
      this.record.pendingNotes.push(notes.rejected(proposalId));
      await this.journal.persist();
      return this.snapshot();
    });
  }

  /**
   * A notebook proposal, cell by cell: the accepted changes so far plus `accept` are written (main writes, over
   * exactly what the last write left); `reject` is recorded. Once every change is decided the proposal is.
   */
  decideCells(proposalId: string, choice: { accept: string[]; reject: string[] }): Promise<CellsDecided> {
    return this.lock.run(() => {
      const proposal = undecided(this.journal.findProposal(proposalId));
      if (!proposal.notebook)
        throw new KilnError(
          'E_BAD_REQUEST',
          `Proposal ${proposalId} is not a notebook proposal; accept or reject it whole`,
        );
      return this.decideCellsNow(proposal, choice);
    });
  }

  /** Inside the lock. 'rest': every change not decided yet (Accept all / Reject all). */
  private async decideCellsNow(
    proposal: StoredProposal,
    choice: { accept: string[] | 'rest'; reject: string[] | 'rest' },
  ): Promise<CellsDecided> {
    const { files } = this.host;
    const outcome = await decideNotebookCells(
      {
        read: (rel) => files.read(rel),
        write: (rel, text, options) => files.write(rel, text, options),
        unsavedNotebook: (rel) => this.host.unsavedNotebook(rel),
      },
      this.path,
      proposal,
      choice,
    );
    if (outcome.written) this.adoptWritten(outcome.written.text, outcome.written.result);
    for (const line of outcome.markers) this.journal.addMarker(line.decision, line.text, proposal.id);
    // One note per proposal, brought up to date: the model hears every cell's decision at its next turn.
    const note = notes.cellDecisions(proposal.id, outcome.acceptedForModel, outcome.rejectedForModel);
    this.record.pendingNotes = this.record.pendingNotes.filter((n) => !n.includes(`on proposal ${proposal.id} `));
    if (outcome.acceptedForModel.length || outcome.rejectedForModel.length) this.record.pendingNotes.push(note);
    if (outcome.complete) {
      // Rejected only when something was rejected and nothing accepted (a proposal without changes is accepted).
      const accepted = outcome.acceptedForModel.length > 0 || outcome.rejectedForModel.length === 0;
      this.journal.settleProposal(proposal, accepted ? 'accepted' : 'rejected');
    } else {
      this.journal.announceProposal(proposal);
    }
    await this.journal.persist();
    return {
      path: this.path,
      hash: proposal.notebook!.boundHash,
      snapshot: this.journal.announceSession(),
      ...(outcome.cellEdits ? { cellEdits: outcome.cellEdits } : {}),
    };
  }

  /** Sets (alias) or clears (null) the session's model override. */
  setModel(alias: string | null): Promise<SessionSnapshot> {
    return this.lock.run(async () => {
      this.record.modelOverride = alias;
      await this.journal.persist();
      return this.journal.announceSession();
    });
  }

  /** Re-opened with the file as it is now; `confirmLarge` is remembered once given for a large file. */
  reopen(content: FileContent, confirmLarge: boolean): Promise<void> {
    return this.lock.run(async () => {
      if (confirmLarge && !this.record.largeConfirmed && content.size > LARGE_FILE_BYTES)
        this.record.largeConfirmed = true;
      await this.syncWithDisk(content);
    });
  }

  /** Checks the disk now rather than at the next run. */
  followDisk(): Promise<void> {
    return this.lock.run(() => this.syncWithDisk());
  }

  /** Resolves when the session's pending state changes are done. */
  settled(): Promise<void> {
    return this.lock.whenIdle();
  }

  snapshot(): SessionSnapshot {
    return this.journal.snapshot();
  }

  // --- internals ------------------------------------------------------------------------------

  /** What the session wrote is the baseline now, and the disk as the write left it. */
  private adoptWritten(text: string, written: WriteResult): void {
    this.record.baseline = { text, hash: written.hash };
    this.record.disk = { hash: written.hash, mtimeMs: written.mtimeMs, size: written.size };
  }

  /**
   * Compares the disk with the session's baseline by content hash (size and mtime prove nothing: a
   * same-size replacement with its mtime set back is still a change) and adopts external changes.
   */
  private async syncWithDisk(known?: FileContent): Promise<void> {
    const key = this.path;
    const content = known ?? (await this.host.files.read(key));
    this.record.disk = { hash: content.hash, mtimeMs: content.mtimeMs, size: content.size };
    if (content.text === null || content.hash === this.record.baseline.hash) return;
    this.record.baseline = { text: content.text, hash: content.hash };
    if (!this.record.turns.length && !this.record.transcript.length) {
      // Nothing said yet: the model will see today's file as the baseline anyway.
      this.journal.announceSession();
      return;
    }
    // Only the newest disk content matters to the model.
    this.record.pendingNotes = this.record.pendingNotes.filter((n) => !n.includes('FILE CHANGED ON DISK'));
    this.record.pendingNotes.push(
      this.isNotebook
        ? notes.notebookChangedOnDisk(key, notebookForModel(content.text))
        : notes.changedOnDisk(key, content.text),
    );
    this.journal.addMarker('changed-on-disk', `${key} changed on disk; its current content is now the baseline`);
    await this.journal.persist();
    this.journal.announceSession();
  }

  private async finishRun(
    runId: string,
    prepared: { turnNotes: string[]; against: ProposalBase | null },
    userText: string,
    assistant: AssistantEntry,
    outcome: EngineOutcome,
  ): Promise<RunOutcome> {
    const { turnNotes, against } = prepared;
    if (!this.host.isCurrent(this)) {
      // Cleared (or its file went away) while running: the session is gone, nothing to record.
      return {
        runId,
        status: outcome.status === 'completed' ? 'completed' : outcome.status === 'stopped' ? 'stopped' : 'error',
        proposalId: null,
      };
    }
    if (assistant.text !== '') {
      assistant.streaming = false;
      this.host.events.transcriptChanged.fire({ path: this.path, entry: structuredClone(assistant) });
    }

    let error: KilnError | undefined = outcome.status === 'error' ? outcome.error : undefined;
    const made = proposalOfRun(outcome, this.isNotebook, against ?? this.record.baseline);
    const proposal = made.kind === 'proposed' ? made.proposal : undefined;
    if (proposal) this.journal.addProposal(proposal);
    if (made.kind === 'unusable') {
      error = new KilnError('E_MODEL', `${made.reason} Nothing was proposed; the file is unchanged.`);
      this.record.pendingNotes.push(notes.invalidProposal(made.reason, this.isNotebook));
    }

    const produced = assistant.text !== '' || proposal !== undefined;
    if (outcome.status === 'stopped') this.journal.addMarker('stopped', 'Stopped');
    if (produced && outcome.status !== 'error') {
      this.record.turns.push({ notes: turnNotes, userText, assistantText: assistant.text, proposalId: proposal?.id });
      this.record.pendingNotes = this.record.pendingNotes.filter((n) => !turnNotes.includes(n));
    }
    // Otherwise the turn is not in the model's history, so its notes are delivered next time.
    if (error) {
      this.journal.addEntry({
        type: 'error',
        id: randomUUID(),
        at: Date.now(),
        code: error.code,
        message: error.message,
      });
      this.journal.setRunState('error', toWireError(error));
    } else {
      this.journal.setRunState('idle');
    }
    await this.journal.persist();

    const status: RunOutcome['status'] = error ? 'error' : outcome.status === 'stopped' ? 'stopped' : 'completed';
    return { runId, status, proposalId: proposal?.id ?? null, ...(error ? { error: toWireError(error) } : {}) };
  }
}

export function tooLarge(key: string, size: number, hard = false): KilnError {
  const kb = Math.round(size / 1024);
  return hard
    ? new KilnError('E_TOO_LARGE', `${key} (${kb} KB) is too large to edit in the panel.`, {
        size,
        limit: LARGE_FILE_BYTES,
        confirmable: false,
      })
    : new KilnError(
        'E_TOO_LARGE',
        `${key} is ${kb} KB, over ${LARGE_FILE_BYTES / 1024} KB: this belongs in a full agent session. Confirm to use the edit assistant anyway.`,
        { size, limit: LARGE_FILE_BYTES, confirmable: true },
      );
}

/** A proposal is decided once: accepted or rejected, it can be neither again. */
function undecided(proposal: StoredProposal): StoredProposal {
  if (proposal.status === 'accepted' || proposal.status === 'rejected') {
    throw new KilnError(
      'E_BAD_REQUEST',
      `Proposal ${proposal.id} was already ${proposal.status}; a proposal is decided once`,
    );
  }
  return proposal;
}
