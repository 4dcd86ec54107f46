import katex from 'katex';
import { describe, expect, it } from 'vitest';
import type { NotebookCell } from '../../../../shared/contract';
import { notebookForHtml } from './prepare';

function cell(partial: Partial<NotebookCell>): NotebookCell {
  return { id: 'c', cell_type: 'code', source: '', metadata: {}, outputs: [], execution_count: null, ...partial };
}

const charts = {
  vega: async () => '<svg class="marks"><g class="mark-rect"></g></svg>',
  plotly: async () => null,
};

describe('notebookForHtml', () => {
  it('typesets markdown math as MathML without the TeX annotation (nbconvert would read its _ and *)', async () => {
    const nb = (await notebookForHtml(
      [cell({ cell_type: 'markdown', source: 'see $a_1 * b_2$' })],
      {},
      katex,
      charts,
    )) as {
      cells: { source: string; outputs?: unknown }[];
    };
    expect(nb.cells[0].source).toMatch(/^see <span class="katex"><math/);
    expect(nb.cells[0].source).not.toContain('annotation');
    expect(nb.cells[0].source).not.toContain('a_1');
    expect(nb.cells[0]).not.toHaveProperty('outputs');
  });

  it('draws charts into text/html and typesets text/latex; the cells passed in are not changed', async () => {
    const latex = { output_type: 'execute_result', execution_count: 1, metadata: {}, data: { 'text/latex': '$x^2$' } };
    const chart = {
      output_type: 'display_data',
      metadata: {},
      data: { 'application/vnd.vegalite.v4+json': { title: 'Sales' }, 'text/plain': 'chart' },
    };
    const cells = [cell({ outputs: [latex, chart], execution_count: 1 })];
    const nb = (await notebookForHtml(cells, {}, katex, charts)) as {
      cells: { outputs: { data: Record<string, string> }[] }[];
    };
    const [math, drawn] = nb.cells[0].outputs;
    expect(math.data['text/html']).toContain('<math');
    expect(drawn.data['text/html']).toContain('aria-label="Sales"');
    expect(drawn.data['text/html']).toContain('class="marks"');
    expect(cells[0].outputs[1]).toBe(chart);
    expect(Object.keys(chart.data)).toEqual(['application/vnd.vegalite.v4+json', 'text/plain']);
  });
});
