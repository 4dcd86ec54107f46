import path from 'node:path';
import { z } from 'zod';
import { CellDecision, ProposalStatus, TranscriptEntry } from '../../shared/contract';
import { isWithin, rekeyAfterMove } from '../../shared/fs-change';
import { RecordFiles } from '../models';

/** How long the session of a file that went away (deleted, or renamed by another program) is kept. */
export const ORPHAN_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** A proposal in full; the transcript only carries its chip. */
export const StoredProposal = z.object({
  id: z.string(),
  content: z.string(),
  createdAt: z.number(),
  linesAdded: z.number(),
  linesRemoved: z.number(),
  status: ProposalStatus,
  toolCallId: z.string(),
  /** What the proposal is diffed against and may only be written over: the content and its hash. */
  baselineText: z.string(),
  baselineHash: z.string(),
  /** A notebook proposal: the model's `propose_notebook` cells (its history), and what was decided per change. */
  notebook: z
    .object({
      cells: z.array(
        z.object({
          replaces: z.string().nullable().optional(),
          cell_type: z.enum(['code', 'markdown', 'raw']),
          source: z.string(),
        }),
      ),
      decided: z.record(z.string(), CellDecision),
      /** The hash the next cell accept writes over: the baseline's, then what the last accept wrote. */
      boundHash: z.string(),
      /** Made against the open notebook's unsaved edits: accepted into it (the renderer edits), never written. */
      open: z.boolean().optional(),
    })
    .optional(),
});
export type StoredProposal = z.infer<typeof StoredProposal>;

const StoredTurn = z.object({
  notes: z.array(z.string()),
  userText: z.string(),
  assistantText: z.string(),
  proposalId: z.string().optional(),
});
/** One edit session on disk (app data, never the workspace). */
export const EditSessionRecord = z.object({
  version: z.literal(2),
  /** The file's lineage: follows the file through Kiln's renames and moves, never passes to another file. */
  id: z.string(),
  workspaceRoot: z.string(),
  path: z.string(),
  kind: z.literal('edit'),
  createdAt: z.number(),
  baseline: z.object({ text: z.string(), hash: z.string() }),
  /** The disk state the session last saw or wrote; a difference at run time means an external edit. */
  disk: z.object({ hash: z.string(), mtimeMs: z.number(), size: z.number() }),
  modelOverride: z.string().nullable(),
  largeConfirmed: z.boolean(),
  transcript: z.array(TranscriptEntry),
  proposals: z.array(StoredProposal),
  /** The model-facing history; failed turns are not in it. */
  turns: z.array(StoredTurn),
  /** Harness notes waiting for the next user message. */
  pendingNotes: z.array(z.string()),
});
export type EditSessionRecord = z.infer<typeof EditSessionRecord>;

/** Which session lives at which path, and the orphans whose file went away. */
const SessionIndex = z.object({
  version: z.literal(1),
  workspaceRoot: z.string(),
  live: z.record(z.string(), z.string()),
  orphans: z.record(z.string(), z.object({ path: z.string(), since: z.number() })),
});
type SessionIndex = z.infer<typeof SessionIndex>;

/**
 * Edit sessions under `<dataDir>/edit-sessions/`: one JSON file per lineage, plus an index per workspace
 * of which lineage lives at which path. A move re-keys the index; a file that goes away leaves an orphan,
 * which no later file at that path ever picks up and which is pruned after ORPHAN_RETENTION_MS.
 */
export class SessionStore {
  private readonly files: RecordFiles;
  private readonly indexFile: string;
  private index: Promise<SessionIndex> | null = null;

  constructor(
    dataDir: string,
    private readonly workspaceRoot: string,
    private readonly now: () => number = Date.now,
  ) {
    this.files = new RecordFiles(path.join(dataDir, 'edit-sessions'));
    this.indexFile = this.files.fileFor('index', workspaceRoot);
  }

  /** The session living at this path, if any. */
  async load(relPath: string): Promise<EditSessionRecord | null> {
    const id = (await this.loadIndex()).live[relPath];
    if (!id) return null;
    const record = await this.files.load(this.fileFor(id), EditSessionRecord);
    // A foreign record (hash collision, copied data folder) starts cold too.
    if (!record || record.id !== id || record.workspaceRoot !== this.workspaceRoot) return null;
    return { ...record, path: relPath };
  }

  /** Saves a snapshot of the record (saves of one lineage happen in order) and files it under its path. */
  async save(record: EditSessionRecord): Promise<void> {
    const index = await this.loadIndex();
    const saving = this.files.save(this.fileFor(record.id), record);
    if (index.live[record.path] !== record.id) {
      index.live[record.path] = record.id;
      await this.saveIndex(index);
    }
    await saving;
  }

  /** A Kiln move: every session at or under `from` now lives under `to`. */
  async moved(from: string, to: string): Promise<void> {
    const index = await this.loadIndex();
    const live = new Map(Object.entries(index.live));
    if (rekeyAfterMove(live, from, to).length === 0) return;
    index.live = Object.fromEntries(live);
    await this.saveIndex(index);
  }

  /** The file (or a folder holding it) went away: its sessions become orphans, kept for a while, never reused. */
  async orphan(gone: string): Promise<void> {
    const index = await this.loadIndex();
    let changed = false;
    for (const [filePath, id] of Object.entries(index.live)) {
      if (!isWithin(filePath, gone)) continue;
      delete index.live[filePath];
      index.orphans[id] = { path: filePath, since: this.now() };
      changed = true;
    }
    if (changed) await this.saveIndex(index);
  }

  /** Clear: the session at this path is deleted for good. */
  async delete(relPath: string, id?: string): Promise<void> {
    const index = await this.loadIndex();
    const victim = id ?? index.live[relPath];
    if (index.live[relPath] === victim) delete index.live[relPath];
    if (!victim) return;
    delete index.orphans[victim];
    await Promise.all([this.saveIndex(index), this.files.delete(this.fileFor(victim))]);
  }

  /** Drops orphans older than the retention period, record and all. */
  async prune(): Promise<string[]> {
    const index = await this.loadIndex();
    const expired = Object.entries(index.orphans).filter(
      ([, orphan]) => this.now() - orphan.since > ORPHAN_RETENTION_MS,
    );
    for (const [id] of expired) delete index.orphans[id];
    if (!expired.length) return [];
    await Promise.all([this.saveIndex(index), ...expired.map(([id]) => this.files.delete(this.fileFor(id)))]);
    return expired.map(([id]) => id);
  }

  flush(): Promise<void> {
    return this.files.flush();
  }

  private loadIndex(): Promise<SessionIndex> {
    this.index ??= this.files
      .load(this.indexFile, SessionIndex)
      .then((index) =>
        index && index.workspaceRoot === this.workspaceRoot
          ? index
          : { version: 1 as const, workspaceRoot: this.workspaceRoot, live: {}, orphans: {} },
      );
    return this.index;
  }

  private saveIndex(index: SessionIndex): Promise<void> {
    return this.files.save(this.indexFile, index);
  }

  private fileFor(id: string): string {
    return this.files.fileFor(this.workspaceRoot, 'lineage', id);
  }
}
