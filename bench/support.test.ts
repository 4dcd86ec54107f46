import { describe, expect, it } from 'vitest';
import { judgedFigure, targetText, type Figure } from './support';

const figure = (over: Partial<Figure>): Figure => ({
  bench: 'b',
  name: 'n',
  kiln: 35.3,
  baseline: 0.2,
  unit: 'ms',
  ratio: 176.5,
  target: null,
  meets: null,
  ...over,
});

describe('the summary shows what a figure is judged by', () => {
  it('an absolute target shows the value, not its ratio to a tiny baseline', () => {
    const f = figure({ target: { max: 100 } });
    expect(judgedFigure(f).text).toBe('35.30 ms');
    expect(targetText(f.target, f.unit)).toBe('≤ 100 ms');
  });

  it('a target over the baseline shows what Kiln adds', () => {
    const f = figure({ kiln: 0.36, baseline: 0.01, ratio: 36, target: { overBaseline: 1 } });
    expect(judgedFigure(f)).toEqual({ value: expect.closeTo(0.35, 5) as number, text: '+0.35 ms' });
    expect(targetText(f.target, f.unit)).toBe('≤ baseline + 1 ms');
  });

  it('a ratio target shows the ratio, and what is added when that also passes', () => {
    expect(judgedFigure(figure({ kiln: 1.5, baseline: 1, ratio: 1.5, target: { ratio: 2 } })).text).toBe('1.50x');
    const sandbox = figure({ kiln: 71.75, baseline: 36.88, ratio: 1.95, target: { ratio: 1.3, orOverBaseline: 30 } });
    expect(judgedFigure(sandbox).text).toBe('1.95x, +34.87 ms');
    expect(targetText(sandbox.target, sandbox.unit)).toBe('≤ 1.3x or ≤ baseline + 30 ms');
  });

  it('a figure without a baseline shows its value', () => {
    expect(judgedFigure(figure({ kiln: 22, baseline: null, ratio: null, unit: 'watches' })).text).toBe('22.00 watches');
  });
});
