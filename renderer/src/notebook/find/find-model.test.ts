import { describe, expect, it } from 'vitest';
import type { NotebookOutput } from '../../../../shared/contract';
import {
  EMPTY_QUERY,
  findInCells,
  matchesByCell,
  nearestMatch,
  outputText,
  replaceInSource,
  stepMatch,
  type FindQuery,
} from './find-model';

const q = (text: string, more: Partial<FindQuery> = {}): FindQuery => ({ ...EMPTY_QUERY, text, ...more });
const cells = [
  { id: 'a', source: 'import os\nos.path.join("a", "b")', outputs: [] },
  { id: 'b', source: '# Paths\nThe PATH and the path', outputs: [] },
  {
    id: 'c',
    source: 'print(os.getcwd())',
    outputs: [
      { output_type: 'stream', name: 'stdout', text: ['/home/path\n'] },
      {
        output_type: 'execute_result',
        execution_count: 1,
        metadata: {},
        data: { 'text/plain': "'\u001b[31mpath\u001b[0m'" },
      },
    ],
  },
];

describe('find in a notebook', () => {
  it('finds in every cell in order, case-insensitive by default; case, whole word and regex narrow it', () => {
    expect(findInCells(cells, q('path')).matches.map((m) => [m.cellId, m.start, m.end])).toEqual([
      ['a', 13, 17],
      ['b', 2, 6],
      ['b', 12, 16],
      ['b', 25, 29],
    ]);
    expect(findInCells(cells, q('path', { matchCase: true })).matches).toHaveLength(2);
    expect(findInCells(cells, q('os', { wholeWord: true })).matches.map((m) => m.cellId)).toEqual(['a', 'a', 'c']);
    expect(findInCells(cells, q('o[sr]\\b', { regex: true })).matches).toHaveLength(3);
  });

  it('searches text outputs only when asked, with colour escapes taken out', () => {
    expect(cells[2].outputs.map((o) => outputText(o as NotebookOutput))).toEqual(['/home/path\n', "'path'"]);
    const found = findInCells(cells, q('path', { inOutputs: true })).matches.filter((m) => m.area === 'output');
    expect(found.map((m) => [m.cellId, m.output, m.start])).toEqual([
      ['c', 0, 6],
      ['c', 1, 1],
    ]);
  });

  it('says why a bad regular expression finds nothing, and empty text finds nothing', () => {
    expect(findInCells(cells, q('(unclosed', { regex: true })).error).toMatch(/regular expression/);
    expect(findInCells(cells, q(''))).toEqual({ matches: [], error: null });
  });

  it('replaces the source matches of a cell, expanding $1 in regex mode, never outputs', () => {
    const query = q('(\\w+)\\.path', { regex: true });
    const matches = findInCells(cells, query).matches.filter((m) => m.cellId === 'a');
    expect(replaceInSource(cells[0].source, matches, '$1.fspath', query)).toBe('import os\nos.fspath.join("a", "b")');
    const plain = q('path');
    const inB = findInCells(cells, plain).matches.filter((m) => m.cellId === 'b');
    expect(replaceInSource(cells[1].source, inB, 'route', plain)).toBe('# routes\nThe route and the route');
    expect(replaceInSource('x', [{ cellId: 'x', cellIndex: 0, area: 'output', start: 0, end: 1 }], 'y', plain)).toBe(
      'x',
    );
  });

  it('keeps a cell’s match list when its matches did not change, so unchanged cells do not repaint', () => {
    const first = matchesByCell(findInCells(cells, q('path')).matches, new Map());
    const edited = [cells[0], { ...cells[1], source: cells[1].source + ' path' }, cells[2]];
    const second = matchesByCell(findInCells(edited, q('path')).matches, first);
    expect(second.get('a')).toBe(first.get('a'));
    expect(second.get('b')).not.toBe(first.get('b'));
    expect(second.get('b')).toHaveLength(4);
  });

  it('steps through matches wrapping around, and keeps the current match near where it was', () => {
    expect(stepMatch(3, null, 1)).toBe(0);
    expect(stepMatch(3, null, -1)).toBe(2);
    expect(stepMatch(3, 2, 1)).toBe(0);
    expect(stepMatch(3, 0, -1)).toBe(2);
    expect(stepMatch(0, null, 1)).toBeNull();
    const matches = findInCells(cells, q('path')).matches;
    expect(nearestMatch(matches, { cellIndex: 1, area: 'source', start: 10 })).toBe(2);
    expect(nearestMatch(matches, { cellIndex: 2, area: 'source', start: 0 })).toBe(0);
  });

  it('searches a JSON output as its tree shows it (keys and values), not its text/plain', () => {
    const json = [
      {
        id: 'j',
        source: 'JSON(data)',
        outputs: [
          {
            output_type: 'display_data',
            metadata: {},
            data: {
              'application/json': { fruits: { apple: 1, pear: 2 }, total: 3 },
              'text/plain': '<IPython.core.display.JSON object>',
            },
          },
        ],
      },
    ];
    expect(findInCells(json, q('apple', { inOutputs: true })).matches).toHaveLength(1);
    expect(findInCells(json, q('pear', { inOutputs: true })).matches[0].area).toBe('output');
    expect(findInCells(json, q('IPython', { inOutputs: true })).matches).toHaveLength(0);
  });

  it('reads each rich output by what draws it: rendered markdown and LaTeX, HTML by its text, stderr displays', () => {
    const display = (data: Record<string, unknown>) => ({ output_type: 'display_data', metadata: {}, data });
    const outputs = [
      display({ 'text/markdown': '**Revenue** up', 'text/plain': '<IPython.core.display.Markdown object>' }),
      display({ 'text/latex': '$\\alpha$ Revenue', 'text/plain': 'alpha' }),
      display({ 'text/html': '<b>Revenue</b><script>var Revenue</script>', 'text/plain': '<HTML object>' }),
      display({ 'application/vnd.jupyter.stderr': 'Revenue \u001b[31mlow\u001b[0m' }),
      display({ 'image/png': 'AAAA', 'text/plain': '<Figure Revenue>' }),
      display({ 'application/javascript': 'Revenue()', 'text/plain': '<Javascript Revenue>' }),
    ];
    // Readers that say which renderer read what (the page's render; these only mark the call).
    const readers = {
      markdownText: (s: string) => `md(${s.replace(/\*/g, '')})`,
      latexText: (s: string) => `tex(${s})`,
      htmlText: (s: string) => `html(${s.replace(/<script>.*<\/script>/, '').replace(/<[^>]+>/g, '')})`,
    };
    expect(outputs.map((o) => outputText(o as NotebookOutput, readers))).toEqual([
      'md(Revenue up)',
      'tex($\\alpha$ Revenue)',
      'html(Revenue)',
      'Revenue low',
      '',
      '',
    ]);
    const cellsWithOutputs = [{ id: 'r', source: 'show()', outputs: outputs as NotebookOutput[] }];
    const found = findInCells(cellsWithOutputs, q('revenue', { inOutputs: true }), readers).matches;
    expect(found.map((m) => m.output)).toEqual([0, 1, 2, 3]);
    // The plain readers (no page) still take tags and scripts out of HTML.
    expect(outputText(outputs[2] as NotebookOutput)).toBe('Revenue');
  });
});
