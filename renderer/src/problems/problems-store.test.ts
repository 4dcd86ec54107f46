import { expect, it } from 'vitest';
import type { LspDiagnostic } from '../../../shared/contract';
import { countProblems, listProblems } from './problems-store';

const d = (line: number, severity: LspDiagnostic['severity'], message: string): LspDiagnostic => ({
  range: { start: { line, character: 0 }, end: { line, character: 1 } },
  severity,
  message,
});

it('lists problems by file in path order, by position, without hints; counts errors and warnings', () => {
  const diagnostics = {
    'src/util.py': [d(4, 'warning', 'w'), d(1, 'error', 'e1')],
    'main.py': [d(0, 'hint', 'unused import'), d(2, 'information', 'i')],
    'only-hints.py': [d(0, 'hint', 'h')],
  };
  expect(listProblems(diagnostics).map((f) => [f.path, f.problems.map((p) => p.message)])).toEqual([
    ['main.py', ['i']],
    ['src/util.py', ['e1', 'w']],
  ]);
  expect(countProblems(diagnostics)).toEqual({ errors: 1, warnings: 1, infos: 1 });
});
