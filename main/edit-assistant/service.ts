/**
 * Edit sessions: one per file lineage, the propose/accept loop around the run engine. This is the only
 * agent module that touches the workspace, and only `acceptProposal` writes to it, and only over the
 * exact content the proposal was reviewed against.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { LanguageModel } from 'ai';
import {
  LARGE_FILE_BYTES,
  type Entry,
  type EventPayload,
  type FileContent,
  type FsChange,
  type ProposalContent,
  type ModelAliasInfo,
  type ProposalSummary,
  type RunOutcome,
  type RunState,
  type SessionSnapshot,
  type TranscriptEntry,
  type WriteResult,
  editAssistantEvents,
} from '../../shared/contract';
import { isKilnError, KilnError, type WireError } from '../../shared/errors';
import { toWireError } from '../errors';
import { changeTouches, isWithin, rekeyAfterMove } from '../../shared/fs-change';
import type { ModelConfig, ResolvedConfig } from '../config';
import { PROPOSE_FILE, buildModelMessages, editTools, harnessPrompt, notes, type ModelTurn } from './harness';
import { countLineChanges } from './line-diff';
import { RunEngine, createLanguageModel, type EngineOutcome } from '../models';
import { SessionStore, type EditSessionRecord, type StoredProposal } from './session-store';

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

type EditAssistantEventChannel = keyof typeof editAssistantEvents;
export type EditAssistantEmit = <E extends EditAssistantEventChannel>(channel: E, payload: EventPayload<E>) => void;

export interface EditAssistantServiceOptions {
  files: EditFileAccess;
  /** Absolute workspace root: sessions are keyed by (root, path) in the shared data folder. */
  workspaceRoot: string;
  config: EditConfigSource;
  /** The app's data folder; sessions live in `<dataDir>/edit-sessions/`. */
  dataDir: string;
  emit?: EditAssistantEmit;
  /** The shared run engine (issue 6's workspace sessions use the same instance). */
  engine?: RunEngine;
  /** Builds the provider model; tests keep the default (real AI SDK providers). */
  createModel?: (config: ModelConfig) => LanguageModel;
}

interface LiveSession {
  record: EditSessionRecord;
  runState: RunState;
  lastError?: WireError;
  lock: Promise<unknown>;
  /** Opening or viewing a file persists nothing: the record is written from the first message on. */
  persisted: boolean;
}

export class EditAssistantService {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly loading = new Map<string, Promise<LiveSession | null>>();
  private readonly store: SessionStore;
  readonly engine: RunEngine;
  private readonly emit: EditAssistantEmit;
  private readonly createModel: (config: ModelConfig) => LanguageModel;

  constructor(private readonly options: EditAssistantServiceOptions) {
    this.store = new SessionStore(options.dataDir, options.workspaceRoot);
    void this.store.prune().catch(() => undefined);
    this.engine = options.engine ?? new RunEngine();
    this.emit = options.emit ?? (() => {});
    this.createModel = options.createModel ?? ((config) => createLanguageModel(config));
  }

  /** Opens or resumes the session of a file; over 256 KB needs `confirmLarge`. */
  async openSession(rawPath: string, opts: { confirmLarge?: boolean } = {}): Promise<SessionSnapshot> {
    const live = await this.ensureSession(rawPath, opts.confirmLarge ?? false);
    return this.snapshot(live);
  }

  /** Sends the operator's message and runs the model; resolves with the outcome when the run ends. */
  async send(
    rawPath: string,
    text: string,
    opts: { modelOverride?: string; confirmLarge?: boolean } = {},
  ): Promise<RunOutcome> {
    const key = normalizePath(rawPath);
    if (opts.modelOverride !== undefined) this.options.config.model(opts.modelOverride);
    const live = await this.ensureSession(key, opts.confirmLarge ?? false);
    const alias = opts.modelOverride ?? live.record.modelOverride ?? this.options.config.current().fileEditing?.model ?? null;
    if (!alias) {
      throw new KilnError('E_NO_MODEL', 'File editing is not enabled: set file_editing.model in .kiln/config.yaml.');
    }
    const modelConfig = this.options.config.model(alias);

    const slot = await this.engine.acquire(live.record.id, 'edit');
    const runId = randomUUID();
    try {
      const prepared = await this.withLock(live, async () => {
        await this.syncWithDisk(live);
        if (live.record.disk.size > LARGE_FILE_BYTES && !live.record.largeConfirmed) {
          if (!opts.confirmLarge) throw tooLarge(key, live.record.disk.size);
          live.record.largeConfirmed = true;
        }
        if (opts.modelOverride !== undefined && opts.modelOverride !== live.record.modelOverride) {
          live.record.modelOverride = opts.modelOverride;
        }
        // Notes stay pending (and persisted) until a turn that carried them is recorded.
        const turnNotes = [...live.record.pendingNotes];
        this.addEntry(live, { type: 'user', id: randomUUID(), at: Date.now(), text });
        this.setRunState(live, 'running');
        live.persisted = true;
        await this.persist(live);
        return { turnNotes };
      });

      const assistant: Extract<TranscriptEntry, { type: 'assistant' }> = {
        type: 'assistant',
        id: randomUUID(),
        at: Date.now(),
        text: '',
        streaming: true,
      };
      let outcome: EngineOutcome;
      try {
        const model = this.createModel(modelConfig);
        outcome = await this.engine.stream(slot, {
          kind: 'edit',
          model,
          target: { alias, model: modelConfig.model, baseUrl: modelConfig.baseUrl },
          harnessPrompt: harnessPrompt(live.record.path, live.record.baseline.text),
          operatorPrompt: this.options.config.current().fileEditing?.systemPrompt ?? '',
          intrinsic: editTools(),
          messages: buildModelMessages(this.modelTurns(live), { notes: prepared.turnNotes, userText: text }),
          onTextDelta: (delta) => {
            if (!this.isCurrent(live)) return;
            if (assistant.text === '') this.addEntry(live, assistant);
            assistant.text += delta;
            this.emit('editAssistant.delta', { path: live.record.path, entryId: assistant.id, text: delta });
          },
        });
      } catch (err) {
        // Building the model failed (e.g. the key's env var is unset): same report as a failed call.
        const error = err instanceof KilnError ? err : new KilnError('E_MODEL', String(err));
        outcome = { status: 'error', text: '', toolCalls: [], error };
      }
      return await this.withLock(live, () => this.finishRun(live, runId, prepared.turnNotes, text, assistant, outcome));
    } finally {
      slot.release();
    }
  }

  stop(rawPath: string): boolean {
    const live = this.sessions.get(normalizePath(rawPath));
    return live ? this.engine.stop(live.record.id) : false;
  }

  async getProposal(rawPath: string, proposalId: string): Promise<ProposalContent> {
    const live = await this.requireSession(rawPath);
    return proposalContent(findProposal(live, proposalId));
  }

  /**
   * After a refused Accept: the proposal is bound to the file as it is now, and the operator sees that
   * diff. Accepting it then writes knowingly, over exactly what they were shown.
   */
  async reviewAgainstDisk(rawPath: string, proposalId: string): Promise<ProposalContent> {
    const live = await this.requireSession(rawPath);
    return this.withLock(live, async () => {
      const proposal = undecided(findProposal(live, proposalId));
      const disk = await this.options.files.read(live.record.path);
      if (disk.text === null) throw new KilnError('E_BAD_REQUEST', `${live.record.path} is binary now; the proposal cannot be compared with it`);
      Object.assign(proposal, { baselineText: disk.text, baselineHash: disk.hash }, countLineChanges(disk.text, proposal.content));
      await this.persist(live);
      this.emit('editAssistant.proposal', { path: live.record.path, proposal: summary(proposal) });
      return proposalContent(proposal);
    });
  }

  /**
   * The only write of an edit session: checks the disk still holds exactly the content the proposal was
   * reviewed against, then writes it through the workspace and makes it the baseline. Anything else on
   * disk refuses with E_CHANGED_ON_DISK and the proposal stays pending.
   */
  async acceptProposal(rawPath: string, proposalId: string): Promise<{ path: string; hash: string; snapshot: SessionSnapshot }> {
    const live = await this.requireSession(rawPath);
    return this.withLock(live, async () => {
      const key = live.record.path;
      const proposal = undecided(findProposal(live, proposalId));
      const baselineHash = proposal.baselineHash;
      const changed = (diskHash: string | null) =>
        new KilnError('E_CHANGED_ON_DISK', `${key} changed on disk since this proposal was made: review it against the current file, or discard it.`, {
          path: key,
          diskHash,
          baselineHash,
        });
      const diskHash = await this.options.files.read(key).then(
        (c) => c.hash,
        (err: unknown) => {
          if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return null;
          throw err;
        },
      );
      if (diskHash !== baselineHash) throw changed(diskHash);
      let written: WriteResult;
      try {
        // The workspace checks the hash again at the write itself, so nothing can slip in between.
        written = await this.options.files.write(key, proposal.content, { origin: 'agent', expectedHash: baselineHash });
      } catch (err) {
        if (isKilnError(err, 'E_CHANGED_ON_DISK')) {
          throw changed(err.details?.diskHash ?? null);
        }
        throw err;
      }
      live.record.baseline = { text: proposal.content, hash: written.hash };
      live.record.disk = { hash: written.hash, mtimeMs: written.mtimeMs, size: written.size };
      this.setProposalStatus(live, proposal, 'accepted');
      for (const other of live.record.proposals) {
        if (other !== proposal && other.status === 'pending') this.setProposalStatus(live, other, 'superseded');
      }
      this.addEntry(live, {
        type: 'marker',
        id: randomUUID(),
        at: Date.now(),
        marker: 'accepted',
        text: `Accepted proposal: ${key} written`,
        proposalId,
      });
      live.record.pendingNotes.push(notes.accepted(proposalId));
      await this.persist(live);
      const snapshot = this.snapshot(live);
      this.emit('editAssistant.session', { path: key, snapshot });
      return { path: key, hash: written.hash, snapshot };
    });
  }

  /** The baseline stays; the agent hears about it at its next turn and continues from its own proposal. */
  async rejectProposal(rawPath: string, proposalId: string): Promise<SessionSnapshot> {
    const live = await this.requireSession(rawPath);
    return this.withLock(live, async () => {
      const proposal = undecided(findProposal(live, proposalId));
      this.setProposalStatus(live, proposal, 'rejected');
      this.addEntry(live, {
        type: 'marker',
        id: randomUUID(),
        at: Date.now(),
        marker: 'rejected',
        text: 'Rejected proposal: the file is unchanged',
        proposalId,
      });
      live.record.pendingNotes.push(notes.rejected(proposalId));
      await this.persist(live);
      return this.snapshot(live);
    });
  }

  /** Deletes the session for good: memory and disk. The next open starts cold. */
  async clear(rawPath: string): Promise<boolean> {
    const key = normalizePath(rawPath);
    const live = this.sessions.get(key);
    if (live) this.engine.stop(live.record.id);
    this.sessions.delete(key);
    const existed = live !== undefined || (await this.store.load(key)) !== null;
    await this.store.delete(key, live?.record.id);
    this.emit('editAssistant.session', { path: key, snapshot: null });
    return existed;
  }

  /** Sets (alias) or clears (null) the session's model override. */
  async setModel(rawPath: string, alias: string | null): Promise<SessionSnapshot> {
    if (alias !== null) this.options.config.model(alias);
    const live = await this.requireSession(rawPath);
    return this.withLock(live, async () => {
      live.record.modelOverride = alias;
      await this.persist(live);
      const snapshot = this.snapshot(live);
      this.emit('editAssistant.session', { path: live.record.path, snapshot });
      return snapshot;
    });
  }

  models(): { models: ModelAliasInfo[]; fileEditingDefault: string | null } {
    return { models: this.options.config.models(), fileEditingDefault: this.options.config.current().fileEditing?.model ?? null };
  }

  /**
   * Follows the change feed. A Kiln move carries the sessions it moved (the file's lineage goes with it);
   * a file that goes away (deleted, or renamed by another program) orphans its session, so a later file
   * at that path starts fresh; an edit to a file with a live session is adopted as its baseline now
   * (marker + note for the next turn; runs also check on their own, so this is only for promptness).
   */
  async applyChange(change: FsChange): Promise<void> {
    if (change.type === 'moved') {
      for (const [, next, live] of rekeyAfterMove(this.sessions, change.from, change.to)) live.record.path = next;
      await this.store.moved(change.from, change.to);
      return;
    }
    if (change.type === 'deleted') {
      for (const [key, live] of [...this.sessions]) {
        if (!isWithin(key, change.path)) continue;
        this.engine.stop(live.record.id);
        this.sessions.delete(key);
        this.emit('editAssistant.session', { path: key, snapshot: null });
      }
      await this.store.orphan(change.path);
      return;
    }
    for (const [key, live] of this.sessions) {
      if (changeTouches(change, key)) await this.withLock(live, () => this.syncWithDisk(live)).catch(() => {});
    }
  }

  async dispose(): Promise<void> {
    for (const live of this.sessions.values()) this.engine.stop(live.record.id);
    await Promise.all([...this.sessions.values()].map((live) => live.lock.catch(() => {})));
    await this.store.flush();
  }

  // --- internals ------------------------------------------------------------------------------

  private async ensureSession(rawPath: string, confirmLarge: boolean): Promise<LiveSession> {
    const key = normalizePath(rawPath);
    const content = await this.options.files.read(key);
    if (content.binary || content.text === null) throw new KilnError('E_BAD_REQUEST', `${key} is binary; the edit assistant works on text files`);
    if (content.truncated) throw tooLarge(key, content.size, true);
    let live = this.sessions.get(key) ?? (await this.loadSession(key));
    const confirmed = confirmLarge || (live?.record.largeConfirmed ?? false);
    if (content.size > LARGE_FILE_BYTES && !confirmed) throw tooLarge(key, content.size);
    if (!live) {
      live = {
        runState: 'idle',
        lock: Promise.resolve(),
        persisted: false,
        record: {
          version: 2,
          id: randomUUID(),
          workspaceRoot: this.options.workspaceRoot,
          path: key,
          kind: 'edit',
          createdAt: Date.now(),
          baseline: { text: content.text, hash: content.hash },
          disk: { hash: content.hash, mtimeMs: content.mtimeMs, size: content.size },
          modelOverride: null,
          largeConfirmed: content.size > LARGE_FILE_BYTES && confirmLarge,
          transcript: [],
          proposals: [],
          turns: [],
          pendingNotes: [],
        },
      };
      this.sessions.set(key, live);
      return live;
    }
    const session = live;
    await this.withLock(session, async () => {
      if (confirmLarge && !session.record.largeConfirmed && content.size > LARGE_FILE_BYTES) session.record.largeConfirmed = true;
      await this.syncWithDisk(session, content);
    });
    return session;
  }

  private loadSession(key: string): Promise<LiveSession | null> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const load = this.store.load(key).then((record) => {
      this.loading.delete(key);
      if (!record) return null;
      const existing = this.sessions.get(key);
      if (existing) return existing;
      // A run that was streaming when the app quit is over.
      for (const entry of record.transcript) if (entry.type === 'assistant') entry.streaming = false;
      const live: LiveSession = { record, runState: 'idle', lock: Promise.resolve(), persisted: true };
      this.sessions.set(key, live);
      return live;
    });
    this.loading.set(key, load);
    return load;
  }

  private async requireSession(rawPath: string): Promise<LiveSession> {
    const key = normalizePath(rawPath);
    const live = this.sessions.get(key) ?? (await this.loadSession(key));
    if (!live) throw new KilnError('E_NOT_FOUND', `No edit session for ${key}`);
    return live;
  }

  /**
   * Compares the disk with the session's baseline by content hash (size and mtime prove nothing: a
   * same-size replacement with its mtime set back is still a change) and adopts external changes.
   */
  private async syncWithDisk(live: LiveSession, known?: FileContent): Promise<void> {
    const key = live.record.path;
    const content = known ?? (await this.options.files.read(key));
    live.record.disk = { hash: content.hash, mtimeMs: content.mtimeMs, size: content.size };
    if (content.text === null || content.hash === live.record.baseline.hash) return;
    live.record.baseline = { text: content.text, hash: content.hash };
    if (!live.record.turns.length && !live.record.transcript.length) {
      // Nothing said yet: the model will see today's file as the baseline anyway.
      this.emit('editAssistant.session', { path: key, snapshot: this.snapshot(live) });
      return;
    }
    // Only the newest disk content matters to the model.
    live.record.pendingNotes = live.record.pendingNotes.filter((n) => !n.includes('FILE CHANGED ON DISK'));
    live.record.pendingNotes.push(notes.changedOnDisk(key, content.text));
    this.addEntry(live, {
      type: 'marker',
      id: randomUUID(),
      at: Date.now(),
      marker: 'changed-on-disk',
      text: `${key} changed on disk; its current content is now the baseline`,
    });
    await this.persist(live);
    this.emit('editAssistant.session', { path: key, snapshot: this.snapshot(live) });
  }

  private async finishRun(
    live: LiveSession,
    runId: string,
    turnNotes: string[],
    userText: string,
    assistant: Extract<TranscriptEntry, { type: 'assistant' }>,
    outcome: EngineOutcome,
  ): Promise<RunOutcome> {
    if (!this.isCurrent(live)) {
      // Cleared (or its file went away) while running: the session is gone, nothing to record.
      return { runId, status: outcome.status === 'completed' ? 'completed' : outcome.status === 'stopped' ? 'stopped' : 'error', proposalId: null };
    }
    if (assistant.text !== '') {
      assistant.streaming = false;
      this.emit('editAssistant.transcript', { path: live.record.path, entry: structuredClone(assistant) });
    }

    let proposal: StoredProposal | undefined;
    let error: KilnError | undefined = outcome.status === 'error' ? outcome.error : undefined;
    const calls = outcome.toolCalls.filter((c) => c.toolName === PROPOSE_FILE);
    const valid = calls.filter((c) => !c.invalid && isContentInput(c.input));
    const lastValid = valid.at(-1);
    if (lastValid && outcome.status !== 'error') {
      proposal = this.addProposal(live, lastValid.toolCallId, (lastValid.input as { content: string }).content);
    } else if (outcome.status === 'completed') {
      const bad = outcome.toolCalls.find((c) => c.invalid || (c.toolName === PROPOSE_FILE && !isContentInput(c.input)));
      if (bad) {
        const reason = describeBadCall(bad.toolName, bad.invalid?.message ?? '');
        error = new KilnError('E_MODEL', `${reason} Nothing was proposed; the file is unchanged.`);
        live.record.pendingNotes.push(notes.invalidProposal(reason));
      }
    }

    const produced = assistant.text !== '' || proposal !== undefined;
    if (outcome.status === 'stopped') {
      this.addEntry(live, { type: 'marker', id: randomUUID(), at: Date.now(), marker: 'stopped', text: 'Stopped' });
    }
    if (produced && outcome.status !== 'error') {
      live.record.turns.push({ notes: turnNotes, userText, assistantText: assistant.text, proposalId: proposal?.id });
      live.record.pendingNotes = live.record.pendingNotes.filter((n) => !turnNotes.includes(n));
    }
    // Otherwise the turn is not in the model's history, so its notes are delivered next time.
    if (error) {
      this.addEntry(live, { type: 'error', id: randomUUID(), at: Date.now(), code: error.code, message: error.message });
      live.lastError = toWireError(error);
      this.setRunState(live, 'error', live.lastError);
    } else {
      live.lastError = undefined;
      this.setRunState(live, 'idle');
    }
    await this.persist(live);

    const status: RunOutcome['status'] = error ? 'error' : outcome.status === 'stopped' ? 'stopped' : 'completed';
    return { runId, status, proposalId: proposal?.id ?? null, ...(error ? { error: toWireError(error) } : {}) };
  }

  private addProposal(live: LiveSession, toolCallId: string, content: string): StoredProposal {
    for (const older of live.record.proposals) {
      if (older.status === 'pending') this.setProposalStatus(live, older, 'superseded');
    }
    const { text: baselineText, hash: baselineHash } = live.record.baseline;
    const counts = countLineChanges(baselineText, content);
    const proposal: StoredProposal = { id: randomUUID(), content, createdAt: Date.now(), status: 'pending', toolCallId, baselineText, baselineHash, ...counts };
    live.record.proposals.push(proposal);
    this.addEntry(live, { type: 'proposal', id: `chip-${proposal.id}`, at: proposal.createdAt, proposalId: proposal.id, status: 'pending', ...counts });
    this.emit('editAssistant.proposal', { path: live.record.path, proposal: summary(proposal) });
    return proposal;
  }

  private setProposalStatus(live: LiveSession, proposal: StoredProposal, status: StoredProposal['status']): void {
    proposal.status = status;
    const chip = live.record.transcript.find((e) => e.type === 'proposal' && e.proposalId === proposal.id);
    if (chip && chip.type === 'proposal') {
      chip.status = status;
      this.emit('editAssistant.transcript', { path: live.record.path, entry: structuredClone(chip) });
    }
    this.emit('editAssistant.proposal', { path: live.record.path, proposal: summary(proposal) });
  }

  private addEntry(live: LiveSession, entry: TranscriptEntry): void {
    if (!this.isCurrent(live)) return;
    live.record.transcript.push(entry);
    this.emit('editAssistant.transcript', { path: live.record.path, entry: structuredClone(entry) });
  }

  private setRunState(live: LiveSession, state: RunState, error?: WireError): void {
    live.runState = state;
    if (!this.isCurrent(live)) return;
    this.emit('editAssistant.runState', { path: live.record.path, state, ...(error ? { error } : {}) });
  }

  private modelTurns(live: LiveSession): ModelTurn[] {
    return live.record.turns.map((turn) => {
      const proposal = turn.proposalId ? live.record.proposals.find((p) => p.id === turn.proposalId) : undefined;
      return {
        notes: turn.notes,
        userText: turn.userText,
        assistantText: turn.assistantText,
        proposal: proposal ? { toolCallId: proposal.toolCallId, proposalId: proposal.id, content: proposal.content } : undefined,
      };
    });
  }

  private snapshot(live: LiveSession): SessionSnapshot {
    const r = live.record;
    return structuredClone({
      path: r.path,
      kind: r.kind,
      transcript: r.transcript,
      baselineHash: r.baseline.hash,
      latestProposalId: r.proposals.at(-1)?.id ?? null,
      proposals: r.proposals.map(summary),
      model: r.modelOverride ?? this.options.config.current().fileEditing?.model ?? null,
      modelOverride: r.modelOverride,
      runState: live.runState,
      warnings:
        r.disk.size > LARGE_FILE_BYTES
          ? [{ code: 'large-file' as const, message: `This file is over ${LARGE_FILE_BYTES / 1024} KB: work on it belongs in a full agent session.` }]
          : [],
    });
  }

  private isCurrent(live: LiveSession): boolean {
    return this.sessions.get(live.record.path) === live;
  }

  private async persist(live: LiveSession): Promise<void> {
    if (live.persisted) await this.store.save(live.record);
  }

  /** Serializes state changes of one session (not the streaming itself, which runs outside the lock). */
  private withLock<T>(live: LiveSession, fn: () => Promise<T>): Promise<T> {
    const run = live.lock.then(fn, fn);
    live.lock = run.catch(() => {});
    return run;
  }
}

function normalizePath(rel: string): string {
  const normalized = path.posix.normalize(rel.replace(/\\/g, '/'));
  return normalized === '.' ? '' : normalized.replace(/^\.\//, '').replace(/\/$/, '');
}

function tooLarge(key: string, size: number, hard = false): KilnError {
  const kb = Math.round(size / 1024);
  return hard
    ? new KilnError('E_TOO_LARGE', `${key} (${kb} KB) is too large to edit in the panel.`, { size, limit: LARGE_FILE_BYTES, confirmable: false })
    : new KilnError(
        'E_TOO_LARGE',
        `${key} is ${kb} KB, over ${LARGE_FILE_BYTES / 1024} KB: this belongs in a full agent session. Confirm to use the edit assistant anyway.`,
        { size, limit: LARGE_FILE_BYTES, confirmable: true },
      );
}

function findProposal(live: LiveSession, proposalId: string): StoredProposal {
  const proposal = live.record.proposals.find((p) => p.id === proposalId);
  if (!proposal) throw new KilnError('E_NOT_FOUND', `No proposal ${proposalId} in the session of ${live.record.path}`);
  return proposal;
}

/** A proposal is decided once: accepted or rejected, it can be neither again. */
function undecided(proposal: StoredProposal): StoredProposal {
  if (proposal.status === 'accepted' || proposal.status === 'rejected') {
    throw new KilnError('E_BAD_REQUEST', `Proposal ${proposal.id} was already ${proposal.status}; a proposal is decided once`);
  }
  return proposal;
}

function proposalContent(proposal: StoredProposal): ProposalContent {
  return { ...summary(proposal), content: proposal.content, baselineContent: proposal.baselineText, baselineHash: proposal.baselineHash };
}

function summary(p: StoredProposal): ProposalSummary {
  return { id: p.id, linesAdded: p.linesAdded, linesRemoved: p.linesRemoved, status: p.status, createdAt: p.createdAt };
}

function isContentInput(input: unknown): input is { content: string } {
  return typeof input === 'object' && input !== null && typeof (input as { content?: unknown }).content === 'string';
}

function describeBadCall(toolName: string, message: string): string {
  if (toolName !== PROPOSE_FILE) return `The model called an unknown tool '${toolName}'.`;
  if (/JSON parsing failed|JSON/i.test(message) && !/Type validation/i.test(message)) {
    return `The model's ${PROPOSE_FILE} call had malformed arguments (not valid JSON).`;
  }
  return `The model called ${PROPOSE_FILE} without a string "content" argument.`;
}
