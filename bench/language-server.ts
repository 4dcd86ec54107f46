/**
 * The Python language server, in a generated 2,000-file workspace:
 * - ready: opening the first file until its diagnostics arrive over the WebSocket (the server starts lazily);
 * - completion p50/p95 at `os.path.` in a 5,000-line file through Kiln (renderer's request over the WebSocket ->
 *   router -> LanguageService -> pyright) against a second pyright answering the same request directly over
 *   stdio, samples interleaved (target ≤ 1.3x at p50);
 * - diagnostics latency after a keystroke (a didChange that breaks a name until the error is published), against
 *   the same edit sent to the direct server;
 * - host RSS: this process (which is the host here) with the server running, above the same host idle; Kiln's own
 *   share must stay under 50 MB. pyright's own RSS is reported beside it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as lsp from 'vscode-languageserver-protocol/node';
import type { DocumentDiagnostics } from '../shared/contract';
import { findNotebookInterpreter } from '../main/language-server';
import { MemoryStore } from '../main/prefs';
import { createServices } from '../main/services';
import { connectContract } from './contract-client';
import { interleaved, median, report, reportValue, runWhenMain } from './support';

const FILES = 2000;
const BIG_LINES = 5000;
const SAMPLES = 60;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function generateWorkspace(root: string): Promise<string> {
  // 40 packages of 50 modules under src/, each importing its neighbour: a project with real cross-file types.
  for (let p = 0; p < FILES / 50; p++) {
    const dir = path.join(root, 'src', `pkg${p}`);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, '__init__.py'), '');
    for (let m = 0; m < 50 - 1; m++) {
      const next = m + 1 < 49 ? `from pkg${p}.mod${m + 1} import Thing${m + 1}\n` : '';
      await fs.writeFile(
        path.join(dir, `mod${m}.py`),
        `${next}import os\n\n\nclass Thing${m}:\n    def __init__(self, value: int) -> None:\n        self.value = value\n\n    def scaled(self, factor: float) -> float:\n        return self.value * factor\n\n\ndef make_${m}(path: str) -> Thing${m}:\n    return Thing${m}(len(os.path.basename(path)))\n`,
      );
    }
  }
  // The 5,000-line file the completions run in.
  const lines = ['import os', 'from pkg0.mod0 import Thing0, make_0', ''];
  for (let i = 0; lines.length < BIG_LINES - 2; i++) {
    lines.push(`def step_${i}(x: int) -> int:`, `    thing = make_0("f${i}")`, `    return x + thing.value + ${i}`, '');
  }
  lines.push('value = step_1(2)', 'os.path.');
  const big = lines.join('\n');
  await fs.writeFile(path.join(root, 'big.py'), big);
  return big;
}

/** pyright's server as a client would run it without Kiln, over stdio, with the same settings. */
async function startDirect(root: string, interpreter: string | null) {
  const require = createRequire(import.meta.url);
  const child = spawn(process.execPath, [require.resolve('pyright/langserver.index.js'), '--stdio'], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const connection = lsp.createProtocolConnection(
    new lsp.StreamMessageReader(child.stdout),
    new lsp.StreamMessageWriter(child.stdin),
  );
  const settings = {
    ...(interpreter ? { pythonPath: interpreter } : {}),
    analysis: { extraPaths: [path.join(root, 'src')], diagnosticMode: 'openFilesOnly', autoSearchPaths: true },
  };
  connection.onRequest(lsp.ConfigurationRequest.type, (params) =>
    params.items.map((item) =>
      item.section === 'python' ? settings : item.section === 'python.analysis' ? settings.analysis : {},
    ),
  );
  connection.onRequest(lsp.RegistrationRequest.type, () => undefined);
  connection.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => undefined);
  const diagnostics = new Set<(p: lsp.PublishDiagnosticsParams) => void>();
  connection.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => diagnostics.forEach((l) => l(p)));
  connection.listen();
  const uri = pathToFileURL(root).href;
  await connection.sendRequest(lsp.InitializeRequest.type, {
    processId: process.pid,
    rootUri: uri,
    workspaceFolders: [{ uri, name: 'bench' }],
    capabilities: {
      workspace: { configuration: true },
      textDocument: {
        publishDiagnostics: { versionSupport: true },
        completion: { completionItem: { snippetSupport: true } },
      },
    },
  });
  connection.sendNotification(lsp.InitializedNotification.type, {});
  connection.sendNotification(lsp.DidChangeConfigurationNotification.type, { settings: {} });
  const nextDiagnostics = (match: (p: lsp.PublishDiagnosticsParams) => boolean) =>
    new Promise<lsp.PublishDiagnosticsParams>((resolve) => {
      const listener = (p: lsp.PublishDiagnosticsParams) => {
        if (!match(p)) return;
        diagnostics.delete(listener);
        resolve(p);
      };
      diagnostics.add(listener);
    });
  return { child, connection, nextDiagnostics };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function runLanguageServerBench(): Promise<void> {
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-bench-lsp-'));
  const root = path.join(scratch, 'workspace');
  await fs.mkdir(root, { recursive: true });
  const big = await generateWorkspace(root);
  const bigLines = big.split('\n');
  const completionAt = { line: bigLines.length - 1, character: 'os.path.'.length };
  const services = await createServices({ root, dataDir: path.join(scratch, 'data'), prefsStore: new MemoryStore() });
  const client = await connectContract(services, scratch);
  const interpreter = await findNotebookInterpreter();
  let direct: Awaited<ReturnType<typeof startDirect>> | null = null;
  try {
    await services.watching();
    // A first direct start, not timed, so neither timed start pays for reading typeshed and the workspace cold.
    const warm = await startDirect(root, interpreter);
    const warmUri = pathToFileURL(path.join(root, 'big.py')).href;
    const warmed = warm.nextDiagnostics((p) => p.uri === warmUri);
    warm.connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: warmUri, languageId: 'python', version: 1, text: big },
    });
    await warmed;
    warm.connection.dispose();
    warm.child.kill();
    global.gc?.();
    const idleRss = process.memoryUsage().rss / 1024 / 1024;

    // Ready: the first Python file opens; the server starts and its diagnostics arrive.
    const readyStart = performance.now();
    const firstDiagnostics = client.next('language.diagnostics', (d) => d.path === 'big.py');
    await client.request('language.didOpen', { path: 'big.py', version: 1, text: big });
    await firstDiagnostics;
    const readyMs = performance.now() - readyStart;
    // Kiln's own share, before a second (direct) client shares this process: the server running, a few answers given.
    for (let i = 0; i < 5; i++) {
      await client.request('language.completion', { path: 'big.py', position: completionAt, triggerCharacter: '.' });
    }
    global.gc?.();
    const runningRss = process.memoryUsage().rss / 1024 / 1024;

    // The same for pyright started directly (after Kiln's, so the two never compete for the cores).
    const directStart = performance.now();
    direct = await startDirect(root, interpreter);
    const directUri = pathToFileURL(path.join(root, 'big.py')).href;
    const directFirst = direct.nextDiagnostics((p) => p.uri === directUri);
    direct.connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri: directUri, languageId: 'python', version: 1, text: big },
    });
    await directFirst;
    report(
      {
        name: 'python server ready after opening the first file, 2,000-file workspace (Kiln vs pyright over stdio)',
        kiln: readyMs,
        baseline: performance.now() - directStart,
        unit: 'ms',
      },
      { ratio: 1.3 },
    );
    const { connection } = direct;

    const kilnOnce = async () => {
      const start = performance.now();
      const list = await client.request('language.completion', {
        path: 'big.py',
        position: completionAt,
        triggerCharacter: '.',
      });
      if (!list?.items.some((i) => i.label === 'join')) throw new Error("Kiln's completion missed join");
      return performance.now() - start;
    };
    const directOnce = async () => {
      const start = performance.now();
      const result = await connection.sendRequest(lsp.CompletionRequest.type, {
        textDocument: { uri: directUri },
        position: completionAt,
        context: { triggerKind: lsp.CompletionTriggerKind.TriggerCharacter, triggerCharacter: '.' },
      });
      const items = Array.isArray(result) ? result : (result?.items ?? []);
      if (!items.some((i) => i.label === 'join')) throw new Error('the direct completion missed join');
      return performance.now() - start;
    };
    const { kiln: kilnTimes, baseline: directTimes } = await interleaved(kilnOnce, directOnce, SAMPLES);
    report(
      {
        name: 'python completion p50, 5,000-line file (Kiln vs pyright over stdio)',
        kiln: median(kilnTimes),
        baseline: median(directTimes),
        unit: 'ms',
      },
      { ratio: 1.3, orOverBaseline: 2 },
    );
    report(
      {
        name: 'python completion p95, 5,000-line file (Kiln vs pyright over stdio)',
        kiln: percentile(kilnTimes, 95),
        baseline: percentile(directTimes, 95),
        unit: 'ms',
      },
      null,
    );

    // Diagnostics after a keystroke: one character turns a name into an undefined one and back, in a module of
    // the project (the common case) and in the 5,000-line file.
    const small = await fs.readFile(path.join(root, 'src/pkg0/mod48.py'), 'utf8');
    const smallLine = small.split('\n').findIndex((l) => l.includes('return Thing48('));
    for (const doc of [
      { rel: 'src/pkg0/mod48.py', text: small, line: smallLine, character: 11, label: 'a 16-line module' },
      { rel: 'big.py', text: big, line: bigLines.length - 2, character: 8, label: 'the 5,000-line file' },
    ]) {
      const uri = pathToFileURL(path.join(root, doc.rel)).href;
      let kilnVersion = 1;
      let directVersion = 1;
      if (doc.rel !== 'big.py') {
        const opened = client.next('language.diagnostics', (d) => d.path === doc.rel);
        await client.request('language.didOpen', { path: doc.rel, version: 1, text: doc.text });
        const directOpened = direct.nextDiagnostics((p) => p.uri === uri);
        connection.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
          textDocument: { uri, languageId: 'python', version: 1, text: doc.text },
        });
        await Promise.all([opened, directOpened]);
      }
      const edit = (text: string) => ({
        range: {
          start: { line: doc.line, character: doc.character },
          end: { line: doc.line, character: doc.character + 1 },
        },
        text,
      });
      const original = doc.text.split('\n')[doc.line][doc.character];
      const kilnKeystroke = async (text: string) => {
        const version = ++kilnVersion;
        const start = performance.now();
        const published = client.next(
          'language.diagnostics',
          (d: DocumentDiagnostics) => d.path === doc.rel && d.version === version,
        );
        await client.request('language.didChange', { path: doc.rel, version, changes: [edit(text)] });
        await published;
        return performance.now() - start;
      };
      const directKeystroke = async (text: string) => {
        const version = ++directVersion;
        const start = performance.now();
        const published = direct!.nextDiagnostics((p) => p.uri === uri && p.version === version);
        connection.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
          textDocument: { uri, version },
          contentChanges: [edit(text)],
        });
        await published;
        return performance.now() - start;
      };
      const kilnDiag: number[] = [];
      const directDiag: number[] = [];
      const rounds = doc.rel === 'big.py' ? 10 : 30;
      for (let i = 0; i < rounds; i++) {
        const text = i % 2 === 0 ? 'Q' : original;
        kilnDiag.push(await kilnKeystroke(text));
        directDiag.push(await directKeystroke(text));
      }
      report(
        {
          name: `python diagnostics after a keystroke p50, ${doc.label} (Kiln vs pyright over stdio)`,
          kiln: median(kilnDiag),
          baseline: median(directDiag),
          unit: 'ms',
        },
        doc.rel === 'big.py' ? null : { ratio: 1.3, orOverBaseline: 5 },
      );
    }

    const serverPid = (await fs.readdir('/proc'))
      .filter((p) => /^\d+$/.test(p))
      .map(Number)
      .find((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          return (
            Number(stat.split(') ')[1].split(' ')[1]) === process.pid &&
            cmd.includes('langserver') &&
            pid !== direct!.child.pid
          );
        } catch {
          return false;
        }
      });
    reportValue('host RSS idle (workspace open, no Python file yet)', idleRss, 'MB', null);
    reportValue('host RSS with the language server running', runningRss, 'MB', null);
    reportValue(
      'host RSS with the language server running, above idle (Kiln’s own share)',
      runningRss - idleRss,
      'MB',
      { max: 50, below: true },
    );
    if (serverPid) reportValue('pyright server RSS (its own process)', rssMb(serverPid), 'MB', null);
  } finally {
    direct?.child.kill();
    await client.close();
    await services.dispose();
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, runLanguageServerBench);
