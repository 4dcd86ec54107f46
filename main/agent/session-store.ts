import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ProposalStatus, TranscriptEntry } from '../../shared/contract';

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

export const StoredTurn = z.object({
  notes: z.array(z.string()),
  userText: z.string(),
  assistantText: z.string(),
  proposalId: z.string().optional(),
});
export type StoredTurn = z.infer<typeof StoredTurn>;

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

/** Persists one JSON file per (workspace, file path) under `<dataDir>/edit-sessions/`, written atomically. */
export class SessionStore {
  private readonly dir: string;
  private readonly writes = new Map<string, Promise<void>>();

  constructor(dataDir: string, private readonly workspaceRoot: string) {
    this.dir = path.join(dataDir, 'edit-sessions');
  }

  fileFor(relPath: string): string {
    const key = createHash('sha256').update(`${this.workspaceRoot}\0${relPath}`).digest('hex').slice(0, 40);
    return path.join(this.dir, `${key}.json`);
  }

  async load(relPath: string): Promise<EditSessionRecord | null> {
    await this.writes.get(relPath);
    let raw: string;
    try {
      raw = await fs.readFile(this.fileFor(relPath), 'utf8');
    } catch {
      return null;
    }
    const parsed = EditSessionRecord.safeParse(JSON.parse(raw));
    // An unreadable or foreign record starts cold rather than failing the panel.
    if (!parsed.success || parsed.data.path !== relPath || parsed.data.workspaceRoot !== this.workspaceRoot) return null;
    return parsed.data;
  }

  /** Saves a snapshot of the record; saves of one path happen in order. */
  save(record: EditSessionRecord): Promise<void> {
    const json = JSON.stringify(record);
    return this.enqueue(record.path, async () => {
      const file = this.fileFor(record.path);
      await fs.mkdir(this.dir, { recursive: true });
      const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(temp, json);
      await fs.rename(temp, file);
    });
  }

  delete(relPath: string): Promise<void> {
    return this.enqueue(relPath, () => fs.rm(this.fileFor(relPath), { force: true }));
  }

  async flush(): Promise<void> {
    await Promise.all(this.writes.values());
  }

  private enqueue(relPath: string, job: () => Promise<void>): Promise<void> {
    const next = (this.writes.get(relPath) ?? Promise.resolve()).then(job, job);
    const settled = next.catch(() => {});
    this.writes.set(relPath, settled);
    void settled.then(() => {
      if (this.writes.get(relPath) === settled) this.writes.delete(relPath);
    });
    return next;
  }
}
