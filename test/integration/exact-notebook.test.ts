/**
 * Exact notebooks: Kiln changes no byte it was not asked to change. Notebooks are built by Python's nbformat with
 * numbers and text JavaScript's JSON rewrites (2.0, 1e+20, 30-digit ints, NaN, -0.0, U+2028, astral keys) in
 * notebook, cell and output metadata, application/json outputs and widget state; Kiln opens them through the
 * contract as the WebSocket host carries it (JSON text both ways), edits, saves, and the bytes must be what
 * nbformat.writes gives for the same edit.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KilnBridge, NotebookCell } from '../../shared/contract';
import { formatJsonExact } from '../../shared/python-json';
import { parseNotebook, serializeNotebook } from '../../main/notebook/format';
import { NotebookModel } from '../../main/notebook/model';
import { debianPython } from '../../test-support/nbformat';
import { startServices, type RunningServices } from '../../test-support/services';

const SCRIPT = path.join(__dirname, 'exact/notebooks.py');

/** The helper script, under Debian's Python (the one with nbformat). */
function nbformatPy(...args: string[]): string {
  return debianPython([SCRIPT, ...args], { maxBuffer: 64 * 1024 * 1024 });
}

/** The contract as the WebSocket host carries it: every request and answer goes through JSON text. */
function overJson(inner: KilnBridge): KilnBridge {
  const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  return {
    transport: inner.transport,
    request: async (channel, args) => copy(await inner.request(channel, copy(args))),
    on: (channel, listener) => inner.on(channel, (payload) => listener(copy(payload))),
  };
}

describe('a notebook with numbers and text JavaScript would rewrite', () => {
  let running: RunningServices;
  let bridge: KilnBridge;
  let file: string;

  beforeEach(async () => {
    running = await startServices({}, { prepare: async (root) => void nbformatPy('build', root) });
    bridge = overJson(running.bridge);
    file = path.join(running.root, 'exact.ipynb');
  });
  afterEach(async () => {
    await running.close();
  });

  const open = () => bridge.request('notebook.open', { path: 'exact.ipynb' });
  const save = () => bridge.request('notebook.save', { path: 'exact.ipynb', force: false });

  it('an edit of one cell saves exactly what nbformat.writes gives for the same edit', async () => {
    const doc = await open();
    await bridge.request('notebook.editCell', { path: 'exact.ipynb', cellId: doc.cells[1].id, source: 'y = 2.0' });
    expect((await save()).saved).toBe(true);
    const want = nbformatPy('edit', file, '1', 'y = 2.0');
    expect(await readFile(file, 'utf8')).toBe(want);
    expect(want).toContain('"large": 1e+20');
  });

  it('sends the renderer each number as the file has it, and an application/json output shows 1.0 as 1.0', async () => {
    const cell = (await open()).cells[0];
    const numbers = cell.exactNumbers ?? {};
    expect(numbers['/outputs/1/data/application~1json/x']).toBe('1.0');
    expect(numbers['/outputs/0/metadata/image~1png/width']).toBe('640.0');
    expect(numbers['/metadata/exact/big_int']).toBe('123456789012345678901234567890');
    // JSON carries NaN as null; the text says what it was.
    expect(numbers['/outputs/1/data/application~1json/y/3']).toBe('NaN');
    const json = cell.outputs[1].data as Record<string, unknown>;
    const shown = formatJsonExact(json['application/json'], numbers, '/outputs/1/data/application~1json');
    expect(shown).toContain('"x": 1.0');
    expect(shown).toContain('1e-05');
    expect(shown).toContain('1e+20');
    expect(shown).toContain('1267650600228229401496703205376');
    expect(shown).toContain('NaN');
    expect(shown).toContain('"z": 0.5');
  });

  it('metadata set through the contract keeps the numbers it left alone', async () => {
    const want = nbformatPy('tag', file, '0', 'kept');
    const cell = (await open()).cells[0];
    const metadata = { ...cell.metadata, tags: ['kept'] };
    await bridge.request('notebook.setCellMetadata', { path: 'exact.ipynb', cellId: cell.id, metadata });
    await save();
    expect(await readFile(file, 'utf8')).toBe(want);
  });

  it('a deleted cell put back through the contract (undo) saves as it was', async () => {
    const want = nbformatPy('edit', file, '2', 'z');
    const doc = await open();
    const deleted = await bridge.request('notebook.deleteCell', { path: 'exact.ipynb', cellId: doc.cells[0].id });
    const cell: NotebookCell = deleted.cell;
    await bridge.request('notebook.restoreCell', { path: 'exact.ipynb', cell, index: deleted.index });
    await bridge.request('notebook.editCell', { path: 'exact.ipynb', cellId: doc.cells[2].id, source: 'z' });
    await save();
    expect(await readFile(file, 'utf8')).toBe(want);
  });
});

describe('random JSON-compatible values generated in Python', () => {
  it('round-trip byte-exact through an edit of another cell, as Python checks', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'kiln-exact-corpus-'));
    try {
      nbformatPy('corpus', dir, '150', '24');
      const names = (await readdir(dir)).filter((name) => name.endsWith('.ipynb'));
      expect(names).toHaveLength(150);
      for (const name of names) {
        const parsed = parseNotebook(await readFile(path.join(dir, name), 'utf8'), name);
        const model = new NotebookModel(name, parsed.json, '', parsed.warnings);
        model.editSource(model.cells[0].id, 'edited = 1.0');
        await writeFile(path.join(dir, `${name}.kiln`), serializeNotebook(model.diskJson()));
      }
      const result = JSON.parse(nbformatPy('check', dir, '0', 'edited = 1.0')) as {
        checked: number;
        mismatched: string[];
      };
      expect(result).toEqual({ checked: 150, mismatched: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
