import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, notebook, openNotebook, outputOf } from './support/notebook';
import { expectAccessible } from './support/axe';

/**
 * What the Python data stack displays, drawn as JupyterLab draws it: the real kernel with Debian's sympy,
 * altair, plotly and pandas (main/hosts/launch/setup.sh installs them).
 */

const KERNEL_START = 60_000;
const RUN = 90_000;

/** Fails the test on any CSP refusal: the renderers must work without 'unsafe-eval' or network. */
function watchCsp(page: Page): string[] {
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|unsafe-eval/i.test(message.text())) refusals.push(message.text());
    if (message.type() === 'error') console.log('page error:', message.text().slice(0, 500));
  });
  page.on('pageerror', (error) => console.log('page exception:', error.message.slice(0, 500)));
  return refusals;
}

const DATA_STACK = notebook(
  cell('markdown', 'Inline $a_1 * b_2$ stays *math*, and display:\n\n$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$'),
  cell('code', 'import sympy as sp\nx = sp.symbols("x")\nsp.Integral(sp.sqrt(1 / x), x) / 2'),
  cell('code', 'from IPython.display import Math\nMath(r"\\frac{a}{b} + \\sqrt{c}")'),
  cell(
    'code',
    [
      'import altair as alt, pandas as pd',
      'alt.Chart(pd.DataFrame({"fruit": ["apple", "pear", "fig"], "count": [3, 5, 2]}), title="Fruit")' +
        '.mark_bar().encode(x="fruit", y="count")',
    ].join('\n'),
  ),
  cell(
    'code',
    [
      'import plotly.graph_objects as go',
      'fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[2, 2, 2], mode="markers", marker={"size": 14}))',
      'fig.update_layout(title="Trend", width=500, height=320)',
      'fig.show()',
    ].join('\n'),
  ),
  cell('code', 'from IPython.display import JSON\nJSON({"fruits": {"apple": 1, "pear": 2}, "total": 3})'),
  cell('code', 'pd.DataFrame({"n": [1, 2]})'),
);

test.describe('notebook outputs', () => {
  test.describe.configure({ timeout: 300_000 });
  test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'stack.ipynb': DATA_STACK } });

  test('math, Altair, Plotly, JSON and "Show as" draw as in JupyterLab; the file stays byte-exact', async ({
    page,
    kiln,
    workspace,
  }) => {
    const refusals = watchCsp(page);
    await kiln.open(page);
    const nb = await openNotebook(page, 'stack.ipynb');

    // Markdown math: typeset, and the asterisk between a_1 and b_2 is not emphasis.
    const md = outputOf(nb, 1);
    await expect(md.locator('.katex').first()).toBeVisible();
    await expect(md.locator('.katex-display')).toHaveCount(1);
    await expect(md.locator('em')).toHaveText(['math']);
    await expect(md.locator('annotation').first()).toHaveText('a_1 * b_2');

    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
    await nb.getByRole('button', { name: 'Run all', exact: true }).click();

    // sympy and IPython.display.Math: KaTeX, no raw \frac left in what is shown.
    for (const n of [2, 3]) {
      const out = outputOf(nb, n);
      await expect(out.locator('.katex-html')).toBeVisible({ timeout: RUN });
      expect(await out.locator('.katex-html').innerText()).not.toContain('\\');
    }

    // Altair: SVG marks, one bar per row, with the chart's title as its accessible name.
    const chart = outputOf(nb, 4).getByRole('figure', { name: 'Fruit' });
    await expect(chart.locator('svg .mark-rect path')).toHaveCount(3, { timeout: RUN });
    await expect(chart.getByRole('button', { name: /actions/i }).or(chart.locator('summary'))).toHaveCount(1);

    // Plotly: drawn from its JSON (not its script-based HTML), and hover shows the point.
    const figure = outputOf(nb, 5).getByRole('figure', { name: 'Trend' });
    await expect(figure.locator('.main-svg .point')).toHaveCount(3, { timeout: RUN });
    // Its script-only HTML (and plotly's init_notebook_mode output) show no empty frame.
    await expect(outputOf(nb, 5).locator('iframe')).toHaveCount(0);
    const drag = figure.locator('.nsewdrag').first();
    await drag.scrollIntoViewIfNeeded();
    const box = (await drag.boundingBox())!;
    await page.mouse.move(box.x + 5, box.y + 5);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
    await expect(figure.locator('.hoverlayer .hovertext')).toHaveCount(1);

    // JSON: a tree whose branches collapse and expand.
    const tree = outputOf(nb, 6).getByRole('group', { name: 'JSON output' });
    await expect(tree).toContainText('fruits', { timeout: RUN });
    const fruits = tree.locator('summary', { hasText: 'fruits' });
    await expect(tree.getByText('apple')).toBeHidden();
    await fruits.click();
    await expect(tree.getByText('apple')).toBeVisible();
    await fruits.click();
    await expect(tree.getByText('apple')).toBeHidden();

    // A DataFrame shows as HTML; its context menu switches it to text/plain and back.
    const frame = outputOf(nb, 7);
    await expect(frame.locator('iframe[title="HTML output"]')).toBeVisible({ timeout: RUN });
    // Right-click doesn't reach Kiln inside the frame: the output's menu button does.
    await frame.locator('.nb-out-rich').hover();
    await frame.getByRole('button', { name: 'Output menu' }).click();
    await page.getByRole('menuitem', { name: 'Show as text/plain' }).click();
    await expect(frame.locator('iframe')).toHaveCount(0);
    await expect(frame.locator('pre')).toContainText('n');
    await frame.locator('pre').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Show as text/html' }).click();
    await expect(frame.locator('iframe[title="HTML output"]')).toBeVisible();

    await page.screenshot({ path: test.info().outputPath('notebook-outputs.png'), fullPage: true });
    expect(refusals).toEqual([]);
    // Outputs are shown, never rewritten: nothing was saved, the file is as it was.
    expect(await workspace.read('stack.ipynb')).toBe(DATA_STACK);
  });
});

const BAR_SPEC = {
  $schema: 'https://vega.github.io/schema/vega-lite/v4.17.0.json',
  title: 'Fruit',
  data: {
    values: [
      { fruit: 'apple', count: 3 },
      { fruit: 'pear', count: 5 },
    ],
  },
  mark: 'bar',
  encoding: { x: { field: 'fruit', type: 'nominal' }, y: { field: 'count', type: 'quantitative' } },
};

function withOutputs(source: string, outputs: object[]) {
  return { ...cell('code', source), execution_count: 1, outputs };
}

const SAVED = notebook(
  cell('markdown', '# Report\n\nArea $\\pi r^2$ and $a_1 * b_2$.'),
  withOutputs('import sympy', [
    {
      output_type: 'execute_result',
      execution_count: 1,
      metadata: {},
      data: { 'text/latex': '$\\displaystyle \\frac{x^{2}}{2}$', 'text/plain': 'x**2/2' },
    },
  ]),
  withOutputs('chart', [
    {
      output_type: 'display_data',
      metadata: {},
      data: { 'application/vnd.vegalite.v4+json': BAR_SPEC, 'text/plain': '<VegaLite 4 object>' },
    },
  ]),
);

test.describe('notebook export', () => {
  test.describe.configure({ timeout: 300_000 });
  test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'report.ipynb': SAVED } });

  test('HTML opens offline with its math and chart; the script has the code cells', async ({
    page,
    kiln,
    workspace,
    browser,
  }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'report.ipynb');
    await expect(outputOf(nb, 3).locator('svg .mark-rect path')).toHaveCount(2, { timeout: RUN });
    // Math and a chart on screen: axe stays clean, the chart named by its title.
    await expect(outputOf(nb, 3).getByRole('figure', { name: 'Fruit' })).toBeVisible();
    await expect(outputOf(nb, 2).locator('.katex')).toBeVisible();
    await expectAccessible(page, 'notebook-outputs');

    await exportAs(page, nb, 'Export as HTML');
    await expect(page.getByText('Exported to report.html')).toBeVisible({ timeout: RUN });
    const html = await workspace.read('report.html');
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*(src|href)=["']?(https?:)?\/\//i);

    // A fresh, offline browser context: the math is MathML, the chart an SVG; nothing to fetch.
    const offline = await browser.newContext({ offline: true });
    const viewer = await offline.newPage();
    const requests: string[] = [];
    viewer.on('request', (request) => {
      if (!request.url().startsWith('file:')) requests.push(request.url());
    });
    await viewer.goto(`file://${workspace.abs('report.html')}`);
    await expect(viewer.locator('math').first()).toBeVisible();
    await expect(viewer.locator('math')).toHaveCount(3);
    expect(await viewer.locator('body').innerText()).not.toContain('\\frac');
    await expect(viewer.locator('svg .mark-rect path')).toHaveCount(2);
    await viewer.screenshot({ path: test.info().outputPath('notebook-export-html.png'), fullPage: true });
    expect(requests.filter((url) => !url.startsWith('data:'))).toEqual([]);
    await offline.close();

    // Export as Python script, from the command palette.
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type('Export as Python script');
    await page.keyboard.press('Enter');
    await expect(page.getByText('Exported to report.py')).toBeVisible({ timeout: RUN });
    const script = await workspace.read('report.py');
    expect(script).toContain('import sympy');
    expect(script).toContain('chart');
    // The web host offers the exported file to the browser as a download too (the host's disk may be a remote box's).
    const offered = page.waitForEvent('download');
    await page
      .getByRole('status')
      .filter({ hasText: 'Exported to report.py' })
      .getByRole('button', { name: 'Download', exact: true })
      .click();
    const download = await offered;
    expect(download.suggestedFilename()).toBe('report.py');
    expect(await readFile((await download.path())!, 'utf8')).toBe(script);
    // The notebook itself was never rewritten.
    expect(await workspace.read('report.ipynb')).toBe(SAVED);
  });

  test('Export as PDF in the browser opens the print dialog on the notebook alone, every output made', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'report.ipynb');
    await expect(outputOf(nb, 3).locator('svg .mark-rect path')).toHaveCount(2, { timeout: RUN });
    // The print dialog can't be driven: what the page is like when it opens is recorded instead.
    await page.evaluate(() => {
      const w = window as unknown as { printed: unknown[] };
      w.printed = [];
      window.print = () => {
        const section = document.querySelector('section.nb.nb-printing');
        w.printed.push({
          body: document.body.classList.contains('kiln-printing'),
          notebook: section?.getAttribute('data-path') ?? null,
          pending: document.querySelectorAll('.nb-outputs-pending').length,
        });
        window.dispatchEvent(new Event('afterprint'));
      };
    });
    await exportAs(page, nb, 'Export as PDF');
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { printed: unknown[] }).printed))
      .toEqual([{ body: true, notebook: 'report.ipynb', pending: 0 }]);
    // Afterwards the page is as it was.
    await expect(page.locator('body.kiln-printing')).toHaveCount(0);
    // What paper gets: the print stylesheet shows the notebook's cells, math and chart.
    await page.evaluate(() => {
      document.body.classList.add('kiln-printing');
      document.querySelector('section.nb')?.classList.add('nb-printing');
    });
    await page.emulateMedia({ media: 'print' });
    await expect(nb.getByRole('toolbar', { name: 'Notebook' })).toBeHidden();
    await page.screenshot({ path: test.info().outputPath('notebook-print.png') });
    await page.emulateMedia({ media: 'screen' });
  });
});

const CHARTS = notebook(
  withOutputs('fitted', [
    {
      output_type: 'display_data',
      metadata: {},
      data: {
        'application/vnd.vegalite.v4+json': { ...BAR_SPEC, title: 'Fitted', width: 'container' },
        'text/plain': '<VegaLite 4 object>',
      },
    },
  ]),
  withOutputs('autosized', [
    {
      output_type: 'display_data',
      metadata: {},
      data: {
        'application/vnd.plotly.v1+json': {
          data: [{ type: 'scatter', x: [1, 2, 3], y: [1, 3, 2] }],
          layout: { title: { text: 'Autosized' }, height: 300 },
        },
        'text/plain': 'Figure',
      },
    },
  ]),
);

test.describe('chart sizes', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'charts.ipynb': CHARTS } });

  test('a chart sized by its output follows the output: a narrower cell or window makes a narrower chart', async ({
    page,
    kiln,
  }) => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await kiln.open(page);
    const nb = await openNotebook(page, 'charts.ipynb');
    const vega = outputOf(nb, 1).getByRole('figure', { name: 'Fitted' }).locator('svg.marks');
    const plotly = outputOf(nb, 2).getByRole('figure', { name: 'Autosized' }).locator('.main-svg').first();
    await expect(outputOf(nb, 1).locator('svg .mark-rect path')).toHaveCount(2, { timeout: RUN });
    await expect(plotly).toBeVisible({ timeout: RUN });
    const widths = async () => ({
      vega: (await vega.boundingBox())?.width ?? 0,
      plotly: (await plotly.boundingBox())?.width ?? 0,
    });
    const wide = await widths();
    const output = (await outputOf(nb, 1).boundingBox())!.width;
    // Each fills its output (the Vega chart leaves room for its actions button).
    expect(wide.vega).toBeGreaterThan(output - 120);
    expect(wide.plotly).toBeGreaterThan(output - 120);

    // The cells get narrower with no window resize (as when a side panel opens): the charts follow.
    await nb.locator('.nb-cell-grid').evaluate((grid) => ((grid as HTMLElement).style.width = '520px'));
    await expect.poll(async () => (await widths()).vega).toBeLessThan(wide.vega - 200);
    await expect.poll(async () => (await widths()).plotly).toBeLessThan(wide.plotly - 200);
    await page.screenshot({ path: test.info().outputPath('charts-narrow-cell.png') });
    await nb.locator('.nb-cell-grid').evaluate((grid) => ((grid as HTMLElement).style.width = ''));
    await expect.poll(async () => (await widths()).vega).toBeGreaterThan(wide.vega - 10);
    await expect.poll(async () => (await widths()).plotly).toBeGreaterThan(wide.plotly - 10);

    // A narrower window: narrower charts.
    await page.setViewportSize({ width: 1000, height: 900 });
    await expect.poll(async () => (await widths()).vega).toBeLessThan(wide.vega - 200);
    await expect.poll(async () => (await widths()).plotly).toBeLessThan(wide.plotly - 200);
    await page.screenshot({ path: test.info().outputPath('charts-narrow-window.png') });
  });
});

/** Picks an export from the toolbar's Export menu, or from More actions when the bar is too narrow to hold it. */
async function exportAs(page: Page, nb: Locator, label: string): Promise<void> {
  const exportButton = nb.getByRole('button', { name: 'Export', exact: true });
  const item = page.getByRole('menuitem', { name: label });
  // The bar collapses Export into More actions when the kernel's name widens it: whichever holds it then.
  await expect(async () => {
    if (!(await item.isVisible())) {
      if (await exportButton.isVisible()) await exportButton.click({ timeout: 1000 });
      else await nb.getByRole('button', { name: 'More actions' }).click({ timeout: 1000 });
    }
    await expect(item).toBeVisible({ timeout: 1000 });
  }).toPass();
  await item.click();
}
