/** The MCP server run first on a machine makes Kiln's data folder private, as the app does. */
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Every entry under `dir` (itself included) with its permission bits. */
async function modes(dir: string): Promise<Array<{ rel: string; dir: boolean; mode: number }>> {
  const out = [{ rel: '.', dir: true, mode: (await fs.stat(dir)).mode & 0o777 }];
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const abs = path.join(entry.parentPath, entry.name);
    out.push({ rel: path.relative(dir, abs), dir: entry.isDirectory(), mode: (await fs.lstat(abs)).mode & 0o777 });
  }
  return out;
}

/** Starts the MCP server on a fresh workspace with `dataDir` as Kiln's data folder and makes one write history keeps. */
async function runOnce(dataDir: string): Promise<void> {
  const { root, cleanup } = await makeTempTree({ 'notes.md': 'one\n' });
  cleanups.push(cleanup);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO, 'main/mcp/cli.ts'), root],
    cwd: REPO,
    env: { ...getDefaultEnvironment(), KILN_DATA_DIR: dataDir },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'kiln-test', version: '0.0.0' });
  await client.connect(transport);
  try {
    const result = (await client.callTool({
      name: 'write-file',
      arguments: { path: 'notes.md', content: 'two\n' },
    })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
  } finally {
    await client.close();
  }
}

async function scratch(): Promise<string> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-mcp-first-'));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  return home;
}

/** Kiln's own entries are the owner's alone; `except` are the operator's own files. */
async function expectPrivate(dataDir: string, except: string[] = []): Promise<void> {
  const entries = (await modes(dataDir)).filter((e) => !except.includes(e.rel));
  expect(entries.filter((e) => !e.dir).length).toBeGreaterThan(0);
  for (const entry of entries)
    expect({ ...entry, mode: entry.mode.toString(8) }).toEqual({ ...entry, mode: entry.dir ? '700' : '600' });
}

it('creates the data folder 0700 with its files 0600 when it runs first', async () => {
  // Not there yet, two levels deep: as on a machine where Kiln never ran.
  const dataDir = path.join(await scratch(), 'config', 'Kiln');
  await runOnce(dataDir);
  await expectPrivate(dataDir);
});

it('makes a data folder the operator made by hand (for their config.yaml) private, as the app does', async () => {
  const dataDir = path.join(await scratch(), 'Kiln');
  await fs.mkdir(dataDir, { mode: 0o755 });
  await fs.chmod(dataDir, 0o755);
  await fs.writeFile(path.join(dataDir, 'config.yaml'), '# mine\n', { mode: 0o644 });
  await runOnce(dataDir);
  await expectPrivate(dataDir, ['config.yaml']);
});
