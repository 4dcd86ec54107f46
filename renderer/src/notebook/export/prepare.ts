import type { MimeBundle, NotebookCell, NotebookOutput } from '../../../../shared/contract';
import { joinMultiline } from '../../../../shared/contract';
import { withEmbeddedChart } from '../renderers/embedded-chart';
import { chartTitle } from '../renderers/charts';
import { escapeHtml, latexToHtml, splitMath, typeset, type Katex } from '../renderers/math';
import { rendererKind } from '../renderers/mime-rank';

/** How a chart becomes SVG text; null when it can't be drawn (the output then exports as nbconvert shows it). */
export interface ChartDrawer {
  vega(mime: string, spec: unknown): Promise<string | null>;
  plotly(figure: unknown): Promise<string | null>;
}

// KaTeX's MathML, without the TeX annotation: nbconvert's markdown reader would read `_` and `*` in it.
function mathml(katex: Katex, tex: string, display: boolean): string {
  return typeset(katex, tex, display, 'mathml').replace(/<annotation\b[\s\S]*?<\/annotation>/g, '');
}

/** A markdown cell's math as MathML, which Chromium and Firefox draw with no script or font to fetch. */
export function markdownWithMathml(katex: Katex, source: string): string {
  return splitMath(source)
    .map((segment) => (segment.kind === 'text' ? segment.text : mathml(katex, segment.tex, segment.display)))
    .join('');
}

async function exportOutput(output: NotebookOutput, katex: Katex, charts: ChartDrawer): Promise<NotebookOutput> {
  if (output.output_type !== 'display_data' && output.output_type !== 'execute_result') return output;
  const bundle = withEmbeddedChart((output.data ?? {}) as MimeBundle);
  const mimes = Object.keys(bundle);
  const chart = mimes.find((mime) => rendererKind(mime) === 'vega' || rendererKind(mime) === 'plotly');
  if (chart) {
    const svg =
      rendererKind(chart) === 'vega'
        ? await charts.vega(chart, bundle[chart]).catch(() => null)
        : await charts.plotly(bundle[chart]).catch(() => null);
    if (svg) {
      // As text/html: nbconvert passes it as it is (its image/svg+xml path strips an SVG's children), and it
      // replaces the bundle's own HTML, a CDN script that would draw nothing offline.
      const html = `<div class="kiln-chart" role="img" aria-label="${escapeHtml(chartTitle(bundle[chart]))}">${svg}</div>`;
      return { ...output, data: { ...bundle, 'text/html': html } };
    }
    return output;
  }
  const latex = bundle['text/latex'];
  if (latex !== undefined && bundle['text/html'] === undefined) {
    const html = latexToHtml(katex, joinMultiline(latex as string | string[]), 'mathml');
    return { ...output, data: { ...bundle, 'text/html': html.replace(/<annotation\b[\s\S]*?<\/annotation>/g, '') } };
  }
  return output;
}

/**
 * The notebook as it should leave Kiln for nbconvert's HTML: math typeset to MathML, charts drawn to SVG.
 * Only this copy changes; the open notebook and its file are untouched.
 */
export async function notebookForHtml(
  cells: readonly NotebookCell[],
  metadata: Record<string, unknown>,
  katex: Katex,
  charts: ChartDrawer,
): Promise<object> {
  const exported: NotebookCell[] = [];
  for (const cell of cells) {
    if (cell.cell_type === 'markdown') {
      exported.push({ ...cell, source: markdownWithMathml(katex, joinMultiline(cell.source)) });
    } else if (cell.cell_type === 'code') {
      const outputs: NotebookOutput[] = [];
      for (const output of (cell.outputs ?? []) as NotebookOutput[])
        outputs.push(await exportOutput(output, katex, charts));
      exported.push({ ...cell, outputs });
    } else exported.push(cell);
  }
  return notebookJson(exported, metadata);
}

/** nbformat 4.5 JSON: only code cells carry outputs and an execution count. */
export function notebookJson(cells: readonly NotebookCell[], metadata: Record<string, unknown>): object {
  return {
    cells: cells.map(({ outputs, execution_count, attachments, ...cell }) =>
      cell.cell_type === 'code' ? { ...cell, outputs, execution_count } : attachments ? { ...cell, attachments } : cell,
    ),
    metadata,
    nbformat: 4,
    nbformat_minor: 5,
  };
}
