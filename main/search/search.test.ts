import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventPayload, SearchFileResult, SearchQuery } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { unpackSearchFile } from '../../shared/search-results';
import { findExecutable } from '../process';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { SearchService } from './service';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({
    'src/app.py': 'def greet(name):\n    return f"hello {name}"\n',
    'src/util.py': 'HELLO = "Hello"\nhelloWorld = 1\n',
    'docs/notes.md': '# Notes\nsay hello to the team\n',
    'docs/café.md': 'naïve café: hello ünïcode\n',
    'node_modules/lib/index.js': 'hello from a dependency\n',
    '.git/config': 'hello in git\n',
    '.env': 'GREETING=hello\n',
  }));
  await writeFile(path.join(root, 'image.bin'), Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0, 1, 2]));
});
afterEach(() => cleanup());

type Done = EventPayload<'search.done'>;

/** Runs one search to its end through the service, as the renderer sees it (events). */
function search(
  service: SearchService,
  events: { results: SearchFileResult[]; done: Done[] },
  query: SearchQuery,
  id = 's1',
  max = 20_000,
) {
  const finished = new Promise<Done>((resolve) => {
    const poll = setInterval(() => {
      const done = events.done.find((d) => d.searchId === id);
      if (done) {
        clearInterval(poll);
        resolve(done);
      }
    }, 5);
  });
  service.start(id, query, max);
  return finished;
}

const engines = [
  ['ripgrep', await findExecutable('rg', process.env.PATH)],
  ['node', null],
] as const;

describe.each(engines)('with the %s engine', (name, rgPath) => {
  let service: SearchService;
  let events: { results: SearchFileResult[]; done: Done[]; batches: string[] };
  beforeEach(() => {
    events = { results: [], done: [], batches: [] };
    service = new SearchService({ root, ripgrepPath: rgPath });
    service.onDidFind((p) => {
      events.batches.push(p.searchId);
      events.results.push(...p.files.map(unpackSearchFile));
    });
    service.onDidFinish((done) => events.done.push(done));
  });
  afterEach(() => service.dispose());
  const byPath = () => Object.fromEntries(events.results.map((f) => [f.path, f.matches]));

  it.skipIf(name === 'ripgrep' && !rgPath)(
    'finds a string in every text file, case-insensitively, skipping binaries and what is never searched',
    async () => {
      expect(await service.engine()).toBe(name);
      const done = await search(service, events, { pattern: 'hello' });
      expect(done).toMatchObject({ cancelled: false, limitHit: false, files: 5 });
      expect(Object.keys(byPath()).sort()).toEqual([
        '.env',
        'docs/café.md',
        'docs/notes.md',
        'src/app.py',
        'src/util.py',
      ]);
      expect(byPath()['src/util.py'].map((m) => [m.line, m.start, m.end])).toEqual([
        [1, 0, 5],
        [1, 9, 14],
        [2, 0, 5],
      ]);
      // Offsets count UTF-16 units, as the editor does, whatever bytes precede the match.
      const cafe = byPath()['docs/café.md'][0];
      expect(cafe.preview.slice(cafe.start, cafe.end)).toBe('hello');
    },
  );

  it.skipIf(name === 'ripgrep' && !rgPath)(
    'a long line is previewed around each of its matches, with where the preview starts in the line',
    async () => {
      const line = `${'x'.repeat(1500)}longword${'y'.repeat(500)}longword`;
      await writeFile(path.join(root, 'wide.txt'), `${line}\nshort longword\n`);
      await search(service, events, { pattern: 'longword' }, 'long');
      const matches = byPath()['wide.txt'];
      expect(matches.map((m) => [m.line, m.start, m.end])).toEqual([
        [1, 1500, 1508],
        [1, 2008, 2016],
        [2, 6, 14],
      ]);
      for (const m of matches) {
        expect(m.preview.slice(m.start - m.previewStart, m.end - m.previewStart)).toBe('longword');
      }
      expect(matches[0].previewStart).toBe(1460);
      expect(matches[0].preview).toHaveLength(240);
      expect(matches[1].previewStart).toBe(line.length - 240);
      expect(matches[2]).toMatchObject({ preview: 'short longword', previewStart: 0 });
    },
  );

  it.skipIf(name === 'ripgrep' && !rgPath)(
    'honours Match Case, Whole Word, regular expressions and the include/exclude globs',
    async () => {
      await search(service, events, { pattern: 'Hello', matchCase: true }, 'case');
      expect(events.results.map((f) => f.path)).toEqual(['src/util.py']);
      expect(byPath()['src/util.py']).toHaveLength(1);
      events.results = [];
      await search(service, events, { pattern: 'hello', wholeWord: true, include: 'src/**' }, 'word');
      expect(byPath()['src/util.py']?.map((m) => m.line)).toEqual([1, 1]);
      expect(Object.keys(byPath()).sort()).toEqual(['src/app.py', 'src/util.py']);
      events.results = [];
      await search(service, events, { pattern: 'gr(ee|ea)t', isRegex: true, exclude: '*.py' }, 'regex');
      expect(Object.keys(byPath())).toEqual(['.env']);
    },
  );

  it.skipIf(name === 'ripgrep' && !rgPath)(
    'with the hold seam, reports that many files and waits until cancelled; the next search is not held',
    async () => {
      const held = new SearchService({ root, ripgrepPath: rgPath, holdSearchesAfter: 2 });
      held.onDidFind((p) => events.results.push(...p.files.map(unpackSearchFile)));
      held.onDidFinish((done) => events.done.push(done));
      try {
        await held.start('held', { pattern: 'hello' }, 20_000);
        await until(() => events.results.length === 2, 'two files reported');
        expect(events.done).toEqual([]);
        expect(held.cancel('held')).toBe(true);
        await until(() => events.done.length === 1, 'the cancelled search done');
        expect(events.done[0]).toMatchObject({ searchId: 'held', cancelled: true, files: 2 });
        events.results = [];
        expect(await search(held, events, { pattern: 'hello' }, 'free')).toMatchObject({ cancelled: false, files: 5 });
      } finally {
        held.dispose();
      }
    },
  );

  it.skipIf(name === 'ripgrep' && !rgPath)(
    'stops at the match limit and says so; a bad regex is a clear error',
    async () => {
      const done = await search(service, events, { pattern: 'hello' }, 'limited', 2);
      expect(done.limitHit).toBe(true);
      expect(events.results.flatMap((f) => f.matches)).toHaveLength(2);
      await expect(service.start('bad', { pattern: '(unclosed', isRegex: true }, 10)).rejects.toThrow(KilnError);
    },
  );

  it.skipIf(name === 'ripgrep' && !rgPath)(
    'reads a notebook as its cells: sources as text (not escaped JSON), each hit with its cell and its line there',
    async () => {
      const notebook = {
        cells: [
          { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Say "hello"\n', 'to\tthe team'] },
          {
            cell_type: 'code',
            id: 'code-1',
            metadata: {},
            execution_count: 1,
            source: ['x = 1\n', 'print("say \\"hello\\"")'],
            outputs: [{ output_type: 'stream', name: 'stdout', text: ['say "hello" in an output\n'] }],
          },
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      };
      await writeFile(path.join(root, 'docs/talk.ipynb'), JSON.stringify(notebook, null, 1));
      await search(service, events, { pattern: 'say "hello"', include: '*.ipynb' }, 'nb');
      expect(Object.keys(byPath())).toEqual(['docs/talk.ipynb']);
      expect(byPath()['docs/talk.ipynb'].map((m) => [m.cell, m.line, m.start, m.end])).toEqual([
        [{ index: 0, id: 'intro' }, 1, 2, 13],
      ]);
      events.results = [];
      // Across an escaped quote and a tab: what the operator typed, not what the JSON holds.
      await search(service, events, { pattern: '\\"hello\\"")', include: 'docs/**' }, 'escaped');
      expect(byPath()['docs/talk.ipynb'].map((m) => [m.cell?.index, m.line, m.preview])).toEqual([
        [1, 2, 'print("say \\"hello\\"")'],
      ]);
      events.results = [];
      await search(service, events, { pattern: 'to\tthe', isRegex: true }, 'tab');
      expect(byPath()['docs/talk.ipynb'].map((m) => [m.cell?.index, m.line])).toEqual([[0, 2]]);
    },
  );

  it.skipIf(name === 'ripgrep' && !rgPath)('a new search cancels the one running, whose results stop', async () => {
    for (let i = 0; i < 300; i++) await writeFile(path.join(root, `bulk-${i}.txt`), 'needle\n'.repeat(200));
    const first = search(service, events, { pattern: 'needle' }, 'old');
    const second = search(service, events, { pattern: 'Notes', matchCase: true }, 'new');
    expect((await first).cancelled).toBe(true);
    expect(await second).toMatchObject({ cancelled: false, files: 1 });
    const afterCancel = events.batches.lastIndexOf('old');
    expect(afterCancel).toBeLessThan(events.batches.indexOf('new'));
    expect(service.cancel('new')).toBe(false);
  });
});
