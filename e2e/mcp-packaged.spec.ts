import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The MCP server as built (out/main/mcp.js), with no browser: these tests drive it over stdio like any MCP client. */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PYTHON = '/usr/bin/python3';

let temp: string;
let workspace: string;

test.beforeEach(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'kiln-mcp-e2e-'));
  workspace = path.join(temp, 'workspace');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await writeFile(path.join(workspace, 'src/mathlib.py'), 'def square(x):\n    return x * x\n');
});

test.afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function connect(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: 'kiln-e2e', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  return client;
}

async function answersTheVerbs(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toContain('execute-code');
  const ran = (await client.callTool({
    name: 'execute-code',
    arguments: { code: 'from mathlib import square\nprint(square(12))' },
  })) as CallToolResult;
  expect(ran.structuredContent).toMatchObject({
    stdout: '144\n',
    returncode: 0,
    script: 'scripts/step_001_print_square_12.py',
  });
}

test('the built server runs with plain node where tsx is not installed', async () => {
  // The packaged layout: the built main bundle and the runtime packages, without tsx (a dev dependency).
  const app = path.join(temp, 'app');
  await cp(path.join(REPO, 'out/main'), path.join(app, 'out/main'), { recursive: true });
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ type: 'module' }));
  await mkdir(path.join(app, 'node_modules'));
  for (const name of await readdir(path.join(REPO, 'node_modules'))) {
    if (name === 'tsx' || name === '.bin') continue;
    await symlink(path.join(REPO, 'node_modules', name), path.join(app, 'node_modules', name));
  }
  const probe = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('tsx')"], {
    cwd: app,
    encoding: 'utf8',
  });
  expect(probe.status).not.toBe(0);
  expect(probe.stderr).toMatch(/Cannot find package 'tsx'/);

  const client = await connect(
    process.execPath,
    [path.join(app, 'out/main/mcp.js'), workspace, '--python', PYTHON],
    app,
  );
  try {
    await answersTheVerbs(client);
  } finally {
    await client.close();
  }
});

test('npm run mcp -- <folder> serves the verbs with nothing but the protocol on stdout', async () => {
  const client = await connect('npm', ['run', '--silent', 'mcp', '--', workspace, '--python', PYTHON], REPO);
  try {
    await answersTheVerbs(client);
  } finally {
    await client.close();
  }
});

test('the MCP Inspector (CLI, --strict) finds no schema-portability problem in tools/list', async () => {
  const inspector = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const result = spawnSync(
    process.execPath,
    [
      inspector,
      '--cli',
      process.execPath,
      path.join(REPO, 'out/main/mcp.js'),
      workspace,
      '--method',
      'tools/list',
      '--strict',
    ],
    { cwd: REPO, encoding: 'utf8', timeout: 60_000 },
  );
  expect(result.status, result.stderr).toBe(0);
  expect(result.stderr).not.toMatch(/^(Warning|Error): /m);
  const tools = (JSON.parse(result.stdout) as { tools: { name: string; outputSchema?: unknown }[] }).tools;
  expect(tools.find((tool) => tool.name === 'run-notebook-cell')?.outputSchema).toBeDefined();
  expect(tools.length).toBeGreaterThanOrEqual(11);
});
