import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import { JupyterServerManager } from '../kernel';
import type { EventHub } from '../events';
import type { Workspace } from '../workspace';
import { splitLines, validateNotebook } from './format';
import { NotebookService } from './service';
import { eventsOf, makeWorkspace, announcingNotebooks } from '../../test-support/event-hub';
import { judgeWithNbformat } from '../../test-support/nbformat';
import type { AnyEvent } from '../../shared/contract';

const CONFORMANCE = path.resolve(__dirname, 'conformance');
const VALID = [
  'many_tracebacks.ipynb',
  'test4.5.ipynb',
  'test4.ipynb',
  'test4custom.ipynb',
  'test4docinfo.ipynb',
  'test4jupyter_metadata.ipynb',
  'test4jupyter_metadata_timings.ipynb',
  'test4plus.ipynb',
  'v4_5_no_cell_id.ipynb',
];
const INVALID: Record<string, RegExp> = {
  'invalid.ipynb': /cells\[0\] is missing the required field "source"/,
  'invalid_cell_id.ipynb': /cells\[0\]\.id must match pattern/,
  'invalid_unique_cell_id.ipynb': /cell id "dup" is used by more than one cell/,
  'v4_5_invalid_metadata.ipynb': /metadata/,
  'test3.ipynb': /nbformat 3/,
};

let root: string;
let workspace: Workspace;
let hub: EventHub;
let events: AnyEvent[];
let svc: NotebookService;

beforeAll(async () => {
  ({ root, workspace, hub, events } = await makeWorkspace('kiln-nbformat-'));
  for (const name of [...VALID, ...Object.keys(INVALID)])
    await fs.copyFile(path.join(CONFORMANCE, name), path.join(root, name));
  svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter: null, autoStartKernel: false }));
});

afterAll(async () => {
  await svc.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('nbformat round trips', () => {
  it.each(VALID)('%s: untouched open + save leaves the bytes unchanged', async (name) => {
    const before = await fs.readFile(path.join(root, name));
    const doc = await svc.open(name);
    expect(doc.dirty).toBe(false);
    expect(doc.cells.length).toBeGreaterThan(0);
    expect(new Set(doc.cells.map((c) => c.id)).size).toBe(doc.cells.length);
    const saved = await svc.save(name);
    expect(saved.saved).toBe(false);
    expect(await fs.readFile(path.join(root, name))).toEqual(before);
    await svc.close(name);
  });

  it.each(VALID)('%s: edit + save writes a schema-valid notebook that keeps unknown metadata', async (name) => {
    const copy = `edited-${name}`;
    await fs.copyFile(path.join(root, name), path.join(root, copy));
    const original = JSON.parse(await fs.readFile(path.join(root, copy), 'utf8'));
    const doc = await svc.open(copy);
    const target = doc.cells.find((c) => ['code', 'markdown', 'raw'].includes(c.cell_type))!;
    await svc.editCell(copy, target.id, `${target.source}\n# edited ✓`);
    await svc.insertCell(copy, { cellType: 'markdown', source: 'new *cell*\nsecond line' });
    const result = await svc.save(copy);
    expect(result.saved).toBe(true);
    const text = await fs.readFile(path.join(root, copy), 'utf8');
    // Jupyter's formatting: one-space indent, sorted keys, raw non-ASCII, trailing newline.
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n "cells": [');
    expect(text).toContain('edited ✓');
    const written = JSON.parse(text);
    expect(Object.keys(written)).toEqual([...Object.keys(written)].sort());
    expect(validateNotebook(written, written.nbformat_minor)).toBeNull();
    expect(written.metadata).toEqual(original.metadata);
    if (original.nbformat_minor > 5) expect(written.extra).toBe(original.extra);
    expect(written.cells.at(-1).source).toEqual(['new *cell*\n', 'second line']);
    // The ids Kiln uses are the ones on disk now, so cells keep their identity across sessions.
    expect(written.cells.map((c: { id: string }) => c.id)).toEqual((await svc.get(copy)).cells.map((c) => c.id));
    if (original.nbformat_minor <= 5)
      expect(judgeWithNbformat(path.join(root, copy))).toMatchObject({ valid: true, minor: 5, sameBytes: true });
    await svc.close(copy);
  });

  it.each(Object.entries(INVALID))('%s is refused with the reason and never overwritten', async (name, reason) => {
    const before = await fs.readFile(path.join(root, name));
    const err = await svc.open(name).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KilnError);
    expect((err as KilnError).code).toBe('E_INVALID_NOTEBOOK');
    expect((err as KilnError).message).toMatch(reason);
    expect(svc.isOpen(name)).toBe(false);
    expect(await fs.readFile(path.join(root, name))).toEqual(before);
  });

  it('refuses broken JSON naming the line', async () => {
    await fs.writeFile(path.join(root, 'broken.ipynb'), '{\n "cells": [\n  {,\n');
    const err = (await svc.open('broken.ipynb').catch((e: unknown) => e)) as KilnError;
    expect(err.code).toBe('E_INVALID_NOTEBOOK');
    expect(err.message).toMatch(/not valid JSON \(line 3/);
  });

  it('refuses a notebook git left with conflict markers as a conflict, not as broken JSON, file untouched', async () => {
    const conflicted = [
      '{',
      ' "cells": [',
      '  {',
      '<<<<<<< HEAD',
      '   "source": ["x = 1"],',
      '=======',
      '   "source": ["x = 2"],',
      '>>>>>>> theirs',
      '  }',
      ' ]',
      '}',
      '',
    ].join('\n');
    await fs.writeFile(path.join(root, 'merge.ipynb'), conflicted);
    const err = (await svc.open('merge.ipynb').catch((e: unknown) => e)) as KilnError;
    expect(err.code).toBe('E_NOTEBOOK_CONFLICT');
    expect(err.details).toEqual({ path: 'merge.ipynb' });
    expect(svc.isOpen('merge.ipynb')).toBe(false);
    expect(await fs.readFile(path.join(root, 'merge.ipynb'), 'utf8')).toBe(conflicted);
  });

  it('refuses a notebook whose output nests 100,000 deep, saying so, and leaves the file as it was', async () => {
    await fs.writeFile(path.join(root, 'deep.ipynb'), deepOutputNotebook(100_000));
    const before = await fs.readFile(path.join(root, 'deep.ipynb'));
    const err = (await svc.open('deep.ipynb').catch((e: unknown) => e)) as KilnError;
    expect(err).toBeInstanceOf(KilnError);
    expect(err.code).toBe('E_INVALID_NOTEBOOK');
    expect(err.message).toMatch(/nests too deep: more than 1000 levels of JSON \(line 1, column \d+\)/);
    expect(svc.isOpen('deep.ipynb')).toBe(false);
    expect(await fs.readFile(path.join(root, 'deep.ipynb'))).toEqual(before);
    // Also through the full parser (NaN sends the document there).
    await fs.writeFile(
      path.join(root, 'deep-nan.ipynb'),
      deepOutputNotebook(100_000).replace('"x"]}', '"x"],"n":NaN}'),
    );
    const viaParser = (await svc.open('deep-nan.ipynb').catch((e: unknown) => e)) as KilnError;
    expect(viaParser.message).toMatch(/nests too deep/);
  });

  it('opens and saves a deep output Jupyter itself reads and writes (300 levels)', async () => {
    const file = path.join(root, 'deep-ok.ipynb');
    // Jupyter's own bytes for it: nbformat reads Kiln's test text and writes the file.
    await fs.writeFile(file, deepOutputNotebook(300));
    const jupyterBytes = judgeWithNbformat(file);
    expect(jupyterBytes.valid).toBe(true);
    const doc = await svc.open('deep-ok.ipynb');
    await svc.editCell('deep-ok.ipynb', doc.cells[0].id, 'y');
    expect((await svc.save('deep-ok.ipynb')).saved).toBe(true);
    expect(judgeWithNbformat(file)).toMatchObject({ valid: true, sameBytes: true, sources: ['y'] });
    await svc.close('deep-ok.ipynb');
  });

  it('splits a string source into lines like Python, as nbformat.writes does', async () => {
    expect(splitLines('a\nb\r\nc')).toEqual(['a\n', 'b\r\n', 'c']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('x\n')).toEqual(['x\n']);
    const nb = {
      cells: [
        { cell_type: 'code', execution_count: null, id: 'abc', metadata: {}, outputs: [], source: 'x = 1\ny = 2' },
        { cell_type: 'markdown', id: 'def', metadata: { trusted: true }, source: 'kept\nas lines' },
      ],
      metadata: { custom: { keep: true }, orig_nbformat: 3 },
      nbformat: 4,
      nbformat_minor: 5,
    };
    await fs.writeFile(path.join(root, 'strsrc.ipynb'), JSON.stringify(nb));
    await svc.open('strsrc.ipynb');
    await svc.editCell('strsrc.ipynb', 'abc', 'x = 3\ny = 4');
    await svc.save('strsrc.ipynb');
    const written = JSON.parse(await fs.readFile(path.join(root, 'strsrc.ipynb'), 'utf8'));
    expect(written.cells[0].source).toEqual(['x = 3\n', 'y = 4']);
    expect(written.cells[1].source).toEqual(['kept\n', 'as lines']);
    // Transient fields are not written (nbformat's strip_transient); the rest of the metadata is kept.
    expect(written.metadata).toEqual({ custom: { keep: true } });
    expect(written.cells[1].metadata).toEqual({});
    expect(judgeWithNbformat(path.join(root, 'strsrc.ipynb'))).toMatchObject({ valid: true, sameBytes: true });
    await svc.close('strsrc.ipynb');
  });
});

const conformance = (name: string): NotebookFile => JSON.parse(readFileSync(path.join(CONFORMANCE, name), 'utf8'));
const withMinor = (nb: NotebookFile, minor: number): NotebookFile => ({ ...nb, nbformat_minor: minor });

interface NotebookFile {
  cells: { id?: string; cell_type: string; [key: string]: unknown }[];
  nbformat_minor: number;
  [key: string]: unknown;
}

/** ipywidgets' saved state and a widget view output, as JupyterLab writes them into a 4.4 file. */
function widgetNotebook(): NotebookFile {
  const view = { model_id: '3f2a9c', version_major: 2, version_minor: 0 };
  return {
    cells: [
      {
        cell_type: 'code',
        execution_count: 1,
        metadata: { scrolled: true },
        outputs: [
          {
            output_type: 'display_data',
            data: { 'application/vnd.jupyter.widget-view+json': view, 'text/plain': 'IntSlider(value=3)' },
            metadata: {},
          },
        ],
        source: ['import ipywidgets as w\n', 'w.IntSlider(3)'],
      },
    ],
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      widgets: {
        'application/vnd.jupyter.widget-state+json': {
          state: { '3f2a9c': { model_name: 'IntSliderModel', state: { value: 3 } } },
          version_major: 2,
          version_minor: 0,
        },
      },
    },
    nbformat: 4,
    nbformat_minor: 4,
  };
}

const VARIANTS: Record<string, () => NotebookFile> = {
  '4.0 with images and HTML': () => conformance('test4.ipynb'),
  '4.1': () => withMinor(conformance('test4.ipynb'), 1),
  '4.2': () => conformance('test4custom.ipynb'),
  '4.3': () => withMinor(conformance('test4docinfo.ipynb'), 3),
  '4.4 without ids': () => conformance('many_tracebacks.ipynb'),
  '4.4 with ids (as several JupyterLab versions wrote them)': () => withMinor(conformance('test4.5.ipynb'), 4),
  '4.5 without ids': () => conformance('v4_5_no_cell_id.ipynb'),
  'empty (no cells)': () => ({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 4 }),
  'widget state and views': widgetNotebook,
};

describe('notebooks as Jupyter reads them', () => {
  it.each(Object.keys(VARIANTS))(
    '%s: opens as 4.5 with ids kept or added, and saves what nbformat.write would',
    async (variant) => {
      const file = `variant-${Object.keys(VARIANTS).indexOf(variant)}.ipynb`;
      const original = VARIANTS[variant]();
      await fs.writeFile(path.join(root, file), JSON.stringify(original, null, 2));
      const doc = await svc.open(file);
      if (original.nbformat_minor < 5)
        expect(doc.warnings.join(' ')).toMatch(
          new RegExp(`nbformat 4\\.${original.nbformat_minor}; Kiln opened it as 4\\.5`),
        );
      expect(doc.nbformat_minor).toBe(5);
      original.cells.forEach((cell, i) => {
        if (cell.id) expect(doc.cells[i].id).toBe(cell.id);
      });
      const target = doc.cells.find((c) => ['code', 'markdown', 'raw'].includes(c.cell_type));
      if (target) await svc.editCell(file, target.id, `${target.source}\n# edited`);
      else await svc.insertCell(file, { cellType: 'code', source: 'print("first")' });
      expect((await svc.save(file)).saved).toBe(true);
      const judged = judgeWithNbformat(path.join(root, file));
      expect(judged).toMatchObject({ valid: true, minor: 5, sameBytes: true });
      expect(judged.ids).toEqual((await svc.get(file)).cells.map((c) => c.id));
      await svc.close(file);
    },
  );
});

describe('the serializer', () => {
  it('editing one cell changes only that cell’s source lines', async () => {
    await fs.copyFile(path.join(CONFORMANCE, 'test4.5.ipynb'), path.join(root, 'serial.ipynb'));
    // The premise: the file is as nbformat writes it.
    expect(judgeWithNbformat(path.join(root, 'serial.ipynb')).sameBytes).toBe(true);
    const before = (await fs.readFile(path.join(root, 'serial.ipynb'), 'utf8')).split('\n');
    const doc = await svc.open('serial.ipynb');
    const target = doc.cells.find((c) => c.cell_type === 'code' && c.source.split('\n').length >= 3)!;
    await svc.editCell('serial.ipynb', target.id, target.source.replace('\n', '\n# inserted line\n'));
    await svc.save('serial.ipynb');
    const after = (await fs.readFile(path.join(root, 'serial.ipynb'), 'utf8')).split('\n');

    let start = 0;
    while (before[start] === after[start]) start++;
    let endBefore = before.length - 1;
    let endAfter = after.length - 1;
    while (before[endBefore] === after[endAfter]) {
      endBefore--;
      endAfter--;
    }
    const idLine = before.findIndex((line) => line.trim() === `"id": "${target.id}",`);
    const sourceOpen = before.findIndex((line, i) => i > idLine && line.trim() === '"source": [');
    const sourceClose = before.findIndex((line, i) => i > sourceOpen && /^\s*\]/.test(line));
    expect(idLine).toBeGreaterThan(0);
    expect(start).toBeGreaterThan(sourceOpen);
    expect(endBefore).toBeLessThan(sourceClose);
    expect(after.slice(start, endAfter + 1)).toContain('    "# inserted line\\n",');
    await svc.close('serial.ipynb');
  });
});

describe('document operations', () => {
  const nbPath = 'ops/doc.ipynb';
  beforeAll(async () => {
    await fs.mkdir(path.join(root, 'ops'));
    await svc.create(nbPath);
  });

  it('creates a valid empty notebook with one code cell', async () => {
    const doc = await svc.get(nbPath);
    expect(doc.cells).toHaveLength(1);
    expect(doc.cells[0].cell_type).toBe('code');
    expect(doc.dirty).toBe(false);
    expect(judgeWithNbformat(path.join(root, nbPath))).toMatchObject({ valid: true, minor: 5, sameBytes: true });
    await expect(svc.create(nbPath)).rejects.toMatchObject({ code: 'E_EXISTS' });
  });

  it('appends, inserts, edits, retypes, moves, deletes and restores cells by id', async () => {
    const first = (await svc.get(nbPath)).cells[0].id;
    const a = await svc.insertCell(nbPath, { source: 'a = 1' });
    expect(a.index).toBe(1);
    const b = await svc.insertCell(nbPath, { index: 0, cellType: 'markdown', source: '# Title' });
    expect(b.index).toBe(0);
    expect((await svc.get(nbPath)).cells.map((c) => c.id)).toEqual([b.cell.id, first, a.cell.id]);

    await svc.editCell(nbPath, a.cell.id, 'a = 2');
    await svc.setCellType(nbPath, first, 'raw');
    await svc.moveCell(nbPath, a.cell.id, 0);
    let doc = await svc.get(nbPath);
    expect(doc.cells.map((c) => [c.id, c.cell_type, c.source])).toEqual([
      [a.cell.id, 'code', 'a = 2'],
      [b.cell.id, 'markdown', '# Title'],
      [first, 'raw', ''],
    ]);
    expect(doc.dirty).toBe(true);

    const removed = await svc.deleteCell(nbPath, b.cell.id);
    expect(removed.index).toBe(1);
    expect((await svc.get(nbPath)).cells.map((c) => c.id)).toEqual([a.cell.id, first]);
    await svc.restoreCell(nbPath, removed.cell, removed.index);
    doc = await svc.get(nbPath);
    expect(doc.cells.map((c) => c.id)).toEqual([a.cell.id, b.cell.id, first]);

    await svc.setCellMetadata(nbPath, a.cell.id, { tags: ['parameters'] });
    await svc.save(nbPath);
    const written = JSON.parse(await fs.readFile(path.join(root, nbPath), 'utf8'));
    expect(written.cells.map((c: { id: string }) => c.id)).toEqual([a.cell.id, b.cell.id, first]);
    expect(written.cells[0].metadata.tags).toEqual(['parameters']);
    expect(written.cells[2]).not.toHaveProperty('outputs');
    expect(judgeWithNbformat(path.join(root, nbPath))).toMatchObject({ valid: true, minor: 5, sameBytes: true });
    expect((await svc.get(nbPath)).dirty).toBe(false);
  });

  it('names unknown cells and notebooks with E_NOT_FOUND', async () => {
    await expect(svc.editCell(nbPath, 'nope', 'x')).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
      message: expect.stringContaining('"nope"'),
    });
    await expect(svc.deleteCell(nbPath, 'nope')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(svc.runCell(nbPath, 'nope')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    await expect(svc.get('ops/other.ipynb')).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
      message: expect.stringContaining('ops/other.ipynb'),
    });
    await expect(svc.open('../outside.ipynb')).rejects.toMatchObject({ code: 'E_OUTSIDE_WORKSPACE' });
  });

  it('reloads a clean notebook changed on disk and flags a conflict when dirty', async () => {
    const doc = await svc.get(nbPath);
    const onDisk = JSON.parse(await fs.readFile(path.join(root, nbPath), 'utf8'));
    onDisk.cells[0].source = ['changed = True'];
    await fs.writeFile(path.join(root, nbPath), JSON.stringify(onDisk, null, 1) + '\n');
    expect(await svc.reloadFromDisk(nbPath)).toBe('reloaded');
    const changed = eventsOf(events, 'notebook.changed').at(-1)!;
    expect(changed.reason).toBe('reloaded');
    expect(changed.document.cells[0].source).toBe('changed = True');
    expect(changed.document.cells[0].id).toBe(doc.cells[0].id);

    await svc.editCell(nbPath, doc.cells[0].id, 'mine = 1');
    onDisk.cells[0].source = ['theirs = 1'];
    await fs.writeFile(path.join(root, nbPath), JSON.stringify(onDisk, null, 1) + '\n');
    expect(await svc.reloadFromDisk(nbPath)).toBe('conflict');
    expect(eventsOf(events, 'notebook.conflict').at(-1)!.message).toContain('unsaved changes');
    expect((await svc.get(nbPath)).cells[0].source).toBe('mine = 1');
    // Saving without force refuses to overwrite their version; force keeps mine.
    await expect(svc.save(nbPath)).rejects.toMatchObject({ code: 'E_CHANGED_ON_DISK' });
    await svc.save(nbPath, { force: true });
    expect(await fs.readFile(path.join(root, nbPath), 'utf8')).toContain('mine = 1');
    expect(await svc.reloadFromDisk(nbPath)).toBe('unchanged');

    // Reverting drops unsaved changes.
    await svc.editCell(nbPath, doc.cells[0].id, 'scratch');
    const reverted = await svc.revert(nbPath);
    expect(reverted.cells[0].source).toBe('mine = 1');
    expect(reverted.dirty).toBe(false);
  });

  describe('reloads that overlap (the watcher may report one outside write more than once)', () => {
    let races = 0;
    let racePath = '';
    let held: { answer: Promise<void>; read: () => void } | null = null;
    let local: NotebookService;
    let cellId: string;
    // Reads the disk at once. The answer waits while reads are held, then, like a disk that serves the
    // newest request first, for every read that started after it.
    const slowReads = () => {
      const answers: Promise<unknown>[] = [];
      return new Proxy(workspace, {
        get(target, prop) {
          if (prop === 'read')
            return (rel: string) => {
              const gate = held;
              const later = answers.length + 1;
              const answer = (async () => {
                const content = await target.read(rel);
                gate?.read();
                await gate?.answer;
                await Promise.allSettled(answers.slice(later));
                return content;
              })();
              answers.push(answer);
              return answer;
            };
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    };
    const writeOutside = async (source: string) => {
      const onDisk = JSON.parse(await fs.readFile(path.join(root, racePath), 'utf8'));
      onDisk.cells[0].source = [source];
      await fs.writeFile(path.join(root, racePath), JSON.stringify(onDisk, null, 1) + '\n');
    };
    /** Holds the next read's answer; resolves `read` once it has read the disk. */
    const holdNextRead = () => {
      let release!: () => void;
      let read!: () => void;
      const done = new Promise<void>((resolve) => (read = resolve));
      held = { answer: new Promise((resolve) => (release = resolve)), read };
      return { release, read: done };
    };

    beforeEach(async () => {
      held = null;
      local = announcingNotebooks(
        hub,
        new NotebookService({ workspace: slowReads(), jupyter: null, autoStartKernel: false }),
      );
      racePath = `ops/race-${++races}.ipynb`;
      cellId = (await local.create(racePath)).cells[0].id;
    });
    afterEach(() => local.dispose());

    it('ends on the newest version on disk, never an older read that finished last', async () => {
      await writeOutside('first = 1');
      const { release, read } = holdNextRead();
      const older = local.reloadFromDisk(racePath);
      await read;
      held = null;
      await writeOutside('second = 2');
      const newer = local.reloadFromDisk(racePath);
      release();
      expect([await older, await newer]).toEqual(['reloaded', 'reloaded']);
      expect((await local.get(racePath)).cells[0].source).toBe('second = 2');
      expect((await local.get(racePath)).dirty).toBe(false);
    });

    it('keeps typing that came during a reload and shows the conflict instead', async () => {
      await writeOutside('outside = 1');
      const { release, read } = holdNextRead();
      const reload = local.reloadFromDisk(racePath);
      await read;
      await local.editCell(racePath, cellId, 'typed = 1');
      release();
      expect(await reload).toBe('conflict');
      expect((await local.get(racePath)).cells[0].source).toBe('typed = 1');
      expect((await local.get(racePath)).dirty).toBe(true);
    });
  });

  it('keeps the notebook when the file on disk turns binary', async () => {
    const before = await svc.get(nbPath);
    const bytes = await fs.readFile(path.join(root, nbPath));
    await fs.writeFile(path.join(root, nbPath), Buffer.from([0, 1, 2, 3, 0, 255]));
    expect(await svc.reloadFromDisk(nbPath)).toBe('conflict');
    expect(eventsOf(events, 'notebook.conflict').at(-1)!.message).toContain('binary');
    expect((await svc.get(nbPath)).cells).toEqual(before.cells);
    await fs.writeFile(path.join(root, nbPath), bytes);
    expect(await svc.reloadFromDisk(nbPath)).toBe('unchanged');
  });

  it('announces agent edits with the whole document', async () => {
    const doc = await svc.get(nbPath);
    await svc.editCell(nbPath, doc.cells[0].id, 'by_agent = 1', { origin: 'agent' });
    const changed = eventsOf(events, 'notebook.changed').at(-1)!;
    expect(changed.reason).toBe('edited');
    expect(changed.document.cells[0].source).toBe('by_agent = 1');
  });
});

describe('without Jupyter', () => {
  it('opens and edits, and running says what to install, once', async () => {
    const jupyter = new JupyterServerManager({ rootDir: root, env: { PATH: '/nonexistent' } });
    const local = announcingNotebooks(hub, new NotebookService({ workspace, jupyter }));
    const before = eventsOf(events, 'notebook.jupyterError').length;
    const doc = await local.open('test4.5.ipynb');
    const code = doc.cells.find((c) => c.cell_type === 'code')!;
    await local.editCell('test4.5.ipynb', code.id, 'print(1)');
    const err = (await local.runCell('test4.5.ipynb', code.id).catch((e: unknown) => e)) as KilnError;
    expect(err.code).toBe('E_NO_JUPYTER');
    expect(err.message).toContain('apt-get install jupyter-server jupyter-core jupyter-client python3-ipykernel');
    await local.runCell('test4.5.ipynb', code.id).catch(() => undefined);
    const errors = eventsOf(events, 'notebook.jupyterError').slice(before);
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe('E_NO_JUPYTER');
    await local.dispose();
    await jupyter.dispose();
  });
});

/** A one-cell notebook whose output's application/json is an array nested `depth` deep. */
function deepOutputNotebook(depth: number): string {
  const deep = '['.repeat(depth) + ']'.repeat(depth);
  return (
    '{"cells":[{"cell_type":"code","execution_count":1,"id":"c1","metadata":{},"outputs":[{"data":' +
    `{"application/json":${deep},"text/plain":["x"]},"execution_count":1,"metadata":{},"output_type":"execute_result"}],` +
    '"source":["x"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}'
  );
}
