import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, DocumentDiagnostics } from '../../../shared/contract';
import { MemoryStore } from '../../prefs';
import { createServices, type Services } from '../../services';
import { makeTempTree } from '../../../test-support/temp-workspace';
import { until } from '../../../test-support/until';

// Renames, references and code actions from a notebook cell, through the real pyright server and the same
// handlers the hosts use: positions go to the virtual document and every answer comes back to its cell.
const UTIL = 'def helper(v):\n    return v\n';
const CELLS = ['from util import helper\nx = 1', '%time helper(x)\n!ls', 'y = helper(x) + x'];

function notebookJson(sources: string[]): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    cells: sources.map((source, i) => ({
      id: `c${i + 1}`,
      cell_type: 'code',
      metadata: {},
      execution_count: null,
      outputs: [],
      source,
    })),
  });
}

let services: Services;
let root: string;
const events: AnyEvent[] = [];
const cleanups: (() => Promise<void>)[] = [];
const h = () => services.handlers;

const notebookDiagnostics = () =>
  events
    .filter((e): e is Extract<AnyEvent, { channel: 'language.diagnostics' }> => e.channel === 'language.diagnostics')
    .map((e) => e.payload as DocumentDiagnostics)
    .filter((d) => d.path === 'analysis.ipynb')
    .at(-1);

beforeAll(async () => {
  const tree = await makeTempTree({
    'src/util.py': UTIL,
    'analysis.ipynb': notebookJson(CELLS),
    'other.py': 'from util import helper\n\nhelper(1)\n',
    // No Jupyter: nothing here runs a kernel.
    '.kiln/config.yaml': 'jupyter:\n  command: /nonexistent/jupyter\n',
  });
  root = tree.root;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-lsp-nb-data-'));
  cleanups.push(tree.cleanup, () => rm(dataDir, { recursive: true, force: true }));
  services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  cleanups.push(() => services.dispose());
  services.hub.onEvent((event) => events.push(event));
  await h()['notebook.open']({ path: 'analysis.ipynb' });
  // The server has read the notebook once it has diagnosed it.
  await until(() => notebookDiagnostics(), 'the notebook diagnosed', 80_000);
}, 90_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('edits from a notebook cell', () => {
  it('finds references in other cells and files, placed in their cells', async () => {
    // On `helper` of cell 3's `y = helper(x) + x`.
    const refs = await h()['language.references']({
      path: 'analysis.ipynb',
      cell: 'c3',
      position: { line: 0, character: 6 },
      includeDeclaration: true,
    });
    const here = refs.filter((r) => r.path === 'analysis.ipynb').map((r) => [r.cell, r.range.start]);
    expect(here).toEqual(
      expect.arrayContaining([
        ['c1', { line: 0, character: 17 }],
        ['c3', { line: 0, character: 4 }],
      ]),
    );
    expect(refs.some((r) => r.path === 'src/util.py' && r.cell === undefined)).toBe(true);
    expect(refs.some((r) => r.path === 'other.py')).toBe(true);
    expect(refs.some((r) => r.path.endsWith('.kiln-cells.py'))).toBe(false);
  }, 30_000);

  it('renames a name defined in a cell: a preview of its cells, applied by the notebook, nothing written', async () => {
    const prepared = await h()['language.prepareRename']({
      path: 'analysis.ipynb',
      cell: 'c3',
      position: { line: 0, character: 17 },
    });
    expect(prepared).toEqual({
      range: { start: { line: 0, character: 16 }, end: { line: 0, character: 17 } },
      placeholder: 'x',
    });
    const preview = await h()['language.rename']({
      path: 'analysis.ipynb',
      cell: 'c3',
      position: { line: 0, character: 17 },
      newName: 'count',
    });
    expect(preview.files.map((f) => f.path)).toEqual(['analysis.ipynb']);
    const [nb] = preview.files;
    expect(nb.baseHash).toBeNull();
    // `%time helper(x)` is masked for the server: its x is neither seen nor touched.
    expect(nb.cells).toEqual([
      { cell: 'c1', oldText: CELLS[0], newText: 'from util import helper\ncount = 1' },
      { cell: 'c3', oldText: CELLS[2], newText: 'y = helper(count) + count' },
    ]);
    expect(nb.edits.every((e) => e.cell === 'c1' || e.cell === 'c3')).toBe(true);
    const applied = await h()['language.applyEdits']({ previewId: preview.previewId });
    expect(applied).toEqual({ written: [], toBuffers: [nb] });
    const disk = JSON.parse(await readFile(path.join(root, 'analysis.ipynb'), 'utf8')) as {
      cells: { source: string }[];
    };
    expect(disk.cells[0].source).toBe(CELLS[0]);
  }, 30_000);

  it('renames a function from a cell across its file and every user, writing the files only', async () => {
    const preview = await h()['language.rename']({
      path: 'analysis.ipynb',
      cell: 'c3',
      position: { line: 0, character: 6 },
      newName: 'twice',
    });
    expect(preview.files.map((f) => f.path)).toEqual(['analysis.ipynb', 'other.py', 'src/util.py']);
    expect(preview.files[0].cells).toEqual([
      { cell: 'c1', oldText: CELLS[0], newText: 'from util import twice\nx = 1' },
      { cell: 'c3', oldText: CELLS[2], newText: 'y = twice(x) + x' },
    ]);
    const applied = await h()['language.applyEdits']({ previewId: preview.previewId });
    expect(applied.written.sort()).toEqual(['other.py', 'src/util.py']);
    expect(applied.toBuffers.map((f) => f.path)).toEqual(['analysis.ipynb']);
    expect(await readFile(path.join(root, 'src/util.py'), 'utf8')).toBe('def twice(v):\n    return v\n');
  }, 30_000);

  it('refuses a preview of a notebook that changed while it was computed', async () => {
    const asked = h()['language.rename']({
      path: 'analysis.ipynb',
      cell: 'c3',
      position: { line: 0, character: 0 },
      newName: 'z',
    });
    await h()['notebook.editCell']({ path: 'analysis.ipynb', cellId: 'c1', source: '\n' + CELLS[0] });
    await expect(asked).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
  }, 30_000);

  it('asks for code actions at a cell range in the virtual document', async () => {
    // Pyright's only quick fix is a command (create a type stub), which Kiln does not run: a cell gets the empty
    // list, as a file does, rather than an error.
    const actions = await h()['language.codeActions']({
      path: 'analysis.ipynb',
      cell: 'c3',
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
      only: 'all',
    });
    expect(actions).toEqual([]);
  }, 30_000);
});
