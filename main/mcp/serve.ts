import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { openDataDir } from '../hosts/data-dir';
import { createLogger, startLog } from '../log';
import { createVerbStack } from '../verbs';
import { createVerbsMcpServer } from './server';

const log = createLogger('mcp');

export const MCP_USAGE = '<workspace folder> [--python <interpreter>] [--jupyter <jupyter command>] [--verbose]';

export interface McpArguments {
  folder: string;
  python?: string;
  jupyter?: string;
  /** A test flag (`--test-run-limit-ms N`, not in the usage): the runs' wall limit. */
  runLimitMs?: number;
  /** The log (`<dataDir>/logs/mcp.log`) mirrored to stderr. */
  verbose?: boolean;
}

/** Parses `<folder> [--python X] [--jupyter Y]`; throws with a readable message on anything else. */
export function parseMcpArguments(argv: readonly string[]): McpArguments {
  let folder: string | undefined;
  let python: string | undefined;
  let jupyter: string | undefined;
  let runLimitMs: number | undefined;
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--python' || arg === '--jupyter') {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      if (arg === '--python') python = value;
      else jupyter = value;
    } else if (arg === '--test-run-limit-ms') {
      const value = argv[++i];
      if (!value || !/^\d+$/.test(value)) throw new Error(`${arg} needs a count of milliseconds`);
      runLimitMs = Number(value);
    } else if (arg === '--verbose') verbose = true;
    else if (!folder && !arg.startsWith('-')) folder = arg;
    else throw new Error(`Unexpected argument "${arg}"`);
  }
  if (!folder) throw new Error('No workspace folder given');
  return { folder, python, jupyter, runLimitMs, verbose };
}

/**
 * `kiln --mcp <folder> …` (the packaged app) carries the MCP arguments after `--mcp`; null when the app
 * was started as the app. Electron adds its own switches (`--no-sandbox`, `--inspect…`) before ours.
 */
export function mcpArgumentsOf(argv: readonly string[]): string[] | null {
  const at = argv.indexOf('--mcp');
  return at === -1 ? null : argv.slice(at + 1);
}

export interface ServeOptions {
  /** Resolves a relative folder (npm run sets INIT_CWD to the caller's folder). */
  cwd: string;
  /** Ends the process (process.exit under node, app.exit under Electron). */
  exit: (code: number) => void;
}

/**
 * Serves the workspace verbs over MCP on stdin/stdout until the client closes stdin (its last calls are
 * answered) or a signal arrives (runs are stopped at once). stdout carries the protocol, so anything that
 * logs with console.log (@jupyterlab/services does) is sent to stderr.
 */
export async function serveMcpOverStdio(args: McpArguments, options: ServeOptions): Promise<void> {
  for (const method of ['log', 'info', 'debug'] as const) {
    console[method] = (...parts: unknown[]) => console.error(...parts);
  }
  const dataDir = await openDataDir();
  // A log of its own beside the app's (stdout is the protocol; --verbose mirrors to stderr).
  startLog(dataDir, args.verbose ? ['--verbose'] : [], process.env, 'mcp.log');
  const stack = await createVerbStack({
    root: path.resolve(options.cwd, args.folder),
    config: { watch: false },
    // The app's trust list: a project's jupyter: block runs only in a folder the operator trusted in Kiln.
    dataDir,
    jupyterCommand: args.jupyter ? [args.jupyter] : undefined,
    python: args.python,
    runLimitMs: args.runLimitMs,

    // The server starts only when a notebook verb first needs a kernel.
    autoStartKernel: false,
    // The file on disk is what this process and a Kiln window on the workspace share: save every change, re-read before each.
    notebookVerbs: { autosave: 'always', syncFromDisk: true },
  });
  const { server, whenIdle } = createVerbsMcpServer({ verbs: stack.verbs });

  let closing = false;
  const shutdown = async (finishCalls: boolean) => {
    if (closing) return;
    closing = true;
    if (finishCalls) await whenIdle();
    await stack.dispose();
    await server.close().catch(log.caught('the MCP transport was already closed by the client', undefined));
    options.exit(0);
  };
  server.server.onclose = () => void shutdown(true);
  process.stdin.on('end', () => void shutdown(true));
  process.on('SIGINT', () => void shutdown(false));
  process.on('SIGTERM', () => void shutdown(false));

  await server.connect(new StdioServerTransport());
  process.stderr.write(`kiln-verbs MCP server on ${stack.workspace.root}\n`);
}
