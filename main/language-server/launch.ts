import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as lsp from 'vscode-languageserver-protocol/node';
import type { UriMapper } from './convert';
import { startServerProcess, type NodeScriptLauncher, type ServerProcess } from './server-process';
import { writeUntrustedProject } from './untrusted-project';
import { CLIENT_CAPABILITIES, pyrightSettings } from './pyright-settings';
import { createLogger } from '../log';

const log = createLogger('language-server');

/** A server process that answered `initialize`. */
export interface Running {
  process: ServerProcess;
  capabilities: lsp.ServerCapabilities;
  /** Set when Kiln itself stops it (idle, pref off, exit): the exit is no crash. */
  stopping: boolean;
}

/** What one launch needs of the supervisor: the workspace, its settings now, and where the server's news goes. */
export interface LaunchContext {
  root: string;
  dataDir: string;
  launcher?: NodeScriptLauncher;
  uris: UriMapper;
  /** The notebooks' interpreter (its site-packages), found before the launch; null when none. */
  interpreter: string | null;
  trusted(): boolean;
  diagnosticsScope(): 'openFiles' | 'workspace';
  onDiagnostics(rel: string, version: number | null, raw: lsp.Diagnostic[]): void;
  onExit(running: Running, exit: { code: number | null; signal: NodeJS.Signals | null }): void;
}

/**
 * One launch of pyright: the process, Kiln's own project folder when the workspace is untrusted, the requests and
 * notifications the client answers, and the `initialize` handshake. Fails with the status message to show.
 */
export async function launchServer(ctx: LaunchContext): Promise<{ running: Running } | { failed: string }> {
  const interpreter = ctx.interpreter;
  let proc: ServerProcess;
  try {
    proc = await startServerProcess(ctx.root, {
      launcher: ctx.launcher,
      socketDir: path.join(ctx.dataDir, 'language-server'),
    });
  } catch (err) {
    return { failed: `Python language server could not start: ${errorText(err)}` };
  }
  const running: Running = { process: proc, capabilities: {}, stopping: false };
  const { connection } = proc;
  const untrustedVenvs = path.join(ctx.dataDir, 'language-server', 'no-venvs');
  // Untrusted: pyright's workspace folder is Kiln's own project config, so the project's pyrightconfig.json or
  // [tool.pyright] (venvPath, venv, extraPaths...) is never read (see untrusted-project.ts).
  let projectRoot = ctx.root;
  if (!ctx.trusted()) {
    await mkdir(untrustedVenvs, { recursive: true }).catch(
      log.caught(
        'the empty venvPath could not be made; pyright finds no environment in a missing folder either',
        undefined,
        'warn',
      ),
    );
    try {
      projectRoot = await writeUntrustedProject({
        root: ctx.root,
        dir: path.join(ctx.dataDir, 'language-server'),
        extraPaths: srcPaths(ctx.root),
        venvPath: untrustedVenvs,
      });
    } catch (err) {
      proc.kill();
      return { failed: `Python language server could not start: ${errorText(err)}` };
    }
  }
  const projectUri = projectRoot === ctx.root ? ctx.uris.toUri('') : pathToFileURL(projectRoot).href;
  connection.onRequest(lsp.ConfigurationRequest.type, (params) =>
    params.items.map((item) =>
      pyrightSettings(item.section, {
        interpreter,
        restricted: !ctx.trusted(),
        untrustedVenvs,
        extraPaths: srcPaths(ctx.root),
        diagnosticsScope: ctx.diagnosticsScope(),
      }),
    ),
  );
  connection.onRequest(lsp.RegistrationRequest.type, () => undefined);
  connection.onRequest(lsp.UnregistrationRequest.type, () => undefined);
  connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => undefined);
  connection.onRequest(lsp.ShowMessageRequest.type, () => null);
  connection.onRequest(lsp.ApplyWorkspaceEditRequest.type, () => ({ applied: false }));
  connection.onNotification(lsp.PublishDiagnosticsNotification.type, (params) => {
    const rel = ctx.uris.toPath(params.uri);
    if (rel === null) return;
    ctx.onDiagnostics(rel, params.version ?? null, params.diagnostics);
  });
  connection.onNotification(lsp.LogMessageNotification.type, () => undefined);
  connection.onNotification(lsp.ShowMessageNotification.type, () => undefined);
  connection.onNotification('$/progress', () => undefined);
  connection.onError(() => undefined);
  connection.listen();
  void proc.exited.then((exit) => ctx.onExit(running, exit));
  try {
    const init = await connection.sendRequest(lsp.InitializeRequest.type, {
      processId: process.pid,
      rootUri: projectUri,
      workspaceFolders: [{ uri: projectUri, name: path.basename(ctx.root) }],
      capabilities: CLIENT_CAPABILITIES,
      initializationOptions: {},
    });
    running.capabilities = init.capabilities;
    connection.sendNotification(lsp.InitializedNotification.type, {});
    connection.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: {} });
  } catch (err) {
    if (!running.stopping) proc.kill();
    return { failed: `Python language server did not start: ${errorText(err)}` };
  }
  return { running };
}

/** The workspace's src/ when it exists: read by pyright for analysis (it runs nothing of it). */
export function srcPaths(root: string): string[] {
  return existsSync(path.join(root, 'src')) ? [path.join(root, 'src')] : [];
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
