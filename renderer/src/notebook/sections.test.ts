import { outputsHidden, withOutputsHidden, withSourceHidden } from './cell-metadata';
import { describe, expect, it } from 'vitest';
import {
  cellHeading,
  currentHeading,
  headingsHiding,
  hiddenBySections,
  markdownHeadings,
  notebookHeadings,
  sectionSize,
  withHeadingCollapsed,
} from './sections';

const md = (id: string, source: string, metadata: Record<string, unknown> = {}) => ({
  id,
  cell_type: 'markdown',
  source,
  metadata,
});
const code = (id: string) => ({ id, cell_type: 'code', source: 'x = 1', metadata: {} });

describe('headings and sections', () => {
  it('reads ATX and setext headings as plain text, skipping fenced code', () => {
    expect(
      markdownHeadings('# Intro *here*\ntext\n```\n# not a heading\n```\nSetup\n-----\n### [Deep](x.md) ##'),
    ).toEqual([
      { level: 1, text: 'Intro here', line: 0 },
      { level: 2, text: 'Setup', line: 5 },
      { level: 3, text: 'Deep', line: 7 },
    ]);
    expect(cellHeading({ cell_type: 'code', source: '# comment' })).toBeNull();
    expect(cellHeading({ cell_type: 'markdown', source: 'plain\n## Later' })).toEqual({
      level: 2,
      text: 'Later',
      line: 1,
    });
  });

  it('hides a collapsed heading’s section up to the next heading of its level or higher, nested ones too', () => {
    const cells = [
      md('h1', '# One', { heading_collapsed: true }),
      code('c1'),
      md('h2', '## Two', { heading_collapsed: true }),
      code('c2'),
      md('h1b', '# Next'),
      code('c3'),
    ];
    expect([...hiddenBySections(cells)]).toEqual(['c1', 'h2', 'c2']);
    expect(headingsHiding(cells, 3)).toEqual(['h2', 'h1']);
    expect(headingsHiding(cells, 5)).toEqual([]);
    expect(sectionSize(cells, 0)).toBe(3);
    expect(sectionSize(cells, 2)).toBe(1);
    const headings = notebookHeadings(cells);
    expect(headings.map((h) => [h.text, h.cellIndex])).toEqual([
      ['One', 0],
      ['Two', 2],
      ['Next', 4],
    ]);
    expect(currentHeading(headings, 3)).toBe(1);
    expect(currentHeading(headings, 5)).toBe(2);
    expect(currentHeading(notebookHeadings([code('x'), md('h', '# H')]), 0)).toBeNull();
  });

  it('reads and writes hidden input and outputs as JupyterLab does', () => {
    const hidden = withOutputsHidden({ tags: ['x'] }, true);
    expect(hidden).toEqual({ tags: ['x'], jupyter: { outputs_hidden: true }, collapsed: true });
    expect(outputsHidden(hidden)).toBe(true);
    expect(withOutputsHidden(hidden, false)).toEqual({ tags: ['x'] });
    expect(withSourceHidden({ jupyter: { outputs_hidden: true } }, true)).toEqual({
      jupyter: { outputs_hidden: true, source_hidden: true },
    });
    expect(withHeadingCollapsed({}, true)).toEqual({ heading_collapsed: true });
    expect(withHeadingCollapsed({ heading_collapsed: true, a: 1 }, false)).toEqual({ a: 1 });
  });
});
