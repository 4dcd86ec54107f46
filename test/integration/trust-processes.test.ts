/**
 * Workspace trust across processes: the app's hosts and the MCP server read one trust list (the data folder
 * every Kiln process computes the same way), an MCP server on an untrusted folder never runs the project's
 * jupyter.command, and processes trusting folders at the same moment all keep their decision.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../main/hosts/data-dir';
import { trustFolder } from '../../main/trust';

const REPO = path.resolve(__dirname, '../..');
const run = promisify(execFile);

let scratch: string;
beforeEach(async () => {
  scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), 'kiln-trust-procs-')));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A program that leaves `marker` and fails: whether it ran is all these tests ask. */
async function markingProgram(file: string, marker: string): Promise<string> {
  await writeFile(file, `#!/bin/sh\necho ran >> "${marker}"\nexit 1\n`);
  await chmod(file, 0o755);
  return file;
}

describe('the app and the MCP server', () => {
  it('share one trust list: untrusted, the MCP server never runs the project jupyter.command; trusted, it does', async () => {
    // A user whose data folder is found from HOME / XDG_CONFIG_HOME, as on a real machine (no KILN_DATA_DIR).
    const home = path.join(scratch, 'home');
    await mkdir(home);
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
    delete env.KILN_DATA_DIR;
    delete env.XDG_CONFIG_HOME;
    const bin = path.join(scratch, 'bin');
    await mkdir(bin);
    const pathMarker = path.join(scratch, 'path-jupyter-ran');
    const projectMarker = path.join(scratch, 'project-jupyter-ran');
    await markingProgram(path.join(bin, 'jupyter'), pathMarker);
    const projectJupyter = await markingProgram(path.join(scratch, 'project-jupyter'), projectMarker);
    env.PATH = `${bin}:${env.PATH}`;

    const root = path.join(scratch, 'cloned-project');
    await mkdir(path.join(root, '.kiln'), { recursive: true });
    await writeFile(path.join(root, '.kiln', 'config.yaml'), `jupyter:\n  command: ${projectJupyter}\n`);
    await writeFile(
      path.join(root, 'nb.ipynb'),
      JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
    );

    const runCellOverMcp = async (): Promise<CallToolResult> => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', path.join(REPO, 'main/mcp/cli.ts'), root],
        cwd: REPO,
        env,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'kiln-trust-test', version: '0.0.0' });
      await client.connect(transport);
      try {
        return (await client.callTool({
          name: 'run-notebook-cell',
          arguments: { notebook_name: 'nb.ipynb', source: '1 + 1' },
        })) as CallToolResult;
      } finally {
        await client.close();
      }
    };

    // Untrusted: the notebook verb starts no Jupyter at all (no kernel in an untrusted folder), not even from PATH.
    expect((await runCellOverMcp()).isError).toBe(true);
    expect(existsSync(pathMarker)).toBe(false);
    expect(existsSync(projectMarker)).toBe(false);

    // The operator trusts the folder in the app: its hosts name the data folder with defaultDataDir, from the
    // same HOME; the MCP server, started again, reads that decision.
    const appDataDir = defaultDataDir(env);
    expect(appDataDir).toBe(path.join(home, '.config', 'Kiln'));
    await trustFolder(appDataDir, root);
    expect((await runCellOverMcp()).isError).toBe(true);
    expect(existsSync(projectMarker)).toBe(true);
  });
});

describe('processes trusting folders at the same moment', () => {
  it('lose no decision', async () => {
    const dataDir = path.join(scratch, 'data');
    const folders = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const folder = path.join(scratch, `project-${i}`);
        await mkdir(folder);
        return folder;
      }),
    );
    const script = `import { trustFolder } from ${JSON.stringify(path.join(REPO, 'main/trust/index.ts'))};
await trustFolder(process.argv[1], process.argv[2]);`;
    await Promise.all(
      folders.map((folder) =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir, folder], {
          cwd: REPO,
        }),
      ),
    );
    const list = JSON.parse(await readFile(path.join(dataDir, 'trusted-folders.json'), 'utf8')) as {
      folders: string[];
    };
    expect([...list.folders].sort()).toEqual([...folders].sort());
    expect(existsSync(path.join(dataDir, 'trusted-folders.json.lock'))).toBe(false);
  });
});
