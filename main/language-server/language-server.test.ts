import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, DocumentDiagnostics, FsChange, LanguageStatus } from '../../shared/contract';
import { MemoryStore } from '../prefs';
import { createServices, type Services } from '../services';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';

// The real pyright server, through the same services and contract handlers the hosts use.
const UTIL = 'def helper(x: int) -> int:\n    """Doubles x."""\n    return x * 2\n';
const MAIN = 'import os\nfrom util import helper\n\nprint(helper(2))\nprint(undefined_name)\nos.path.jo\n';

let services: Services;
let root: string;
const events: AnyEvent[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const tree = await makeTempTree({
    'src/util.py': UTIL,
    'main.py': MAIN,
    'other.py': 'from util import helper\n\nhelper(1)\n',
  });
  root = tree.root;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-lsp-data-'));
  cleanups.push(tree.cleanup, () => rm(dataDir, { recursive: true, force: true }));
  services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  cleanups.push(() => services.dispose());
  services.hub.onEvent((event) => events.push(event));
});

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const h = () => services.handlers;
const diagnosticsOf = (rel: string) =>
  events
    .filter((e): e is Extract<AnyEvent, { channel: 'language.diagnostics' }> => e.channel === 'language.diagnostics')
    .map((e) => e.payload as DocumentDiagnostics)
    .filter((d) => d.path === rel)
    .at(-1);
const status = () =>
  events
    .filter((e) => e.channel === 'language.statusChanged')
    .map((e) => e.payload as LanguageStatus)
    .at(-1);

describe('the Python language server', () => {
  it('starts when the first Python file opens and reports an undefined name', async () => {
    expect((await h()['language.status']({})).state).toBe('idle');
    expect(await h()['language.didOpen']({ path: 'main.py', version: 1, text: MAIN })).toEqual({ accepted: true });
    const diags = await until(
      () => diagnosticsOf('main.py')?.diagnostics.find((d) => d.message.includes('undefined_name')),
      'a diagnostic for undefined_name',
      60_000,
    );
    expect(diags).toMatchObject({ severity: 'error', range: { start: { line: 4, character: 6 } } });
    const ready = await h()['language.status']({});
    expect(ready).toMatchObject({ state: 'ready', restricted: true });
    // The untrusted workspace: the project's interpreter settings are ignored, and the status line says so.
    expect(ready.message).toContain('ignored');
    expect(ready.interpreter).toBeTruthy();
  }, 90_000);

  it('diagnoses as you type: a fixed name loses its error for the new version', async () => {
    await h()['language.didChange']({
      path: 'main.py',
      version: 2,
      changes: [{ range: { start: { line: 4, character: 6 }, end: { line: 4, character: 20 } }, text: 'os.sep' }],
    });
    await until(
      () => {
        const d = diagnosticsOf('main.py');
        return d?.version === 2 && !d.diagnostics.some((x) => x.message.includes('undefined_name'));
      },
      'diagnostics for version 2 without undefined_name',
      30_000,
    );
  }, 40_000);

  it('completes os.path.jo with join', async () => {
    const list = await h()['language.completion']({ path: 'main.py', position: { line: 5, character: 10 } });
    const join = list?.items.find((i) => i.label === 'join');
    expect(join).toMatchObject({ kind: 'function', insertText: 'join' });
    const resolved = await h()['language.resolveCompletion']({
      resultId: list!.resultId,
      resolveIndex: join!.resolveIndex!,
    });
    expect(resolved.documentation?.value ?? resolved.detail ?? '').not.toBe('');
  }, 30_000);

  it('goes to a definition in the standard library, served read-only and only where the server pointed', async () => {
    // `os` in `import os`: the interpreter's os.py (or typeshed's stub), outside the workspace.
    const places = await h()['language.definition']({
      path: 'main.py',
      position: { line: 0, character: 8 },
      kind: 'definition',
    });
    const place = places.find((p) => p.library);
    expect(place?.path).toMatch(/[/\\]os(\.pyi?|[/\\]__init__\.pyi)$/);
    expect(path.isAbsolute(place!.path)).toBe(true);
    const { text } = await h()['language.readLibraryFile']({ path: place!.path });
    expect(text).toBe(await readFile(place!.path, 'utf8'));
    // No general channel: a file the server did not name is refused, next door or not.
    await expect(
      h()['language.readLibraryFile']({ path: path.join(path.dirname(place!.path), 'shutil.py') }),
    ).rejects.toMatchObject({ code: 'E_OUTSIDE_WORKSPACE' });
    await expect(h()['language.readLibraryFile']({ path: '/etc/passwd' })).rejects.toMatchObject({
      code: 'E_OUTSIDE_WORKSPACE',
    });
  }, 30_000);

  it('hovers and goes to the definition in src/util.py', async () => {
    const hover = await h()['language.hover']({ path: 'main.py', position: { line: 3, character: 8 } });
    expect(hover?.contents.value).toContain('helper');
    // Inside `helper(2)`: its one parameter is the active one (pyright's answer-level index says 1).
    const help = await h()['language.signatureHelp']({ path: 'main.py', position: { line: 3, character: 13 } });
    expect(help).toMatchObject({ activeSignature: 0, activeParameter: 0 });
    const [signature] = help!.signatures;
    expect(signature.label.slice(...signature.parameters[0].label)).toBe('x: int');
    const places = await h()['language.definition']({
      path: 'main.py',
      position: { line: 3, character: 8 },
      kind: 'definition',
    });
    expect(places).toEqual([
      { path: 'src/util.py', range: { start: { line: 0, character: 4 }, end: { line: 0, character: 10 } } },
    ]);
    // Several views ask at once (breadcrumb, outline, Monaco): each gets the symbols, none an empty answer.
    const asked = await Promise.all([1, 2, 3].map(() => h()['language.documentSymbols']({ path: 'src/util.py' })));
    for (const symbols of asked) expect(symbols.map((s) => [s.name, s.kind])).toEqual([['helper', 'function']]);
    const found = await h()['language.workspaceSymbols']({ query: 'helper' });
    expect(found.some((s) => s.location.path === 'src/util.py')).toBe(true);
  }, 30_000);

  it('renames across files as a preview, then writes them through the workspace', async () => {
    const refs = await h()['language.references']({
      path: 'main.py',
      position: { line: 3, character: 8 },
      includeDeclaration: true,
    });
    expect(new Set(refs.map((r) => r.path))).toEqual(new Set(['main.py', 'src/util.py', 'other.py']));
    const preview = await h()['language.rename']({
      path: 'main.py',
      position: { line: 3, character: 8 },
      newName: 'twice',
    });
    expect(preview.files.map((f) => f.path)).toEqual(['main.py', 'other.py', 'src/util.py']);
    // Nothing was written by the preview.
    expect(await readFile(path.join(root, 'src/util.py'), 'utf8')).toBe(UTIL);
    const util = preview.files.find((f) => f.path === 'src/util.py')!;
    expect(util.newText).toBe(UTIL.replace('def helper', 'def twice'));
    const changes: FsChange[] = [];
    const off = services.changes.onDidChange((c) => changes.push(c));
    // main.py is open with unsaved edits (version 2): it goes back to the buffer; the others are written.
    const applied = await h()['language.applyEdits']({ previewId: preview.previewId });
    off.dispose();
    expect(applied.written.sort()).toEqual(['other.py', 'src/util.py']);
    expect(applied.toBuffers.map((f) => f.path)).toEqual(['main.py']);
    expect(await readFile(path.join(root, 'src/util.py'), 'utf8')).toBe(UTIL.replace('def helper', 'def twice'));
    expect(await readFile(path.join(root, 'other.py'), 'utf8')).toBe('from util import twice\n\ntwice(1)\n');
    expect(changes).toEqual(
      expect.arrayContaining([
        { type: 'updated', path: 'src/util.py', isDir: false, origin: 'operator' },
        { type: 'updated', path: 'other.py', isDir: false, origin: 'operator' },
      ]),
    );
    // A preview applies once.
    await expect(h()['language.applyEdits']({ previewId: preview.previewId })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
    });
  }, 30_000);

  it('restarts a crashed server, with the open documents, and says so', async () => {
    const before = events.length;
    const killed = await serverPid();
    process.kill(killed, 'SIGKILL');
    await until(
      () =>
        events
          .slice(before)
          .some((e) => e.channel === 'language.statusChanged' && (e.payload as LanguageStatus).state === 'restarting'),
      'the restarting status',
      20_000,
    );
    expect(status()?.message).toMatch(/crashed/);
    await until(() => status()?.state === 'ready', 'ready again', 60_000);
    // The restarted server has main.py back: completion works in it.
    const list = await h()['language.completion']({ path: 'main.py', position: { line: 5, character: 10 } });
    expect(list?.items.some((i) => i.label === 'join')).toBe(true);
    expect(await serverPid()).not.toBe(killed);
  }, 90_000);

  it('python.languageServer off stops it and its diagnostics; on starts it again for the open files', async () => {
    await h()['prefs.set']({ 'python.languageServer': 'off' });
    await until(() => status()?.state === 'off', 'the off status', 20_000);
    expect(await serverPids()).toEqual([]);
    expect(await h()['language.allDiagnostics']({})).toEqual([]);
    expect(await h()['language.completion']({ path: 'main.py', position: { line: 5, character: 10 } })).toBeNull();
    await h()['prefs.set']({ 'python.languageServer': 'on' });
    await until(() => status()?.state === 'ready', 'ready again', 60_000);
    expect(await serverPids()).toHaveLength(1);
  }, 90_000);
});

async function serverPids(): Promise<number[]> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes('pyright') && l.includes('langserver'))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** The pyright child of this process (its command line names pyright's langserver). */
async function serverPid(): Promise<number> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.includes('pyright') && l.includes('langserver'));
  if (!line) throw new Error('no pyright child');
  return Number(line.trim().split(/\s+/)[0]);
}
