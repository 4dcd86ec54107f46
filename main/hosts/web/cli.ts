import Conf from 'conf';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServices } from '../../services';
import { refuseWatchesAfter } from '../../watcher';
import { createLogger, startLog } from '../../log';
import { openDataDir } from '../data-dir';
import { tuneHeapForStreaming } from './heap';
import { startWebHost } from './server';

/** How long a graceful stop (kernels, Jupyter, watchers) may take before the process exits anyway. */
const STOP_GRACE_MS = 5000;
const USAGE = 'Usage: npm run serve -- <folder> [--port N] [--host ADDR --allow-remote] [--verbose]';

interface CliArgs {
  folder: string;
  port: number;
  host: string;
  allowRemote: boolean;
  /** The log mirrored to stderr, debug records included. */
  verbose: boolean;
  /** Test seams, set only by the end-to-end fixture (e2e/support/fixtures.ts `hostArgs`); not in USAGE. */
  testRefuseWatchesAfter?: number;
  testHoldSearchAfter?: number;
  testRunLimitMs?: number;
}

function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { folder: '', port: 0, host: '127.0.0.1', allowRemote: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--port') args.port = Number(argv[++i]);
    else if (arg === '--host') args.host = argv[++i] ?? '';
    else if (arg === '--allow-remote') args.allowRemote = true;
    else if (arg === '--verbose') args.verbose = true;
    else if (arg === '--test-refuse-watches-after') args.testRefuseWatchesAfter = count(arg, argv[++i]);
    else if (arg === '--test-hold-search-after') args.testHoldSearchAfter = count(arg, argv[++i]);
    else if (arg === '--test-run-limit-ms') args.testRunLimitMs = count(arg, argv[++i]);
    else if (arg === '--help' || arg === '-h') exit(USAGE, 0);
    else if (arg.startsWith('--')) exit(`Unknown option ${arg}\n${USAGE}`, 2);
    else args.folder = arg;
  }
  if (!args.folder) exit(USAGE, 2);
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) exit(`Bad --port\n${USAGE}`, 2);
  return args;
}

function count(option: string, value: string | undefined): number {
  if (!value || !/^\d+$/.test(value)) exit(`${option} needs a count\n${USAGE}`, 2);
  return Number(value);
}

function exit(message: string, code: number): never {
  (code === 0 ? console.log : console.error)(message);
  process.exit(code);
}

/** Where the built renderer sits relative to this file once bundled (out/main/web.js -> out/renderer). */
export function builtRendererDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../renderer');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  tuneHeapForStreaming();
  // The daemon serves every open window: a stray failure is logged, never fatal.
  const log = createLogger('host');
  process.on('unhandledRejection', (err) => {
    console.error('Kiln: unexpected error:', err);
    log.error('unexpected error', { err });
  });
  const dataDir = await openDataDir();
  startLog(dataDir, args.verbose ? ['--verbose'] : []);
  log.info('web host starting', { folder: args.folder, pid: process.pid });
  const prefsStore = new Conf<Record<string, unknown>>({
    projectName: 'kiln',
    cwd: dataDir,
    configName: 'prefs',
    configFileMode: 0o600,
  });
  // The end-to-end tests' way to meet a full inotify budget without exhausting the machine's.
  const watchFolder =
    args.testRefuseWatchesAfter !== undefined ? refuseWatchesAfter(args.testRefuseWatchesAfter) : undefined;
  const services = await createServices({
    root: args.folder,
    dataDir,
    prefsStore,
    watchFolder,
    holdSearchesAfter: args.testHoldSearchAfter,
    runLimitMs: args.testRunLimitMs,
  }).catch((err: Error) => exit(`Kiln: cannot open ${args.folder}: ${err.message}`, 1));
  prefsStore.set('lastWorkspace', services.workspace.root);
  const host = await startWebHost({
    services,
    staticDir: process.env.KILN_RENDERER_DIR ?? builtRendererDir(),
    port: args.port,
    host: args.host,
    allowNonLoopback: args.allowRemote,
  }).catch((err: Error) => exit(`Kiln: ${err.message}`, 1));
  console.log(`Kiln web host: ${host.url}`);

  let stopping = false;
  const stop = (): void => {
    // A second signal, or a shutdown that hangs, still ends the process: SIGTERM always stops the host.
    if (stopping) process.exit(0);
    stopping = true;
    // Past the grace, processes still running (a Jupyter slow to start) are killed by the process kit's exit hook.
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    void host
      .close()
      .then(() => services.dispose())
      .catch((err: unknown) => console.error('Kiln: error while stopping:', err))
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
