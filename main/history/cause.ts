import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a write is for, beyond the workspace's `origin`: the Agent's session and turn, or the MCP client and
 * its batch. Carried by async context, so the verbs and the notebook service need not pass it along.
 */
export interface WriteCause {
  /** The Agent's session key and the run (turn) the write belongs to. */
  agentSession?: string;
  turn?: string;
  /** An external agent over MCP: the client's name and the batch of calls the write belongs to. */
  mcpClient?: string;
  batch?: string;
  /** A Timeline restore or an undo: what the write puts back. */
  restoring?: boolean;
}

const causes = new AsyncLocalStorage<WriteCause>();

/** Runs `work` with every write it makes attributed to `cause` (nested causes add to the outer one). */
export function withWriteCause<T>(cause: WriteCause, work: () => T): T {
  return causes.run({ ...causes.getStore(), ...cause }, work);
}

export function currentWriteCause(): WriteCause {
  return causes.getStore() ?? {};
}

/** An MCP batch ends after this long without a call: a client's burst of calls is one checkpoint. */
export const MCP_BATCH_GAP_MS = 60_000;

/** Names the batches of one MCP client's calls: a call within the gap of the previous one joins its batch. */
export class CallBatches {
  private current = '';
  private lastAt = -Infinity;

  constructor(private readonly gapMs = MCP_BATCH_GAP_MS) {}

  next(now = Date.now()): string {
    if (now - this.lastAt > this.gapMs) this.current = `mcp-${now.toString(36)}-${process.pid}`;
    this.lastAt = now;
    return this.current;
  }
}
