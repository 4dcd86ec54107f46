/**
 * An external agent over MCP (the real server process, as a client launches it) keeps local history in the
 * app's data folder: its writes are recorded as its own, in one batch, and the batch undoes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { Workspace } from '../workspace';
import { HistoryStore } from './store';
import { TurnUndo } from './undo';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let root: string;
let cleanups: Array<() => Promise<void>> = [];
let dataDir: string;
let client: Client;

beforeAll(async () => {
  const tree = await makeTempTree({ 'notes.md': 'before\n' });
  const data = await makeTempDir('kiln-mcp-history-');
  root = tree.root;
  dataDir = data.dir;
  cleanups = [tree.cleanup, data.cleanup];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO, 'main/mcp/cli.ts'), root],
    cwd: REPO,
    env: { ...process.env, KILN_DATA_DIR: dataDir } as Record<string, string>,
    stderr: 'pipe',
  });
  client = new Client({ name: 'history-test-client', version: '0.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  for (const cleanup of cleanups) await cleanup();
});

describe('local history over MCP', () => {
  it("records the client's writes as its own, in one batch, and undoing the batch puts the files back", async () => {
    await client.callTool({ name: 'write-file', arguments: { path: 'notes.md', content: 'by mcp\n' } });
    await client.callTool({ name: 'write-file', arguments: { path: 'made.txt', content: 'new\n' } });
    expect(await readFile(path.join(root, 'notes.md'), 'utf8')).toBe('by mcp\n');

    const store = new HistoryStore({ dataDir, root });
    const [entry] = await store.list('notes.md');
    expect(entry).toMatchObject({ origin: 'mcp', mcpClient: 'history-test-client', reason: 'write' });
    expect((await store.read('notes.md', entry.id)).bytes.toString()).toBe('before\n');
    const [made] = await store.list('made.txt');
    expect(made).toMatchObject({ reason: 'create', batch: entry.batch });

    const workspace = await Workspace.open({ root, trash: async () => false });
    const undone = await new TurnUndo(store, workspace).undo(entry.batch!);
    expect(undone.restored.sort()).toEqual(['made.txt', 'notes.md']);
    expect(await readFile(path.join(root, 'notes.md'), 'utf8')).toBe('before\n');
    await expect(readFile(path.join(root, 'made.txt'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
