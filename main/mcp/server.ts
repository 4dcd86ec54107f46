import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { VERB_NAMES, VERBS } from '../../shared/contract/verbs';
import { toWireError } from '../errors';
import { authoringVsRunning, type Verbs } from '../verbs';
import { CallBatches, withWriteCause } from '../history';

export interface VerbsMcpServerOptions {
  verbs: Verbs;
  name?: string;
  version?: string;
}

/** The verbs as a tool result: the JSON as text (what every client shows a model) and as structured content. */
function toolResult(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A refusal as MCP tools report one: isError, with Kiln's error code leading the message. */
function toolError(err: unknown): CallToolResult {
  const wire = toWireError(err);
  return { isError: true, content: [{ type: 'text', text: `${wire.code}: ${wire.message}` }] };
}

export interface VerbsMcpServer {
  readonly server: McpServer;
  /** Resolves once no tool call is in flight (so a client closing stdin still gets its last answers). */
  whenIdle(): Promise<void>;
}

/**
 * An MCP server exposing every workspace verb as a tool, with the schemas of the VERBS table
 * (the same ones Kiln's Agent and UI use). Connect `server` to a transport (stdio for MCP clients).
 */
export function createVerbsMcpServer(options: VerbsMcpServerOptions): VerbsMcpServer {
  const inFlight = new Set<Promise<unknown>>();
  const batches = new CallBatches();
  const server = new McpServer(
    { name: options.name ?? 'kiln-verbs', version: options.version ?? '0.1.0' },
    {
      // The same "Authoring vs running" block Kiln's own agent is taught.
      instructions: authoringVsRunning(VERB_NAMES),
    },
  );
  for (const name of VERB_NAMES) {
    const spec = VERBS[name];
    const handler = (args: unknown): Promise<CallToolResult> => {
      // Writes are kept in local history as this client's, in its current batch (so a batch can be undone).
      const cause = { mcpClient: server.server.getClientVersion()?.name ?? 'MCP client', batch: batches.next() };
      const call = withWriteCause(cause, () => options.verbs.call(name, args)).then(toolResult, toolError);
      inFlight.add(call);
      void call.finally(() => inFlight.delete(call));
      return call;
    };
    server.registerTool(
      name,
      {
        description: spec.description,
        inputSchema: spec.input as z.ZodObject,
        outputSchema: spec.result as z.ZodObject,
        annotations: { destructiveHint: spec.destructive, openWorldHint: false },
      },
      handler,
    );
  }
  return {
    server,
    async whenIdle() {
      // A request read just now may not have reached its handler yet, and an answer is written a turn after
      // its handler settles: yield to the event loop around each wait.
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      await turn();
      while (inFlight.size > 0) {
        await Promise.allSettled([...inFlight]);
        await turn();
      }
    },
  };
}
