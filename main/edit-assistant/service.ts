/**
 * The Edit assistant: one edit session per file lineage, created on first use, resumed from disk, and
 * following the file through moves. This is the only assistant module that touches the workspace.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { LanguageModel } from 'ai';
import {
  LARGE_FILE_BYTES,
  type FsChange,
  type ModelAliasInfo,
  type OpenNotebookCellEdit,
  type ProposalContent,
  type RunOutcome,
  type SessionSnapshot,
  type EventPayload,
} from '../../shared/contract';
import type { Event } from '../../shared/base/event';
import { KilnError } from '../../shared/errors';
import { changeTouches, isWithin, rekeyAfterMove } from '../../shared/fs-change';
import type { ModelConfig } from '../config';
import { RunEngine, createLanguageModel } from '../models';
import {
  EditSession,
  tooLarge,
  type EditConfigSource,
  type EditFileAccess,
  type EditSessionHost,
} from './edit-session';
import { SessionStore } from './session-store';
import { EditAssistantEmitters } from './edit-assistant-events';
import { createLogger } from '../log';

const log = createLogger('edit-assistant');

export type { EditConfigSource, EditFileAccess } from './edit-session';

export interface EditAssistantServiceOptions {
  files: EditFileAccess;
  /** Absolute workspace root: sessions are keyed by (root, path) in the shared data folder. */
  workspaceRoot: string;
  config: EditConfigSource;
  /** The app's data folder; sessions live in `<dataDir>/edit-sessions/`. */
  dataDir: string;
  /** The run engine, shared with the Agent so both count against the same slots. */
  engine?: RunEngine;
  /**
   * An open notebook's bytes as a save would write them (null: clean; undefined: not open). A notebook with
   * unsaved edits is proposed against and accepted into them. Default: nothing is open.
   */
  unsavedNotebook?: (rel: string) => string | null | undefined;
  /** Builds the provider model; tests keep the default (real AI SDK providers). */
  createModel?: (config: ModelConfig) => LanguageModel;
}

/** Every edit session of the workspace, by the path of its file; each request finds its session and hands over. */
export class EditAssistantService {
  private readonly sessions = new Map<string, EditSession>();
  private readonly loading = new Map<string, Promise<EditSession | null>>();
  private readonly store: SessionStore;
  readonly engine: RunEngine;
  private readonly events = new EditAssistantEmitters();
  /** Streaming text appended to a session's transcript entry. */
  readonly onDidStream: Event<EventPayload<'editAssistant.delta'>> = this.events.streamed.event;
  /** A session's transcript entry was added or replaced (upsert by entry.id). */
  readonly onDidChangeTranscript: Event<EventPayload<'editAssistant.transcript'>> = this.events.transcriptChanged.event;
  /** A proposal was made (with its two texts) or changed status. */
  readonly onDidChangeProposal: Event<EventPayload<'editAssistant.proposal'>> = this.events.proposalChanged.event;
  /** A session started or ended a run. */
  readonly onDidChangeRunState: Event<EventPayload<'editAssistant.runState'>> = this.events.runStateChanged.event;
  /** A session's baseline, model or whole self changed (cleared or gone with its file: snapshot null). */
  readonly onDidChangeSession: Event<EventPayload<'editAssistant.session'>> = this.events.sessionChanged.event;
  private readonly host: EditSessionHost;

  constructor(private readonly options: EditAssistantServiceOptions) {
    this.store = new SessionStore(options.dataDir, options.workspaceRoot);
    void this.store
      .prune()
      .catch(log.caught('old sessions could not be pruned; they are tried again at the next start', undefined, 'warn'));
    this.engine = options.engine ?? new RunEngine();
    this.host = {
      files: options.files,
      config: options.config,
      store: this.store,
      engine: this.engine,
      events: this.events,
      createModel: options.createModel ?? ((config) => createLanguageModel(config)),
      isCurrent: (session) => this.sessions.get(session.path) === session,
      unsavedNotebook: options.unsavedNotebook ?? (() => undefined),
    };
  }

  /** Opens or resumes the session of a file; over 256 KB needs `confirmLarge`. */
  async openSession(rawPath: string, opts: { confirmLarge?: boolean } = {}): Promise<SessionSnapshot> {
    const session = await this.ensureSession(rawPath, opts.confirmLarge ?? false);
    return session.snapshot();
  }

  /** Sends the operator's message and runs the model; resolves with the outcome when the run ends. */
  async send(
    rawPath: string,
    text: string,
    opts: { modelOverride?: string; confirmLarge?: boolean } = {},
  ): Promise<RunOutcome> {
    if (opts.modelOverride !== undefined) this.options.config.model(opts.modelOverride);
    const session = await this.ensureSession(rawPath, opts.confirmLarge ?? false);
    return session.send(text, opts);
  }

  stop(rawPath: string): boolean {
    return this.sessions.get(normalizePath(rawPath))?.stop() ?? false;
  }

  async getProposal(rawPath: string, proposalId: string): Promise<ProposalContent> {
    return (await this.requireSession(rawPath)).getProposal(proposalId);
  }

  /** After a refused Accept: binds the proposal to the file as it is now and returns that diff. */
  async reviewAgainstDisk(rawPath: string, proposalId: string): Promise<ProposalContent> {
    return (await this.requireSession(rawPath)).reviewAgainstDisk(proposalId);
  }

  /** Writes the proposal only over the exact content it was reviewed against (else E_CHANGED_ON_DISK). */
  async acceptProposal(
    rawPath: string,
    proposalId: string,
  ): Promise<{ path: string; hash: string; snapshot: SessionSnapshot }> {
    return (await this.requireSession(rawPath)).accept(proposalId);
  }

  /**
   * A notebook proposal, cell by cell (accepts written byte-exact over exactly what the last write left; or, made
   * against the open notebook's unsaved edits, returned as `cellEdits` for the renderer to make there).
   */
  async decideCells(
    rawPath: string,
    proposalId: string,
    choice: { accept: string[]; reject: string[] },
  ): Promise<{ path: string; hash: string; snapshot: SessionSnapshot; cellEdits?: OpenNotebookCellEdit[] }> {
    return (await this.requireSession(rawPath)).decideCells(proposalId, choice);
  }

  async rejectProposal(rawPath: string, proposalId: string): Promise<SessionSnapshot> {
    return (await this.requireSession(rawPath)).reject(proposalId);
  }

  /** Deletes the session for good: memory and disk. The next open starts cold. */
  async clear(rawPath: string): Promise<boolean> {
    const key = normalizePath(rawPath);
    const session = this.sessions.get(key);
    session?.stop();
    this.sessions.delete(key);
    const existed = session !== undefined || (await this.store.load(key)) !== null;
    await this.store.delete(key, session?.record.id);
    this.events.sessionChanged.fire({ path: key, snapshot: null });
    return existed;
  }

  /** Sets (alias) or clears (null) the session's model override. */
  async setModel(rawPath: string, alias: string | null): Promise<SessionSnapshot> {
    if (alias !== null) this.options.config.model(alias);
    return (await this.requireSession(rawPath)).setModel(alias);
  }

  models(): { models: ModelAliasInfo[]; fileEditingDefault: string | null } {
    return {
      models: this.options.config.models(),
      fileEditingDefault: this.options.config.current().fileEditing?.model ?? null,
    };
  }

  /**
   * Follows the change feed. A Kiln move carries the sessions it moved (the file's lineage goes with it);
   * a file that goes away (deleted, or renamed by another program) orphans its session, so a later file
   * at that path starts fresh; an edit to a file with a live session is adopted as its baseline now
   * (marker + note for the next turn; runs also check on their own, so this is only for promptness).
   */
  async applyChange(change: FsChange): Promise<void> {
    if (change.type === 'moved') {
      for (const [, next, session] of rekeyAfterMove(this.sessions, change.from, change.to)) session.record.path = next;
      await this.store.moved(change.from, change.to);
      return;
    }
    if (change.type === 'deleted') {
      for (const [key, session] of [...this.sessions]) {
        if (!isWithin(key, change.path)) continue;
        session.stop();
        this.sessions.delete(key);
        this.events.sessionChanged.fire({ path: key, snapshot: null });
      }
      await this.store.orphan(change.path);
      return;
    }
    for (const [key, session] of this.sessions) {
      if (changeTouches(change, key))
        await session
          .followDisk()
          .catch(
            log.caught(
              "a session could not follow its file's change on disk (unreadable for now); it follows the next change",
              undefined,
              'warn',
            ),
          );
    }
  }

  async dispose(): Promise<void> {
    for (const session of this.sessions.values()) session.stop();
    await Promise.all([...this.sessions.values()].map((session) => session.settled()));
    await this.store.flush();
    this.events.dispose();
  }

  // --- internals ------------------------------------------------------------------------------

  private async ensureSession(rawPath: string, confirmLarge: boolean): Promise<EditSession> {
    const key = normalizePath(rawPath);
    const content = await this.options.files.read(key);
    if (content.binary || content.text === null)
      throw new KilnError('E_BAD_REQUEST', `${key} is binary; the edit assistant works on text files`);
    if (content.truncated) throw tooLarge(key, content.size, true);
    const existing = this.sessions.get(key) ?? (await this.loadSession(key));
    const confirmed = confirmLarge || (existing?.record.largeConfirmed ?? false);
    if (content.size > LARGE_FILE_BYTES && !confirmed) throw tooLarge(key, content.size);
    if (existing) {
      await existing.reopen(content, confirmLarge);
      return existing;
    }
    const session = new EditSession(
      this.host,
      {
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
      false,
    );
    this.sessions.set(key, session);
    return session;
  }

  private loadSession(key: string): Promise<EditSession | null> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const load = this.store.load(key).then((record) => {
      this.loading.delete(key);
      if (!record) return null;
      const existing = this.sessions.get(key);
      if (existing) return existing;
      // A run that was streaming when the app quit is over.
      for (const entry of record.transcript) if (entry.type === 'assistant') entry.streaming = false;
      const session = new EditSession(this.host, record, true);
      this.sessions.set(key, session);
      return session;
    });
    this.loading.set(key, load);
    return load;
  }

  private async requireSession(rawPath: string): Promise<EditSession> {
    const key = normalizePath(rawPath);
    const session = this.sessions.get(key) ?? (await this.loadSession(key));
    if (!session) throw new KilnError('E_NOT_FOUND', `No edit session for ${key}`);
    return session;
  }
}

function normalizePath(rel: string): string {
  const normalized = path.posix.normalize(rel.replace(/\\/g, '/'));
  return normalized === '.' ? '' : normalized.replace(/^\.\//, '').replace(/\/$/, '');
}
