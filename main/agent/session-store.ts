import path from 'node:path';
import { modelMessageSchema, type ModelMessage } from 'ai';
import { z } from 'zod';
import { AgentEntry } from '../../shared/contract';
import { RecordFiles } from '../models';

/** The workspace session on disk (app data, never the workspace). */
export const AgentRecord = z.object({
  version: z.literal(1),
  workspaceRoot: z.string(),
  kind: z.literal('workspace'),
  createdAt: z.number(),
  transcript: z.array(AgentEntry),
  /** The model-facing history in the AI SDK's own message shape (tool calls and results included). */
  messages: z.array(modelMessageSchema),
});
export interface AgentRecord extends Omit<z.infer<typeof AgentRecord>, 'messages'> {
  messages: ModelMessage[];
}

/** One JSON file per workspace under `<dataDir>/agent-sessions/`. */
export class AgentRecordStore {
  private readonly files: RecordFiles;
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly workspaceRoot: string,
  ) {
    this.files = new RecordFiles(path.join(dataDir, 'agent-sessions'));
    this.file = this.files.fileFor('workspace', workspaceRoot);
  }

  async load(): Promise<AgentRecord | null> {
    const record = await this.files.load(this.file, AgentRecord);
    // A foreign record starts cold too.
    if (!record || record.workspaceRoot !== this.workspaceRoot) return null;
    return record as AgentRecord;
  }

  save(record: AgentRecord): Promise<void> {
    return this.files.save(this.file, record);
  }

  delete(): Promise<void> {
    return this.files.delete(this.file);
  }

  flush(): Promise<void> {
    return this.files.flush();
  }
}
