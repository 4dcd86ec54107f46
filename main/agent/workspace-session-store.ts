import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { modelMessageSchema, type ModelMessage } from 'ai';
import { z } from 'zod';
import { AgentSessionEntry } from '../../shared/contract';

/** The workspace session on disk (app data, never the workspace). */
export const WorkspaceSessionRecord = z.object({
  version: z.literal(1),
  workspaceRoot: z.string(),
  kind: z.literal('workspace'),
  createdAt: z.number(),
  transcript: z.array(AgentSessionEntry),
  /** The model-facing history in the AI SDK's own message shape (tool calls and results included). */
  messages: z.array(modelMessageSchema),
});
export interface WorkspaceSessionRecord extends Omit<z.infer<typeof WorkspaceSessionRecord>, 'messages'> {
  messages: ModelMessage[];
}

/** One JSON file per workspace under `<dataDir>/agent-sessions/`, written atomically and in order. */
export class WorkspaceSessionStore {
  readonly file: string;
  private tail: Promise<void> = Promise.resolve();

  constructor(dataDir: string, private readonly workspaceRoot: string) {
    const key = createHash('sha256').update(`workspace\0${workspaceRoot}`).digest('hex').slice(0, 40);
    this.file = path.join(dataDir, 'agent-sessions', `${key}.json`);
  }

  async load(): Promise<WorkspaceSessionRecord | null> {
    await this.tail;
    let raw: string;
    try {
      raw = await fs.readFile(this.file, 'utf8');
    } catch {
      return null;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return null;
    }
    const parsed = WorkspaceSessionRecord.safeParse(json);
    // An unreadable or foreign record starts cold rather than failing the panel.
    if (!parsed.success || parsed.data.workspaceRoot !== this.workspaceRoot) return null;
    return parsed.data as WorkspaceSessionRecord;
  }

  save(record: WorkspaceSessionRecord): Promise<void> {
    const json = JSON.stringify(record);
    return this.enqueue(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      const temp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
      await fs.writeFile(temp, json);
      await fs.rename(temp, this.file);
    });
  }

  delete(): Promise<void> {
    return this.enqueue(() => fs.rm(this.file, { force: true }));
  }

  flush(): Promise<void> {
    return this.tail;
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => {});
    return next;
  }
}
