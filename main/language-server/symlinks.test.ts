import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { DocumentDiagnostics } from '../../shared/contract';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { LanguageService } from './service';

/*
 * Kiln never follows symlinks, and a workspace holding a link to a huge folder (or a link loop) opens as fast as
 * an empty one. Pyright, enumerating the workspace, resolves each folder's realpath: it skips a folder it has
 * seen (a loop) and one whose real place lies outside the workspace (a link to a big folder elsewhere), so the
 * server neither walks nor indexes what a link points to. This holds it to that with real files and the real
 * server, in the whole-workspace diagnostics mode, which reports every file the server enumerated.
 */

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('does not enumerate a linked folder outside the workspace, nor a link loop', async () => {
  // A "huge" folder elsewhere: 2,000 modules, each with an error the server would report if it read them.
  const outside = await makeTempDir('kiln-lsp-outside-');
  cleanups.push(outside.cleanup);
  for (let d = 0; d < 20; d++) {
    await mkdir(path.join(outside.dir, `pkg${d}`));
    for (let f = 0; f < 100; f++) {
      await writeFile(path.join(outside.dir, `pkg${d}`, `m${f}.py`), `def far_${d}_${f}():\n    return not_here\n`);
    }
  }
  const { root, cleanup } = await makeTempTree({
    'a.py': 'print(undefined_in_a)\n',
    'pkg/b.py': 'def near():\n    return undefined_in_b\n',
  });
  cleanups.push(cleanup);
  await symlink(outside.dir, path.join(root, 'big'));
  await symlink('.', path.join(root, 'loop'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-lsp-links-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

  const published = new Map<string, DocumentDiagnostics>();
  const service = new LanguageService({
    root,
    dataDir,
    enabled: () => true,
    diagnosticsScope: () => 'workspace',
    trusted: () => true,
    interpreter: async () => null,
    readFile: async () => ({ text: '', hash: '' }),
    writeFile: async () => undefined,
  });
  service.onDidPublishDiagnostics((entry) => published.set(entry.path, entry));
  cleanups.push(async () => service.dispose());
  service.didOpen('a.py', 1, 'print(undefined_in_a)\n');

  // The workspace's own files are enumerated and checked: the unopened pkg/b.py too.
  await until(() => published.get('pkg/b.py')?.diagnostics.length, 'diagnostics of pkg/b.py', 150_000);
  expect(published.get('a.py')?.diagnostics.map((d) => d.message)).toEqual(['"undefined_in_a" is not defined']);
  expect((await service.workspaceSymbols('near')).map((s) => s.location.path)).toEqual(['pkg/b.py']);
  // Nothing behind either link: no file of the linked folder is reported or indexed, nor any file twice.
  expect([...published.keys()].filter((p) => p.startsWith('big/') || p.startsWith('loop/'))).toEqual([]);
  expect(await service.workspaceSymbols('far_19_99')).toEqual([]);
  // The server maps places outside the workspace to nothing, so ask pyright's own CLI, same enumerator, for the
  // count: the workspace's two files, not 2,002 (the linked folder's files are reached by realpath, if at all).
  const cli = createRequire(import.meta.url).resolve('pyright/index.js');
  const run = await promisify(execFile)(process.execPath, [cli, '--outputjson'], { cwd: root }).catch(
    (err: { stdout: string }) => err, // exit code 1: errors were found
  );
  expect(JSON.parse(run.stdout).summary.filesAnalyzed).toBe(2);
}, 240_000);
