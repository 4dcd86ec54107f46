/**
 * The edit assistant's renderer state: config, per-file sessions (transcript, run state) and the
 * proposal under review per file. One store per bridge, shared by the right-rail panel and the
 * centre's proposal diff, so neither needs a provider in App.
 */
import type {
  ConfigState,
  EventPayload,
  FsChange,
  KilnBridge,
  ModelAliasInfo,
  OpenNotebookCellEdit,
  ProposalSummary,
  RunState,
  SessionSnapshot,
  TranscriptEntry,
} from '../../../shared/contract';
import { isKilnError, KilnError, type ErrorCode } from '../../../shared/errors';
import { isWithin, pathAfterMove, rekeyAfterMove } from '../../../shared/fs-change';
import { nameOf } from '../../../shared/paths';
import { Store, perBridge, shownError, useStore } from '../base';
import { notebookRestoreTarget } from '../notebook-targets';

/** Why a session could not be opened; `confirmable` large files get a Continue button. */
export interface OpenProblem {
  code: ErrorCode;
  message: string;
  confirmable: boolean;
}

export interface SessionView {
  path: string;
  status: 'opening' | 'ready' | 'blocked';
  problem: OpenProblem | null;
  snapshot: SessionSnapshot | null;
  transcript: TranscriptEntry[];
  runState: RunState;
  /** The operator confirmed working on a file over the size limit. */
  largeConfirmed: boolean;
  /** A message refused because the file grew past the size limit; sent once the operator continues. */
  heldMessage?: string;
}

/** What the centre shows instead of the editor while a proposal is reviewed. */
export interface ReviewState {
  path: string;
  proposalId: string;
  /** baseline: what the proposal was made against ↔ proposal; disk: the file today ↔ proposal (after a refused Accept). */
  against: 'baseline' | 'disk';
  /** Accept was refused because the file changed on disk since the proposal was made. */
  stale: string | null;
  summary: ProposalSummary | null;
  /** Null while loading. */
  original: string | null;
  modified: string | null;
  error: string | null;
}

export interface EditAssistantState {
  config: ConfigState | null;
  models: ModelAliasInfo[];
  sessions: Record<string, SessionView>;
  reviews: Record<string, ReviewState>;
}

// process-wide: ids only grow; unique across windows is all they need to be.
let localIds = 0;
const localId = () => `local-${++localIds}`;

export class EditAssistantStore extends Store<EditAssistantState> {
  /** Review fetches in flight, so a late answer for an older proposal does not win. */
  private readonly reviewTokens = new Map<string, number>();

  constructor(private readonly bridge: KilnBridge) {
    super({ config: null, models: [], sessions: {}, reviews: {} });
    this.own(
      bridge.on('config.changed', (config) => this.applyConfig(config)),
      bridge.on('editAssistant.delta', (p) => this.onDelta(p)),
      bridge.on('editAssistant.transcript', (p) => this.onTranscript(p)),
      bridge.on('editAssistant.proposal', (p) => this.onProposal(p)),
      bridge.on('editAssistant.runState', (p) => this.patchSession(p.path, () => ({ runState: p.state }))),
      bridge.on('editAssistant.session', (p) => this.onSession(p)),
      bridge.on('fs.change', (change) => this.applyChange(change)),
    );
    void bridge.request('config.get', {}).then(
      (config) => this.applyConfig(config),
      () => undefined,
    );
  }

  session(path: string): SessionView | undefined {
    return this.state.sessions[path];
  }

  /** Opens (or resumes) the file's session; a large file waits for the operator's confirmation. */
  async open(path: string, confirmLarge = false): Promise<void> {
    const existing = this.state.sessions[path];
    if (existing && existing.status === 'ready' && !confirmLarge) return;
    this.putSession(path, {
      path,
      status: 'opening',
      problem: null,
      snapshot: existing?.snapshot ?? null,
      transcript: existing?.transcript ?? [],
      runState: existing?.runState ?? 'idle',
      largeConfirmed: confirmLarge || (existing?.largeConfirmed ?? false),
    });
    try {
      const snapshot = await this.bridge.request('editAssistant.openSession', {
        path,
        confirmLarge: confirmLarge || existing?.largeConfirmed,
      });
      this.adoptSnapshot(path, snapshot);
      const latest = snapshot.proposals.find((p) => p.id === snapshot.latestProposalId);
      // Resuming a session with an undecided proposal: show it, as if it had just arrived.
      if (latest?.status === 'pending' && !this.state.reviews[path]) void this.review(path, latest.id);
    } catch (err) {
      const e = shownError(err);
      const confirmable = isKilnError(err, 'E_TOO_LARGE') && err.details?.confirmable === true;
      this.patchSession(path, () => ({
        status: 'blocked',
        problem: { code: e.code, message: e.message, confirmable },
      }));
    }
  }

  /** Sends a message; refusals (busy, no model) become local error lines in the transcript. */
  async send(path: string, text: string): Promise<void> {
    const view = this.state.sessions[path];
    try {
      // An open notebook's typing reaches main after a pause: the model is shown what the operator sees.
      await notebookRestoreTarget(this.bridge, path)?.flushEdits();
      const outcome = await this.bridge.request('editAssistant.send', {
        path,
        text,
        confirmLarge: view?.largeConfirmed ?? false,
      });
      // Normally the events already brought the error entry; this covers a missed event.
      if (outcome.status === 'error' && outcome.error) {
        const seen = this.state.sessions[path]?.transcript.some(
          (e) => e.type === 'error' && e.message === outcome.error!.message,
        );
        if (!seen) this.addLocalError(path, new KilnError(outcome.error.code, outcome.error.message));
      }
    } catch (err) {
      const e = shownError(err);
      if (isKilnError(err, 'E_TOO_LARGE') && err.details?.confirmable) {
        // The file grew past the limit mid-session: the same warn-and-continue as on first use.
        this.patchSession(path, () => ({
          status: 'blocked',
          problem: { code: e.code, message: e.message, confirmable: true },
          heldMessage: text,
        }));
        return;
      }
      this.addLocalError(path, err);
    }
  }

  /** The operator chose to continue with a large file: the session opens, and a held message goes out. */
  async continueLarge(path: string): Promise<void> {
    const held = this.state.sessions[path]?.heldMessage;
    await this.open(path, true);
    this.patchSession(path, () => ({ heldMessage: undefined }));
    if (held && this.state.sessions[path]?.status === 'ready') await this.send(path, held);
  }

  async stop(path: string): Promise<void> {
    await this.bridge.request('editAssistant.stop', { path }).catch(() => undefined);
  }

  /** Deletes the session (memory and disk) and starts a cold one. */
  async clear(path: string): Promise<void> {
    await this.bridge.request('editAssistant.clear', { path });
    this.dropReview(path);
    const existing = this.state.sessions[path];
    this.putSession(path, {
      path,
      status: 'opening',
      problem: null,
      snapshot: null,
      transcript: [],
      runState: 'idle',
      largeConfirmed: existing?.largeConfirmed ?? false,
    });
    await this.open(path, existing?.largeConfirmed ?? false);
  }

  async setModel(path: string, alias: string | null): Promise<void> {
    try {
      const snapshot = await this.bridge.request('editAssistant.setModel', { path, model: alias });
      this.adoptSnapshot(path, snapshot);
    } catch (err) {
      this.addLocalError(path, err);
    }
  }

  /**
   * Shows a proposal in the centre, diffed against the current baseline. `texts` are its content and
   * baseline when the caller has them (a new proposal's event carries them), saving the request.
   */
  async review(path: string, proposalId: string, texts?: { content: string; baselineContent: string }): Promise<void> {
    const token = this.nextToken(path);
    const summary = this.state.sessions[path]?.snapshot?.proposals.find((p) => p.id === proposalId) ?? null;
    const previous = this.state.reviews[path];
    const keep = previous?.proposalId === proposalId;
    this.putReview(path, {
      path,
      proposalId,
      against: keep ? previous.against : 'baseline',
      stale: keep ? previous.stale : null,
      summary,
      original: texts?.baselineContent ?? (keep ? previous.original : null),
      modified: texts?.content ?? (keep ? previous.modified : null),
      error: null,
    });
    if (texts) return;
    try {
      const proposal = await this.bridge.request('editAssistant.getProposal', { path, proposalId });
      if (this.reviewTokens.get(path) !== token) return;
      const { content, baselineContent, baselineHash: _hash, ...rest } = proposal;
      this.patchReview(path, { summary: rest, original: baselineContent, modified: content });
    } catch (err) {
      if (this.reviewTokens.get(path) !== token) return;
      this.patchReview(path, { error: shownError(err).message });
    }
  }

  /**
   * After a refused Accept: binds the proposal to the file as it is now and shows that diff, so the
   * operator can still accept it, knowingly.
   */
  async reviewAgainstDisk(path: string, proposalId: string): Promise<void> {
    const token = this.nextToken(path);
    const summary = this.state.sessions[path]?.snapshot?.proposals.find((p) => p.id === proposalId) ?? null;
    this.putReview(path, {
      path,
      proposalId,
      against: 'disk',
      stale: null,
      summary,
      original: null,
      modified: null,
      error: null,
    });
    try {
      const {
        content,
        baselineContent,
        baselineHash: _hash,
        ...rest
      } = await this.bridge.request('editAssistant.reviewAgainstDisk', { path, proposalId });
      if (this.reviewTokens.get(path) !== token) return;
      this.patchReview(path, { summary: rest, original: baselineContent, modified: content });
    } catch (err) {
      if (this.reviewTokens.get(path) !== token) return;
      this.patchReview(path, { error: shownError(err).message });
    }
  }

  closeReview(path: string): void {
    this.dropReview(path);
  }

  /**
   * Writes the proposal if the disk still holds what it was reviewed against. If not, the review stays
   * open with the refusal (`stale`), from which the operator reviews it against the file or discards it.
   */
  async accept(path: string, proposalId: string): Promise<boolean> {
    try {
      const result = await this.bridge.request('editAssistant.accept', { path, proposalId });
      this.adoptSnapshot(path, result.snapshot);
      this.dropReview(path);
      return true;
    } catch (err) {
      if (!isKilnError(err, 'E_CHANGED_ON_DISK')) throw err;
      const name = nameOf(path);
      const deleted = err.details?.diskHash === null;
      this.patchReview(path, {
        stale: deleted
          ? `${name} was deleted on disk since this proposal was made. Nothing was written.`
          : `${name} changed on disk since this proposal was made. Nothing was written.`,
      });
      return false;
    }
  }

  /**
   * A notebook proposal, cell by cell. The review stays open until every change is decided. A refused accept
   * (the notebook changed on disk) leaves it open with the refusal, as `accept` does.
   */
  async decideCells(
    path: string,
    proposalId: string,
    choice: { accept?: string[]; reject?: string[] },
  ): Promise<boolean> {
    try {
      // The binding is checked against main's open notebook: typing on its way counts.
      await notebookRestoreTarget(this.bridge, path)?.flushEdits();
      const result = await this.bridge.request('editAssistant.decideCells', {
        path,
        proposalId,
        accept: choice.accept ?? [],
        reject: choice.reject ?? [],
      });
      if (result.cellEdits) await this.editOpenNotebook(path, result.cellEdits);
      this.adoptSnapshot(path, result.snapshot);
      const summary = result.snapshot.proposals.find((p) => p.id === proposalId) ?? null;
      if (summary?.status === 'accepted' || summary?.status === 'rejected') this.dropReview(path);
      else if (this.state.reviews[path]?.proposalId === proposalId) this.patchReview(path, { summary });
      return true;
    } catch (err) {
      if (!isKilnError(err, 'E_CHANGED_ON_DISK')) throw err;
      const name = nameOf(path);
      const open = this.state.reviews[path]?.summary?.cells?.open;
      this.patchReview(path, {
        stale: open
          ? `${name} changed in the open notebook (or was closed) since this proposal was made. Nothing was changed.`
          : err.details?.diskHash === null
            ? `${name} was deleted on disk since this proposal was made. Nothing was written.`
            : `${name} changed on disk since this proposal was made. Nothing was written.`,
      });
      return false;
    }
  }

  /**
   * A proposal made against the open notebook's unsaved edits: main decided and checked, and the accepted cells go
   * into the open notebook here, each one step of its undo (the file is written when the operator saves).
   */
  private async editOpenNotebook(path: string, edits: OpenNotebookCellEdit[]): Promise<void> {
    const target = notebookRestoreTarget(this.bridge, path);
    for (const edit of edits) {
      const done = !target
        ? false
        : edit.kind === 'delete'
          ? await target.takeCell(edit.cellId)
          : await target.putCell(edit.cell, edit);
      if (!done) {
        this.addLocalError(
          path,
          new Error(`The accepted cells could not all be put into the open notebook ${nameOf(path)}.`),
        );
        return;
      }
    }
  }

  async reject(path: string, proposalId: string): Promise<void> {
    const snapshot = await this.bridge.request('editAssistant.reject', { path, proposalId });
    this.adoptSnapshot(path, snapshot);
    this.dropReview(path);
  }

  /** A failure as an error line in the file's transcript. */
  addLocalError(path: string, err: unknown): void {
    const { code, message } = shownError(err);
    const entry: TranscriptEntry = { type: 'error', id: localId(), at: Date.now(), code, message };
    this.patchSession(path, (s) => ({ transcript: [...s.transcript, entry] }));
  }

  // ---- events ----

  /** Follows the change feed: views move with their file; a file that went away takes its view along. */
  private applyChange(change: FsChange): void {
    if (change.type === 'created' || change.type === 'createdFiles' || change.type === 'updated') return;
    const rekey = <V extends { path: string }>(record: Record<string, V>): Record<string, V> => {
      const next: Record<string, V> = {};
      for (const [path, value] of Object.entries(record)) {
        if (change.type === 'deleted') {
          if (!isWithin(path, change.path)) next[path] = value;
          continue;
        }
        const moved = pathAfterMove(path, change.from, change.to);
        next[moved ?? path] = moved === null ? value : { ...value, path: moved };
      }
      return next;
    };
    if (change.type === 'moved') rekeyAfterMove(this.reviewTokens, change.from, change.to);
    this.set({ sessions: rekey(this.state.sessions), reviews: rekey(this.state.reviews) });
  }

  private applyConfig(config: ConfigState): void {
    this.set({ config });
    void this.bridge.request('editAssistant.models', {}).then(
      (m) => this.set({ models: m.models }),
      () => undefined,
    );
  }

  private onDelta({ path, entryId, text }: EventPayload<'editAssistant.delta'>): void {
    this.patchSession(path, (s) => ({
      transcript: s.transcript.map((e) =>
        e.id === entryId && e.type === 'assistant' ? { ...e, text: e.text + text } : e,
      ),
    }));
  }

  private onTranscript({ path, entry }: EventPayload<'editAssistant.transcript'>): void {
    this.patchSession(path, (s) => {
      const index = s.transcript.findIndex((e) => e.id === entry.id);
      if (index < 0) return { transcript: [...s.transcript, entry] };
      const transcript = [...s.transcript];
      transcript[index] = entry;
      return { transcript };
    });
  }

  private onProposal({ path, proposal, texts }: EventPayload<'editAssistant.proposal'>): void {
    const view = this.state.sessions[path];
    if (!view) return;
    const known = view.snapshot?.proposals.some((p) => p.id === proposal.id) ?? false;
    if (view.snapshot) {
      const proposals = known
        ? view.snapshot.proposals.map((p) => (p.id === proposal.id ? proposal : p))
        : [...view.snapshot.proposals, proposal];
      const latestProposalId = known ? view.snapshot.latestProposalId : proposal.id;
      this.patchSession(path, () => ({ snapshot: { ...view.snapshot!, proposals, latestProposalId } }));
    }
    const review = this.state.reviews[path];
    if (review?.proposalId === proposal.id) this.patchReview(path, { summary: proposal });
    if (!known && proposal.status === 'pending') {
      void this.review(path, proposal.id, texts);
    }
  }

  private onSession({ path, snapshot }: EventPayload<'editAssistant.session'>): void {
    if (!this.state.sessions[path]) return;
    if (snapshot === null) {
      // Cleared (here or elsewhere): the transcript empties and nothing stays under review.
      this.dropReview(path);
      this.patchSession(path, () => ({ snapshot: null, transcript: [], runState: 'idle' }));
      return;
    }
    const before = this.state.sessions[path]?.snapshot?.baselineHash;
    this.adoptSnapshot(path, snapshot);
    const review = this.state.reviews[path];
    // The baseline moved (file changed on disk): the diff is against the new baseline.
    if (review && review.against === 'baseline' && before !== snapshot.baselineHash)
      void this.review(path, review.proposalId);
  }

  // ---- state ----

  private adoptSnapshot(path: string, snapshot: SessionSnapshot): void {
    this.patchSession(path, () => ({
      status: 'ready',
      problem: null,
      snapshot,
      transcript: snapshot.transcript,
      runState: snapshot.runState,
    }));
  }

  private nextToken(path: string): number {
    const token = (this.reviewTokens.get(path) ?? 0) + 1;
    this.reviewTokens.set(path, token);
    return token;
  }

  private dropReview(path: string): void {
    if (!this.state.reviews[path]) return;
    this.nextToken(path);
    const reviews = { ...this.state.reviews };
    delete reviews[path];
    this.set({ reviews });
  }

  private putReview(path: string, review: ReviewState): void {
    this.set({ reviews: { ...this.state.reviews, [path]: review } });
  }

  private patchReview(path: string, change: Partial<ReviewState>): void {
    const review = this.state.reviews[path];
    if (review) this.putReview(path, { ...review, ...change });
  }

  private putSession(path: string, view: SessionView): void {
    this.set({ sessions: { ...this.state.sessions, [path]: view } });
  }

  private patchSession(path: string, change: (view: SessionView) => Partial<SessionView>): void {
    const view = this.state.sessions[path];
    if (view) this.putSession(path, { ...view, ...change(view) });
  }
}

// One store per bridge: the panel (right rail) and the proposal diff (centre) share it without a provider.
export const useEditAssistantStore = perBridge((bridge) => new EditAssistantStore(bridge));

export function useEditAssistant(): EditAssistantState {
  return useStore(useEditAssistantStore());
}
