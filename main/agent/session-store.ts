import path from 'node:path';
import { z } from 'zod';
import { ProposalStatus, TranscriptEntry } from '../../shared/contract';
import { RecordFiles } from './record-files';

/** A proposal in full; the transcript only carries its chip. */
export const StoredProposal = z.object({
  id: z.string(),
  content: z.string(),
  createdAt: z.number(),
  linesAdded: z.number(),
  linesRemoved: z.number(),
  status: ProposalStatus,
  toolCallId: z.string(),
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
  version: z.literal(1),
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

/** One JSON file per (workspace, file path) under `<dataDir>/edit-sessions/`. */
export class SessionStore {
  private readonly files: RecordFiles;

  constructor(dataDir: string, private readonly workspaceRoot: string) {
    this.files = new RecordFiles(path.join(dataDir, 'edit-sessions'));
  }

  async load(relPath: string): Promise<EditSessionRecord | null> {
    const record = await this.files.load(this.fileFor(relPath), EditSessionRecord);
    // A foreign record (hash collision, copied data folder) starts cold too.
    if (!record || record.path !== relPath || record.workspaceRoot !== this.workspaceRoot) return null;
    return record;
  }

  /** Saves a snapshot of the record; saves of one path happen in order. */
  save(record: EditSessionRecord): Promise<void> {
    return this.files.save(this.fileFor(record.path), record);
  }

  delete(relPath: string): Promise<void> {
    return this.files.delete(this.fileFor(relPath));
  }

  flush(): Promise<void> {
    return this.files.flush();
  }

  private fileFor(relPath: string): string {
    return this.files.fileFor(this.workspaceRoot, relPath);
  }
}
