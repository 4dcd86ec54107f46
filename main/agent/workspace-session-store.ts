import path from 'node:path';
import { modelMessageSchema, type ModelMessage } from 'ai';
import { z } from 'zod';
import { AgentSessionEntry } from '../../shared/contract';
import { RecordFiles } from './record-files';

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

/** One JSON file per workspace under `<dataDir>/agent-sessions/`. */
export class WorkspaceSessionStore {
  private readonly files: RecordFiles;
  private readonly file: string;

  constructor(dataDir: string, private readonly workspaceRoot: string) {
    this.files = new RecordFiles(path.join(dataDir, 'agent-sessions'));
    this.file = this.files.fileFor('workspace', workspaceRoot);
  }

  async load(): Promise<WorkspaceSessionRecord | null> {
    const record = await this.files.load(this.file, WorkspaceSessionRecord);
    // A foreign record starts cold too.
    if (!record || record.workspaceRoot !== this.workspaceRoot) return null;
    return record as WorkspaceSessionRecord;
  }

  save(record: WorkspaceSessionRecord): Promise<void> {
    return this.files.save(this.file, record);
  }

  delete(): Promise<void> {
    return this.files.delete(this.file);
  }

  flush(): Promise<void> {
    return this.files.flush();
  }
}
