import { describe, expect, it } from 'vitest';
import { pythonOutline } from './text-outline';

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
