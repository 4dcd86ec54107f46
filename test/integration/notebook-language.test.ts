import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDiagnostics, LspDiagnostic } from '../../shared/contract';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

// The real pyright server through main's whole service graph: notebooks as virtual documents of their code cells.

const UTIL = 'def helper(x: int) -> int:\n    """Doubles x."""\n    return x * 2\n';

function notebookJson(sources: { type?: 'code' | 'markdown'; source: string }[]): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python' },
    },
    cells: sources.map((c, i) => ({
      id: `c${i + 1}`,
      cell_type: c.type ?? 'code',
      source: c.source,
      metadata: {},
      ...(c.type === 'markdown' ? {} : { outputs: [], execution_count: null }),
    })),
  });
}

const NB = notebookJson([
  { source: 'x = 1\nfrom util import helper' },
  { source: '%time x\n!ls' },
  { source: 'print(x)' },
  { type: 'markdown', source: '# Not code: print(nothing)' },
  { source: '%%bash\necho $HOME\nls -la | wc' },
  { source: 'print(y)\nx' },
  { source: 'import os\nos.path.jo' },
  { source: 'helper(x)' },
]);

let running: RunningServices;
const latest = new Map<string, DocumentDiagnostics>();

beforeAll(async () => {
  running = await startServices({ 'src/util.py': UTIL, 'work/nb.ipynb': NB });
  running.services.hub.onEvent((event) => {
    if (event.channel === 'language.diagnostics') latest.set(event.payload.path, event.payload);
  });
  await running.bridge.request('notebook.open', { path: 'work/nb.ipynb' });
}, 120_000);

afterAll(async () => {
  await running?.close();
});

/** The notebook's diagnostics once they satisfy `ready` (pyright answers after it analysed the text). */
function diagnostics(ready: (list: LspDiagnostic[]) => boolean, what: string): Promise<LspDiagnostic[]> {
  return until(
    () => {
      const list = latest.get('work/nb.ipynb')?.diagnostics;
      return list && ready(list) ? list : undefined;
    },
    what,
    90_000,
  );
}

describe('a notebook in the language server', () => {
  it('knows names of earlier cells, masks magics, and reports an undefined name on its cell and line', async () => {
    const list = await diagnostics((l) => l.some((d) => d.message.includes('"y"')), 'a diagnostic for y');
    // Nothing for x (cell 1), the magics, the %%bash cell or the value cell 6 shows; only y and the unfinished `os.path.jo`.
    expect(list).toEqual([
      expect.objectContaining({
        cell: 'c6',
        severity: 'error',
        range: { start: { line: 0, character: 6 }, end: { line: 0, character: 7 } },
        message: expect.stringContaining('"y" is not defined'),
      }),
      expect.objectContaining({ cell: 'c7', range: expect.objectContaining({ start: { line: 1, character: 8 } }) }),
    ]);
    // No file of the virtual document's name is announced or written.
    expect([...latest.keys()].filter((p) => p.includes('kiln-cells'))).toEqual([]);
    expect((await running.bridge.request('workspace.list', { path: 'work' })).names).toEqual(['nb.ipynb']);
  }, 120_000);

  it('updates at once when the agent edits a cell, and when the file changes on disk', async () => {
    // The agent's verb, as an agent calls it.
    await running.bridge.request('verbs.call', {
      verb: 'edit-notebook-cell',
      args: { notebook_name: 'work/nb.ipynb', cell_id: 'c1', source: 'x = 1\ny = 2\nfrom util import helper' },
    });
    const onlyJo = (l: LspDiagnostic[]) => l.length === 1 && l[0].cell === 'c7';
    await diagnostics(onlyJo, 'no diagnostic for y once it is defined');
    const all = await running.bridge.request('language.allDiagnostics', {});
    expect(onlyJo(all.find((d) => d.path === 'work/nb.ipynb')?.diagnostics ?? [])).toBe(true);

    await running.bridge.request('notebook.save', { path: 'work/nb.ipynb' });
    await writeFile(
      path.join(running.root, 'work/nb.ipynb'),
      notebookJson([{ source: 'x = 1' }, { source: 'print(x, zed)' }]),
    );
    const list = await diagnostics((l) => l.some((d) => d.message.includes('"zed"')), 'zed reported after the reload');
    expect(list[0]).toMatchObject({ cell: 'c2', range: { start: { line: 0, character: 9 } } });
    // Back to the notebook the other tests use.
    await writeFile(path.join(running.root, 'work/nb.ipynb'), NB);
    await diagnostics((l) => l.some((d) => d.message.includes('"y"')), 'the first notebook again');
  }, 120_000);

  it('completes, hovers and goes to definitions from a cell', async () => {
    const list = await running.bridge.request('language.completion', {
      path: 'work/nb.ipynb',
      cell: 'c7',
      position: { line: 1, character: 10 },
    });
    expect(list?.items.map((i) => i.label)).toContain('join');
    // Ranges come back in the cell's own lines.
    for (const item of list?.items ?? []) if (item.range) expect(item.range.start.line).toBe(1);

    const hover = await running.bridge.request('language.hover', {
      path: 'work/nb.ipynb',
      cell: 'c8',
      position: { line: 0, character: 2 },
    });
    expect(hover?.contents.value).toContain('helper');
    expect(hover?.range).toEqual({ start: { line: 0, character: 0 }, end: { line: 0, character: 6 } });

    // Into src/, and into the earlier cell that defines x.
    const intoSrc = await running.bridge.request('language.definition', {
      path: 'work/nb.ipynb',
      cell: 'c8',
      position: { line: 0, character: 2 },
    });
    expect(intoSrc).toEqual([
      { path: 'src/util.py', range: expect.objectContaining({ start: { line: 0, character: 4 } }) },
    ]);
    const intoCell = await running.bridge.request('language.definition', {
      path: 'work/nb.ipynb',
      cell: 'c8',
      position: { line: 0, character: 7 },
    });
    expect(intoCell).toEqual([
      {
        path: 'work/nb.ipynb',
        cell: 'c1',
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
      },
    ]);

    // References of helper from src/util.py reach the notebook's cells, named as cells.
    await running.bridge.request('language.didOpen', { path: 'src/util.py', version: 1, text: UTIL });
    const refs = await running.bridge.request('language.references', {
      path: 'src/util.py',
      position: { line: 0, character: 5 },
      includeDeclaration: true,
    });
    expect(refs.filter((r) => r.path === 'work/nb.ipynb').map((r) => r.cell)).toEqual(
      expect.arrayContaining(['c1', 'c8']),
    );
    expect(refs.some((r) => r.path.includes('kiln-cells'))).toBe(false);
  }, 120_000);

  it('drops the notebook from the server when it closes, and its diagnostics with it', async () => {
    await running.bridge.request('notebook.close', { path: 'work/nb.ipynb' });
    await diagnostics((l) => l.length === 0, 'diagnostics cleared on close');
    const all = await running.bridge.request('language.allDiagnostics', {});
    expect(all.filter((d) => d.path.startsWith('work/'))).toEqual([]);
  }, 60_000);
});
