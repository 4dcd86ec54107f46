import { describe, expect, it } from 'vitest';
import type { DocumentSymbol } from '../../../shared/contract';
import { pythonOutline, symbolOutline } from './text-outline';

describe('a Python file’s outline', () => {
  it('lists top-level classes and functions, methods under their class, and # %% cells', () => {
    const text = [
      'import os',
      '# %% Load',
      'class Loader:',
      '    def read(self):',
      '        def inner(): pass',
      '    async def fetch(self): ...',
      '',
      'async def main():',
      '    pass',
      'x = 1',
      'def helper(): pass',
    ].join('\n');
    expect(pythonOutline(text)).toEqual([
      { text: 'Load', level: 1, line: 2 },
      { text: 'Loader', level: 1, line: 3 },
      { text: 'read', level: 2, line: 4 },
      { text: 'fetch', level: 2, line: 6 },
      { text: 'main', level: 1, line: 8 },
      { text: 'helper', level: 1, line: 11 },
    ]);
  });
});

describe('a Python file’s outline from the language server', () => {
  const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 1 } });
  const symbol = (name: string, kind: DocumentSymbol['kind'], line: number, children: DocumentSymbol[] = []) => ({
    name,
    kind,
    range: at(line),
    selectionRange: at(line),
    children,
  });

  it('nests symbols by depth and leaves out what function bodies hold', () => {
    const symbols: DocumentSymbol[] = [
      symbol('LIMIT', 'constant', 0),
      symbol('Loader', 'class', 2, [
        symbol('size', 'variable', 3),
        symbol('read', 'method', 4, [symbol('data', 'variable', 5)]),
      ]),
      symbol('main', 'function', 8, [symbol('loader', 'variable', 9)]),
    ];
    expect(symbolOutline(symbols)).toEqual([
      { text: 'LIMIT', level: 1, line: 1, character: 0 },
      { text: 'Loader', level: 1, line: 3, character: 0 },
      { text: 'size', level: 2, line: 4, character: 0 },
      { text: 'read', level: 2, line: 5, character: 0 },
      { text: 'main', level: 1, line: 9, character: 0 },
    ]);
  });
});
