/**
 * The MCP server on a workspace, over stdio (as MCP clients launch servers):
 *   npm run --silent mcp -- /path/to/workspace [--python /usr/bin/python3] [--jupyter /usr/bin/jupyter]
 * (--silent: npm's banner would otherwise land on stdout, which carries the protocol; diagnostics go to stderr.)
 * Jupyter is found as the app finds it: --jupyter, else the jupyter: block of .kiln/config.yaml, else PATH.
 */
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigService } from '../config';
import { JupyterServerManager, jupyterSource } from '../kernel';
import { NotebookService } from '../notebook';
import { NotebookServiceVerbTarget, Verbs } from '../verbs';
import { Workspace } from '../workspace';
import { createVerbsMcpServer } from './server';

// stdout is the protocol channel: libraries that log with console.log (@jupyterlab/services does) must not write there.
for (const method of ['log', 'info', 'debug'] as const) {
  console[method] = (...args: unknown[]) => console.error(...args);
}

const USAGE = 'usage: npm run --silent mcp -- <workspace folder> [--python <interpreter>] [--jupyter <jupyter command>]';

function parseArgs(argv: string[]): { folder: string; python?: string; jupyter?: string } {
  let folder: string | undefined;
  let python: string | undefined;
  let jupyter: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--python') python = argv[++i];
    else if (arg === '--jupyter') jupyter = argv[++i];
    else if (arg === '--help' || arg === '-h') {
      process.stderr.write(`${USAGE}\n`);
      process.exit(0);
    } else if (!folder && !arg.startsWith('--')) folder = arg;
    else throw new Error(`Unexpected argument "${arg}"`);
  }
  if (!folder) throw new Error('No workspace folder given');
  return { folder, python, jupyter };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // Under `npm run`, the script runs in the package folder; a relative workspace means the caller's folder.
  const workspace = await Workspace.open({ root: path.resolve(process.env.INIT_CWD ?? process.cwd(), args.folder) });
  // Jupyter as Kiln's app finds it: --jupyter, else the project's jupyter: config block, else PATH.
  const config = new ConfigService({ workspaceRoot: workspace.root, watch: false });
  await config.start();
  const configured = jupyterSource(config.current().jupyter);
  await config.dispose();
  const jupyterCommand = args.jupyter ? [args.jupyter] : configured.command;
  const remote = args.jupyter ? undefined : configured.remote;
  // The server starts only when a notebook verb first needs a kernel.
  const jupyter = new JupyterServerManager({ rootDir: workspace.root, command: jupyterCommand, remote });
  const notebooks = new NotebookService({ workspace, jupyter, events: { emit: () => undefined }, autoStartKernel: false });
  const verbs = new Verbs({
    workspace,
    // The file on disk is what this process and a Kiln window on the workspace share: save every change, re-read before each.
    notebooks: new NotebookServiceVerbTarget({ notebooks, autosave: 'always', syncFromDisk: true }),
    python: args.python,
    jupyterCommand,
  });
  const { server, whenIdle } = createVerbsMcpServer({ verbs });

  let closing = false;
  const shutdown = async (code: number, finishCalls: boolean) => {
    if (closing) return;
    closing = true;
    // A client that closes stdin still gets the answers to what it already asked; a signal stops runs at once.
    if (finishCalls) await whenIdle();
    await verbs.dispose();
    await notebooks.dispose().catch(() => undefined);
    await jupyter.dispose().catch(() => undefined);
    await server.close().catch(() => undefined);
    process.exit(code);
  };
  server.server.onclose = () => void shutdown(0, true);
  process.stdin.on('end', () => void shutdown(0, true));
  process.on('SIGINT', () => void shutdown(0, false));
  process.on('SIGTERM', () => void shutdown(0, false));

  await server.connect(new StdioServerTransport());
  process.stderr.write(`kiln-verbs MCP server on ${workspace.root}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`kiln mcp: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
  process.exit(1);
});
