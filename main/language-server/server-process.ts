import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';

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
  } catch {
    return '?';
  }
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly connection: ProtocolConnection;
  /** Settles when the process is gone, with why. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Last lines the server wrote to stderr, for the status when it dies. */
  stderrTail(): string;
}

/**
 * Starts pyright's language server as a child of main over stdio. Under Electron, `process.execPath` is the
 * Electron binary: ELECTRON_RUN_AS_NODE makes it plain Node, so no second runtime is needed.
 */
export function startServerProcess(cwd: string): ServerProcess {
  const entry = requirePyright.resolve('pyright/langserver.index.js');
  const child = spawn(process.execPath, [entry, '--stdio'], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    windowsHide: true,
  });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-2000);
  });
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
  return { child, connection, exited, stderrTail: () => tail.trim().split('\n').slice(-3).join('\n') };
}
