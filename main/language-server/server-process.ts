import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  createClientPipeTransport,
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { createLogger } from '../log';

const log = createLogger('language-server');

/*
 * Why pyright and not basedpyright (both measured here on one 2-core machine, same two-file workspace, Node 20):
 * pyright 1.1.414 was ready with diagnostics in 1.6-2.7 s at ~128 MB RSS and answered the first completion in
 * ~20 ms; basedpyright 1.40.1 took 3.1 s at ~244 MB and its first completion 3.8-4.1 s (it indexes for
 * auto-imports), and its default rule set flags untyped code that pyright's `standard` mode accepts. The extra
 * features basedpyright adds (inlay hints, semantic tokens) are not used by Kiln's editor; pyright offers every
 * feature Kiln uses (diagnostics, completion, hover, signatures, definition/declaration/type definition,
 * references, rename, symbols, code actions). Neither offers document formatting.
 */
const requirePyright = createRequire(import.meta.url);

export const SERVER_NAME = 'pyright';

export function serverVersion(): string {
  try {
    return (requirePyright('pyright/package.json') as { version: string }).version;
  } catch (err) {
    return log.caught("pyright's package.json is unreadable; its version is shown as ?", '?')(err);
  }
}

/** A Node script running as a child of main, started by a `NodeScriptLauncher`. */
export interface LaunchedScript {
  readonly pid: number | undefined;
  kill(): void;
  /** Settles when the process is gone. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its standard error, where the launcher can give it. */
  readonly stderr: NodeJS.ReadableStream | null;
}

/**
 * Runs a Node script as a child. The Electron host passes one built on `utilityProcess` (a packaged app has the
 * RunAsNode fuse off, so `process.execPath` would start another Kiln); then the server speaks over a Unix socket
 * in Kiln's private data folder, since a utility process has no stdin.
 */
export type NodeScriptLauncher = (script: string, args: string[], options: { cwd: string }) => LaunchedScript;

export interface ServerProcess {
  readonly pid: number | undefined;
  kill(): void;
  readonly connection: ProtocolConnection;
  /** Settles when the process is gone, with why. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Last lines the server wrote to stderr, for the status when it dies. */
  stderrTail(): string;
}

function keepTail(stream: NodeJS.ReadableStream | null): () => string {
  let tail = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-2000);
  });
  return () => tail.trim().split('\n').slice(-3).join('\n');
}

/**
 * Starts pyright's language server as a child of main: over stdio with main's own Node runtime (the web host, tests),
 * or through the host's launcher over a private socket (Electron).
 */
export async function startServerProcess(
  cwd: string,
  options: { launcher?: NodeScriptLauncher; socketDir: string },
): Promise<ServerProcess> {
  const entry = requirePyright.resolve('pyright/langserver.index.js');
  if (options.launcher) {
    await mkdir(options.socketDir, { recursive: true, mode: 0o700 });
    const socketPath = path.join(options.socketDir, `pyright-${randomBytes(6).toString('hex')}.sock`);
    const transport = await createClientPipeTransport(socketPath);
    const launched = options.launcher(entry, [`--pipe=${socketPath}`], { cwd });
    const stderrTail = keepTail(launched.stderr);
    const connected = await Promise.race([transport.onConnected(), launched.exited.then(() => null)]);
    transport.close();
    await rm(socketPath, { force: true }).catch(
      log.caught(
        "the server's socket file could not be removed; it lies in Kiln's private folder and names nothing",
        undefined,
      ),
    );
    if (!connected) throw new Error(`the server exited before connecting${stderrTail() ? ': ' + stderrTail() : ''}`);
    return {
      pid: launched.pid,
      kill: () => launched.kill(),
      connection: createProtocolConnection(connected[0], connected[1]),
      exited: launched.exited,
      stderrTail,
    };
  }
  if (process.versions.electron) {
    throw new Error('under Electron the host must pass a launcher (utilityProcess)');
  }
  const child = spawn(process.execPath, [entry, '--stdio'], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const stderrTail = keepTail(child.stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  // A dead pipe must not throw in main: the exit handler deals with the death.
  child.stdin?.on('error', () => undefined);
  child.stdout?.on('error', () => undefined);
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  return { pid: child.pid, kill: () => child.kill('SIGKILL'), connection, exited, stderrTail };
}
