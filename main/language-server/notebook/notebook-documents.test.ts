import * as fs from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotebookService } from '../../notebook';
import { makeWorkspace, announcingNotebooks } from '../../../test-support/event-hub';
import { NotebookLanguageDocuments, type VirtualDocumentSink } from './notebook-documents';

/** What the server was told, newest last: the text of each open document. */
class ServerDocuments implements VirtualDocumentSink {
  readonly texts = new Map<string, { version: number; text: string }>();
  readonly log: string[] = [];
  didOpen(path: string, version: number, text: string): boolean {
    this.log.push(`open ${version}`);
    this.texts.set(path, { version, text });
    return true;
  }
  didChange(path: string, version: number, changes: { text: string }[]): boolean {
    this.log.push(`change ${version}`);
    this.texts.set(path, { version, text: changes[0].text });
    return true;
  }
  didClose(path: string): boolean {
    this.log.push('close');
    return this.texts.delete(path);
  }
}

let root: string;
let notebooks: NotebookService;
let server: ServerDocuments;
let documents: NotebookLanguageDocuments;

beforeEach(async () => {
  const made = await makeWorkspace('kiln-nb-language-');
  root = made.root;
  notebooks = announcingNotebooks(made.hub, new NotebookService({ workspace: made.workspace, jupyter: null }));
  server = new ServerDocuments();
  documents = new NotebookLanguageDocuments({ notebooks, server });
});

afterEach(async () => {
  documents.dispose();
  await notebooks.dispose();
  await fs.rm(root, { recursive: true, force: true });
});

describe('NotebookLanguageDocuments', () => {
  it('mirrors an opened notebook and every edit, whoever makes it, at once', async () => {
    await notebooks.create('a.ipynb');
    const uri = documents.virtualPathOf('a.ipynb');
    expect(uri).toBe('a.ipynb.kiln-cells.py');
    expect(server.texts.get(uri)?.text).toBe('');
    const first = (await notebooks.get('a.ipynb')).cells[0].id;
    await notebooks.editCell('a.ipynb', first, 'x = 1');
    const { cell } = await notebooks.insertCell('a.ipynb', { source: 'print(x)' }, { origin: 'agent' });
    await notebooks.insertCell('a.ipynb', { source: '# Title', cellType: 'markdown' });
    expect(server.texts.get(uri)).toEqual({ version: 3, text: 'x = 1\n\nprint(x)' });
    expect(documents.toServer('a.ipynb', cell.id, { line: 0, character: 6 })).toEqual({
      path: uri,
      position: { line: 2, character: 6 },
    });
    // A save changes no text: the server hears nothing.
    await notebooks.save('a.ipynb');
    expect(server.log).toEqual(['open 1', 'change 2', 'change 3']);
  });

  it('follows a change on disk, a move and a close', async () => {
    await notebooks.create('b.ipynb');
    const doc = await notebooks.get('b.ipynb');
    const json = JSON.parse(await fs.readFile(`${root}/b.ipynb`, 'utf8')) as { cells: { source: string[] }[] };
    json.cells[0].source = ['y = 2\n', '%time y'];
    await fs.writeFile(`${root}/b.ipynb`, JSON.stringify(json));
    expect(await notebooks.reloadFromDisk('b.ipynb')).toBe('reloaded');
    expect(server.texts.get(documents.virtualPathOf('b.ipynb'))?.text).toBe('y = 2\npass   ');
    notebooks.applyChange({ type: 'moved', from: 'b.ipynb', to: 'c.ipynb', isDir: false, origin: 'operator' });
    expect(server.texts.has(documents.virtualPathOf('b.ipynb'))).toBe(false);
    expect(server.texts.get(documents.virtualPathOf('c.ipynb'))?.text).toBe('y = 2\npass   ');
    expect(documents.notebookOf(documents.virtualPathOf('c.ipynb'))).toBe('c.ipynb');
    await notebooks.close('c.ipynb');
    expect(server.texts.size).toBe(0);
    expect(doc.cells).toHaveLength(1);
  });

  it('maps diagnostics to their cells and drops what a notebook does on purpose', async () => {
    await notebooks.create('d.ipynb');
    const first = (await notebooks.get('d.ipynb')).cells[0].id;
    await notebooks.editCell('d.ipynb', first, 'x = 1\nx');
    const { cell } = await notebooks.insertCell('d.ipynb', { source: 'print(y)\nawait f()' });
    const uri = documents.virtualPathOf('d.ipynb');
    const at = (line: number, from: number, to: number) => ({
      start: { line, character: from },
      end: { line, character: to },
    });
    const mapped = documents.diagnosticsOf(
      uri,
      [
        { range: at(1, 0, 1), message: 'Expression value is unused', code: 'reportUnusedExpression' },
        { range: at(3, 6, 7), message: '"y" is not defined', code: 'reportUndefinedVariable' },
        { range: at(4, 0, 9), message: '"await" allowed only within async function' },
      ],
      3,
    );
    expect(mapped).toEqual({
      path: 'd.ipynb',
      diagnostics: [
        { range: at(0, 6, 7), message: '"y" is not defined', code: 'reportUndefinedVariable', cell: cell.id },
      ],
    });
    // Answers for an older text are not placed: the lines may have moved since.
    expect(documents.diagnosticsOf(uri, [], 2)).toBeNull();
    expect(documents.isVirtual(uri)).toBe(true);
    expect(documents.isVirtual(documents.virtualPathOf('d.ipynb').replace('.kiln-cells.py', ''))).toBe(false);
    expect(documents.placeOf(uri, at(3, 0, 5))).toEqual({ path: 'd.ipynb', cell: cell.id, range: at(0, 0, 5) });
  });

  it('leaves notebooks of other languages alone', async () => {
    await fs.writeFile(
      `${root}/r.ipynb`,
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: 'ir', display_name: 'R', language: 'R' } },
        cells: [{ id: 'c1', cell_type: 'code', source: 'x <- 1', metadata: {}, outputs: [], execution_count: null }],
      }),
    );
    await notebooks.open('r.ipynb');
    expect(server.log).toEqual([]);
  });
});
