import { existsSync, readFileSync, statSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERB_NAMES, VERBS, verbInputJsonSchema } from '../../shared/contract/verbs';
import { authoringVsRunning, createVerbStack } from '../verbs';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { trustFolder } from '../trust';
import { mcpArgumentsOf, parseMcpArguments } from './serve';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let root: string;
let cleanup: () => Promise<void>;
let dataCleanup: () => Promise<void>;
let client: Client;
let transport: StdioClientTransport;
let serverLog = '';
let dataDir = '';

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

beforeAll(async () => {
  ({ root, cleanup } = await makeTempTree({
    'src/helpers.py': 'def double(v):\n    return v * 2\n',
    'scripts/step_003_earlier.py': 'print("earlier")\n',
    'nb.ipynb': JSON.stringify({
      cells: [{ cell_type: 'code', execution_count: null, id: 'c1', metadata: {}, outputs: [], source: 'a = 5' }],
      metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
      nbformat: 4,
      nbformat_minor: 5,
    }),
  }));
  // The operator trusted the folder in Kiln: notebook cells run only in a trusted folder (a kernel is no sandbox).
  const data = await makeTempDir('kiln-mcp-data-');
  dataCleanup = data.cleanup;
  dataDir = data.dir;
  await trustFolder(data.dir, root);
  // Exactly how an MCP client launches it (`npm run mcp -- <folder>` is this command).
  transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO, 'main/mcp/cli.ts'), root],
    env: { ...getDefaultEnvironment(), KILN_DATA_DIR: data.dir },
    cwd: REPO,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    serverLog += chunk.toString();
  });
  client = new Client({ name: 'kiln-test', version: '0.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await cleanup?.();
  await dataCleanup?.();
});

describe('the MCP server', () => {
  it('teaches the same "Authoring vs running" block as Kiln\'s own agent', () => {
    expect(client.getInstructions()).toBe(authoringVsRunning(VERB_NAMES));
    expect(client.getInstructions()).toContain('**Rule of three:**');
  });

  it('lists every verb with the schemas of the VERBS table', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...VERB_NAMES].sort());
    for (const tool of tools) {
      const name = tool.name as keyof typeof VERBS;
      expect(tool.description).toBe(VERBS[name].description);
      expect(tool.inputSchema).toEqual(verbInputJsonSchema(name));
      expect(tool.outputSchema).toBeDefined();
    }
    // A client asks before a tool that replaces or removes what is there.
    const destructive = tools.filter((tool) => tool.annotations?.destructiveHint).map((tool) => tool.name);
    expect(destructive.sort()).toEqual(['delete-notebook-cell', 'edit-file', 'edit-notebook-cell', 'write-file']);
  });

  it('writes, edits and runs files on disk, logging runs in scripts/', async () => {
    const written = await call('write-file', {
      path: 'src/report.py',
      content: 'from helpers import double\nprint(double(20))\n',
    });
    expect(written.isError).toBeFalsy();
    expect(written.structuredContent).toEqual({ path: 'src/report.py', bytes_written: 45, created: true });
    expect(read('src/report.py')).toBe('from helpers import double\nprint(double(20))\n');

    const edited = await call('edit-file', {
      path: 'src/report.py',
      mode: 'replace',
      old: 'double(20)',
      new: 'double(21)',
    });
    expect(edited.structuredContent).toEqual({ path: 'src/report.py', bytes_written: 45, replacements: 1 });
    expect(read('src/report.py')).toContain('double(21)');

    const ran = await call('run-file', { path: 'src/report.py' });
    expect(ran.structuredContent).toMatchObject({
      stdout: '42\n',
      returncode: 0,
      timed_out: false,
      script: 'scripts/step_004_run_report.py',
    });
    expect(JSON.parse(textOf(ran))).toMatchObject({ stdout: '42\n' });

    const executed = await call('execute-code', { code: 'import helpers\nprint(helpers.double(2))' });
    expect(executed.structuredContent).toMatchObject({
      stdout: '4\n',
      script: 'scripts/step_005_print_helpers_double_2.py',
    });
    expect((await fs.readdir(path.join(root, 'scripts'))).sort()).toEqual([
      'step_003_earlier.py',
      'step_004_run_report.py',
      'step_005_print_helpers_double_2.py',
    ]);
  });

  it('shares the audit log with the app: concurrent runs from both processes get distinct, contiguous step numbers', async () => {
    // The app's side, built by the same builder as the app's services.
    const app = await createVerbStack({
      root,
      dataDir: root,
      config: { watch: false },
      python: '/usr/bin/python3',
    });
    try {
      const numberOf = (script: string) => Number(/^scripts\/step_(\d+)_/.exec(script)?.[1]);
      const before = Math.max(
        ...(await fs.readdir(path.join(root, 'scripts'))).map((name) => numberOf(`scripts/${name}`)),
      );
      const scripts = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2
            ? app.verbs.call('execute-code', { code: `print(${i})` }).then((result) => result.script)
            : call('execute-code', { code: `print(${i})` }).then(
                (result) => (result.structuredContent as { script: string }).script,
              ),
        ),
      );
      expect(scripts.map(numberOf).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => before + 1 + i));
      for (const [i, script] of scripts.entries()) expect(read(script)).toContain(`print(${i})`);
    } finally {
      await app.dispose();
    }
  });

  it('reports refusals as tool errors carrying the code', async () => {
    const missing = await call('run-file', { path: 'src/missing.py' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^E_NOT_FOUND: /);
    const twice = await call('edit-file', { path: 'src/helpers.py', mode: 'replace', old: 'v', new: 'w' });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toMatch(/^E_BAD_REQUEST: .*matches/);
    const outside = await call('write-file', { path: '../outside.txt', content: 'x' });
    expect(textOf(outside)).toMatch(/^E_OUTSIDE_WORKSPACE: /);
    expect(existsSync(path.join(root, '..', 'outside.txt'))).toBe(false);
    const exists = await call('write-file', { path: 'src/helpers.py', content: 'x', overwrite: false });
    expect(textOf(exists)).toMatch(/^E_EXISTS: /);
    const badArgs = await call('write-file', { path: 'x.txt' });
    expect(badArgs.isError).toBe(true);
  });

  it('runs the notebook verbs against a kernel of its own and saves each change', async () => {
    const appended = await call('append-notebook-cell', {
      notebook_name: 'nb',
      source: '# title',
      cell_type: 'markdown',
    });
    expect(appended.structuredContent).toMatchObject({ index: 1 });
    const first = await call('rerun-notebook-cell', { notebook_name: 'nb', cell_id: 'c1' });
    expect(first.structuredContent).toMatchObject({ cell_id: 'c1', had_error: false });
    const ran = await call('run-notebook-cell', {
      notebook_name: 'nb',
      source: 'from helpers import double\nprint(double(a))',
    });
    expect(ran.isError, textOf(ran) + serverLog).toBeFalsy();
    const run = ran.structuredContent as { cell_id: string; outputs: { text?: string }[] };
    expect(run.outputs[0].text).toBe('10\n');
    const edited = await call('edit-notebook-cell', {
      notebook_name: 'nb',
      cell_id: run.cell_id,
      source: 'print(a + 1)',
    });
    expect(edited.structuredContent).toEqual({ cell_id: run.cell_id, source_len: 12, saved: true });
    const rerun = await call('rerun-notebook-cell', { notebook_name: 'nb', cell_id: run.cell_id });
    expect((rerun.structuredContent as { outputs: { text?: string }[] }).outputs[0].text).toBe('6\n');
    const deleted = await call('delete-notebook-cell', {
      notebook_name: 'nb',
      cell_id: (appended.structuredContent as { cell_id: string }).cell_id,
    });
    expect(deleted.structuredContent).toMatchObject({ remaining_cells: 2 });
    const unknown = await call('rerun-notebook-cell', { notebook_name: 'nb', cell_id: 'ghost' });
    expect(textOf(unknown)).toMatch(/^E_NOT_FOUND: .*"ghost"/);

    const disk = JSON.parse(read('nb.ipynb')) as {
      cells: { id: string; source: string | string[]; outputs: { text?: string | string[] }[] }[];
    };
    expect(disk.cells.map((cell) => cell.id)).toEqual(['c1', run.cell_id]);
    const joined = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join('') : v);
    expect(joined(disk.cells[1].source)).toBe('print(a + 1)');
    expect(joined(disk.cells[1].outputs[0].text)).toBe('6\n');

    // The operator saves a change in Kiln (another process): the next verb builds on it, with the kernel's state intact.
    const edited2 = JSON.parse(read('nb.ipynb')) as { cells: { source: string | string[] }[] };
    edited2.cells[0].source = 'a = 5  # operator note';
    await fs.writeFile(path.join(root, 'nb.ipynb'), JSON.stringify(edited2, null, 1));
    const after = await call('run-notebook-cell', { notebook_name: 'nb.ipynb', source: 'print(a * 3)' });
    expect((after.structuredContent as { outputs: { text?: string }[] }).outputs[0].text).toBe('15\n');
    const final = JSON.parse(read('nb.ipynb')) as { cells: { source: string | string[] }[] };
    expect(final.cells.map((cell) => joined(cell.source))).toEqual([
      'a = 5  # operator note',
      'print(a + 1)',
      'print(a * 3)',
    ]);
  }, 90_000);
});

describe('the MCP command line', () => {
  it("keeps a log of its own, <dataDir>/logs/mcp.log, owner-only, beside the app's", () => {
    const file = path.join(dataDir, 'logs', 'mcp.log');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('reads a folder and options, and finds them after --mcp in the packaged app', () => {
    expect(parseMcpArguments(['ws', '--python', '/usr/bin/python3'])).toEqual({
      folder: 'ws',
      python: '/usr/bin/python3',
      jupyter: undefined,
      verbose: false,
    });
    expect(parseMcpArguments(['ws', '--verbose'])).toMatchObject({ folder: 'ws', verbose: true });
    expect(parseMcpArguments(['ws', '--test-run-limit-ms', '3000'])).toMatchObject({ runLimitMs: 3000 });
    expect(() => parseMcpArguments(['ws', '--test-run-limit-ms', 'soon'])).toThrow(/needs a count/);
    expect(() => parseMcpArguments([])).toThrow(/No workspace folder/);
    expect(() => parseMcpArguments(['ws', '--python'])).toThrow(/needs a value/);
    expect(() => parseMcpArguments(['ws', 'other'])).toThrow(/Unexpected argument "other"/);
    expect(mcpArgumentsOf(['/opt/Kiln/kiln', '--no-sandbox', '--mcp', '/home/me/ws'])).toEqual(['/home/me/ws']);
    expect(mcpArgumentsOf(['/opt/Kiln/kiln', '/home/me/ws'])).toBeNull();
  });
});
