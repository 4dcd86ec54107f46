import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsChange, SearchFileResult, SearchQuery } from '../../shared/contract';
import { unpackSearchFile } from '../../shared/search-results';
import { judgeWithNbformat } from '../../test-support/nbformat';
import { startServices, type RunningServices } from '../../test-support/services';
import { until } from '../../test-support/until';

let running: RunningServices | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

/** Runs a search through the contract to its end and returns its files, as the Search panel holds them. */
async function search(bridge: RunningServices['bridge'], query: SearchQuery): Promise<SearchFileResult[]> {
  const searchId = `s-${Math.random().toString(36).slice(2)}`;
  const files: SearchFileResult[] = [];
  let done = false;
  const offResults = bridge.on(
    'search.results',
    (batch) => batch.searchId === searchId && files.push(...batch.files.map(unpackSearchFile)),
  );
  const offDone = bridge.on('search.done', (d) => void (d.searchId === searchId && (done = true)));
  await bridge.request('search.start', { ...query, searchId });
  await until(() => done, 'the search to finish');
  offResults();
  offDone();
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

// A notebook as Jupyter writes it, with what must survive byte for byte: an output holding the pattern, a number
// literal Python writes as 1.0, an escaped non-ASCII character, and a string (not array) source.
const NOTEBOOK = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "a1",
   "metadata": {"scale": 1.0},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "greet from the output\\n"
     ]
    }
   ],
   "source": [
    "def greet(name):\\n",
    "    return 'caf\\u00e9 ' + name\\n",
    "\\n",
    "greet('x')"
   ]
  },
  {
   "cell_type": "markdown",
   "id": "b2",
   "metadata": {},
   "source": "Call greet twice: greet"
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`;

describe('Replace in Files', () => {
  it('replaces with regex groups in text files, through the workspace write (feed, history) and can be undone', async () => {
    running = await startServices({
      'src/a.py': 'x = greet_all(1)\ny = greet_one(2) + greet_all(3)\n',
      'src/b.txt': 'greet_two\r\nno match\r\n',
    });
    const { bridge, root } = running;
    const changes: FsChange[] = [];
    bridge.on('fs.change', (change) => changes.push(change));
    const query = { pattern: 'greet_(\\w+)', isRegex: true, matchCase: true };
    const files = await search(bridge, query);
    expect(files.map((f) => f.path)).toEqual(['src/a.py', 'src/b.txt']);

    const result = await bridge.request('search.replace', { query, replacement: 'hello($1)', files });
    expect(result.files).toEqual([
      { path: 'src/a.py', status: 'written', replaced: 3 },
      { path: 'src/b.txt', status: 'written', replaced: 1 },
    ]);
    expect(await readFile(path.join(root, 'src/a.py'), 'utf8')).toBe(
      'x = hello(all)(1)\ny = hello(one)(2) + hello(all)(3)\n',
    );
    // Line endings and the rest of the file stay as they were.
    expect(await readFile(path.join(root, 'src/b.txt'), 'utf8')).toBe('hello(two)\r\nno match\r\n');
    await until(
      () => changes.some((c) => c.type === 'updated' && c.path === 'src/a.py' && c.origin === 'operator'),
      'the feed to report the replace as the operator’s update',
    );
    const history = await bridge.request('history.list', { path: 'src/a.py' });
    const previous = await bridge.request('history.read', { path: 'src/a.py', id: history.entries[0].id });
    expect(previous.text).toBe('x = greet_all(1)\ny = greet_one(2) + greet_all(3)\n');

    const undone = await bridge.request('search.undoReplace', { replaceId: result.replaceId });
    expect(undone.files.map((f) => f.status)).toEqual(['written', 'written']);
    expect(await readFile(path.join(root, 'src/a.py'), 'utf8')).toBe(
      'x = greet_all(1)\ny = greet_one(2) + greet_all(3)\n',
    );
    expect(await readFile(path.join(root, 'src/b.txt'), 'utf8')).toBe('greet_two\r\nno match\r\n');
  });

  it('refuses a file whose matches moved since the search and leaves what is on disk', async () => {
    running = await startServices({ 'a.txt': 'one foo\ntwo foo\n', 'b.txt': 'foo\n' });
    const { bridge, root } = running;
    const query = { pattern: 'foo' };
    const files = await search(bridge, query);
    // Another program inserts a line: every match of a.txt is now on another line than the search saw.
    await writeFile(path.join(root, 'a.txt'), 'zero\none foo\ntwo foo\n');
    const result = await bridge.request('search.replace', { query, replacement: 'bar', files });
    const a = result.files.find((f) => f.path === 'a.txt')!;
    expect(a.status).toBe('refused');
    expect(a.message).toMatch(/a\.txt changed since the search/);
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('zero\none foo\ntwo foo\n');
    expect(result.files.find((f) => f.path === 'b.txt')).toMatchObject({ status: 'written', replaced: 1 });
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('bar\n');
  });

  it('replaces in notebook cell sources only, keeping every other byte, and nbformat accepts the file', async () => {
    running = await startServices({ 'nb.ipynb': NOTEBOOK });
    const { bridge, root } = running;
    const query = { pattern: 'greet', wholeWord: true, matchCase: true };
    const files = await search(bridge, query);
    expect(files[0].matches.map((m) => m.cell?.index)).toEqual([0, 0, 1, 1]);
    const result = await bridge.request('search.replace', { query, replacement: 'welcome', files });
    expect(result.files).toEqual([{ path: 'nb.ipynb', status: 'written', replaced: 4 }]);
    const file = path.join(root, 'nb.ipynb');
    const expected = NOTEBOOK.replace('"def greet(name)', '"def welcome(name)')
      .replace(`"greet('x')"`, `"welcome('x')"`)
      .replace('"Call greet twice: greet"', '"Call welcome twice: welcome"');
    expect(await readFile(file, 'utf8')).toBe(expected);
    const judged = judgeWithNbformat(file);
    expect(judged.valid).toBe(true);
    expect(judged.sources).toEqual([
      "def welcome(name):\n    return 'café ' + name\n\nwelcome('x')",
      'Call welcome twice: welcome',
    ]);
    expect(judged.outputs[0]).toEqual([{ name: 'stdout', output_type: 'stream', text: 'greet from the output\n' }]);
  });

  it('turns a line of a notebook source into several lines, laid out as the file lays out its sources', async () => {
    running = await startServices({ 'nb.ipynb': NOTEBOOK });
    const { bridge, root } = running;
    const query = { pattern: "greet\\('x'\\)", isRegex: true };
    const files = await search(bridge, query);
    await bridge.request('search.replace', { query, replacement: "greet('x')\\ngreet('y')", files });
    const file = path.join(root, 'nb.ipynb');
    expect(await readFile(file, 'utf8')).toBe(NOTEBOOK.replace(`"greet('x')"`, `"greet('x')\\n",\n    "greet('y')"`));
    expect(judgeWithNbformat(file).sources[0]).toBe(
      "def greet(name):\n    return 'café ' + name\n\ngreet('x')\ngreet('y')",
    );
  });

  it('an open notebook with unsaved changes takes the replacement in its model, unsaved; the file is not written', async () => {
    running = await startServices({ 'nb.ipynb': NOTEBOOK });
    const { bridge, root } = running;
    const changed: string[] = [];
    bridge.on('notebook.changed', (event) => changed.push(event.document.cells[1].source));
    await bridge.request('notebook.open', { path: 'nb.ipynb' });
    // The operator's unsaved edit is in another cell: the search (which reads the disk) still holds for cell 1.
    await bridge.request('notebook.editCell', { path: 'nb.ipynb', cellId: 'b2', source: 'Call greet twice: greet!' });
    const query = { pattern: 'greet', wholeWord: true, matchCase: true };
    const files = await search(bridge, query);
    const result = await bridge.request('search.replace', { query, replacement: 'welcome', files });
    expect(result.files).toEqual([{ path: 'nb.ipynb', status: 'model', replaced: 4 }]);
    expect(await readFile(path.join(root, 'nb.ipynb'), 'utf8')).toBe(NOTEBOOK);
    const document = await bridge.request('notebook.get', { path: 'nb.ipynb' });
    expect(document.dirty).toBe(true);
    expect(document.cells.map((c) => c.source)).toEqual([
      "def welcome(name):\n    return 'café ' + name\n\nwelcome('x')",
      'Call welcome twice: welcome!',
    ]);
    // The notebook's views are told (they reload the document).
    expect(changed).toEqual(['Call welcome twice: welcome!']);
  });
});
