/**
 * A second process writing local history (as an MCP server does), for the concurrency test:
 * `node --import tsx test-support/history-writer.ts <dataDir> <root> <path> <count>`.
 */
import { HistoryStore } from '../main/history/store';

const [dataDir, root, rel, count] = process.argv.slice(2);
const store = new HistoryStore({ dataDir, root });
for (let i = 0; i < Number(count); i++) {
  await store.record({
    path: rel,
    bytes: Buffer.from(`child ${i}`),
    origin: 'mcp',
    reason: 'write',
    mcpClient: 'child',
  });
}
