import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, cellOf, notebook, openNotebook, outputOf } from './support/notebook';
import { mod } from './support/ui';

/**
 * What a JupyterLab user trips on in the first hour (issue 42): every MIME type JupyterLab's standard renderers
 * draw, find over markdown / LaTeX / HTML outputs with Enter and Shift+Enter, B under a folded heading, and the
 * toolbar at common widths with the right rail open.
 */

const KERNEL_START = 90_000;

/** An 8 x 4 red 24-bit BMP (rows padded to 4 bytes, bottom-up), as a BMP encoder writes it. */
function redBmp(): string {
  const width = 8;
  const height = 4;
  const row = width * 3;
  const pixels = Buffer.alloc(row * height);
  for (let i = 0; i < pixels.length; i += 3) pixels.set([0x20, 0x20, 0xd0], i);
  const header = Buffer.alloc(54);
  header.write('BM', 0);
  header.writeUInt32LE(54 + pixels.length, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(width, 18);
  header.writeInt32LE(height, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(pixels.length, 34);
  return Buffer.concat([header, pixels]).toString('base64');
}
const GIF_1PX = 'R0lGODlhAQABAIAAAAUEBAAAACwAAAAAAQABAAACAkQBADs=';
const WEBP_1PX = 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==';
const PDF = Buffer.from('%PDF-1.1\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n').toString('base64');

const display = (data: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  output_type: 'display_data',
  metadata,
  data,
});
function withOutputs(source: string, outputs: unknown[]) {
  return { ...cell('code', source), execution_count: 1, outputs };
}
const size = (mime: string) => ({ [mime]: { width: 48, height: 24 } });

const MIME_TYPES = notebook(
  withOutputs('display stderr and stdout', [
    display({ 'application/vnd.jupyter.stderr': 'careful: \x1b[1mdisk\x1b[0m nearly full\n' }),
    display({ 'application/vnd.jupyter.stdout': 'copied 3 files\n' }),
  ]),
  withOutputs('Markdown and Latex', [
    display({ 'text/markdown': 'A **bold** claim', 'text/plain': '<IPython.core.display.Markdown object>' }),
    display({ 'text/latex': '$\\frac{a}{b}$', 'text/plain': '<IPython.core.display.Latex object>' }),
  ]),
  withOutputs('images', [
    display({ 'image/bmp': redBmp(), 'text/plain': '<BMP>' }, size('image/bmp')),
    display({ 'image/gif': GIF_1PX, 'text/plain': '<GIF>' }, size('image/gif')),
    display({ 'image/webp': WEBP_1PX, 'text/plain': '<WebP>' }, size('image/webp')),
  ]),
  withOutputs('PDF, JavaScript, a widget', [
    display({ 'application/pdf': PDF, 'text/plain': '<PDF>' }),
    display({ 'application/javascript': 'document.title = "pwned"', 'text/plain': '<IPython.core.display.Javascript object>' }), // prettier-ignore
    display({
      'application/vnd.jupyter.widget-view+json': { model_id: 'abc', version_major: 2, version_minor: 0 },
      'text/plain': 'IntSlider(value=3)',
    }),
  ]),
);

const FIND = notebook(
  cell('markdown', '# Report'),
  withOutputs('show_summary()', [
    display({ 'text/markdown': 'The **Revenue** grew', 'text/plain': '<IPython.core.display.Markdown object>' }),
  ]),
  withOutputs('show_table()', [
    display({
      'text/html': '<table><tr><th>Revenue</th></tr><tr><td>Revenue 2024</td></tr></table><script>var Revenue</script>',
      'text/plain': '<pandas table>',
    }),
  ]),
  withOutputs('show_formula()', [display({ 'text/latex': '$\\text{Revenue} = p \\cdot q$', 'text/plain': '<Latex>' })]),
);

const FOLDED = notebook(
  cell('markdown', '# Top', { heading_collapsed: true }),
  cell('code', 'hidden = 1'),
  cell('markdown', '# Next'),
  cell('code', 'shown = 2'),
);

const TOOLBAR = notebook(cell('code', 'x = 1'), cell('markdown', '# Notes'));

test.describe('notebook polish (issue 42)', () => {
  test.describe.configure({ timeout: 180_000 });

  test.describe('MIME types', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'mime.ipynb': MIME_TYPES } });

    test('stderr and stdout displays, markdown, LaTeX, BMP/GIF/WebP, a PDF link, JavaScript and a widget are drawn', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'mime.ipynb');
      await expect(nb.getByText(/cannot be shown/)).toHaveCount(0);

      const streams = outputOf(nb, 1);
      await expect(streams.locator('.nb-stream-stderr')).toHaveText('careful: disk nearly full\n');
      await expect(streams.locator('.nb-stream-stderr .ansi-bold')).toHaveText('disk');
      await expect(streams.locator('.nb-stream-stdout')).toHaveText('copied 3 files\n');

      await expect(outputOf(nb, 2).locator('.nb-markdown strong')).toHaveText('bold');
      await expect(outputOf(nb, 2).locator('.nb-out-latex .katex')).toBeVisible();

      for (const kind of ['BMP', 'GIF', 'WEBP']) {
        const image = outputOf(nb, 3).getByRole('img', { name: `${kind} output` });
        await expect(image).toBeVisible();
        // Decoded by the browser, not a broken-image box.
        await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
      }

      const rest = outputOf(nb, 4);
      const pdf = rest.getByRole('link', { name: 'Download PDF' });
      await expect(pdf).toHaveAttribute('download', 'output.pdf');
      const download = page.waitForEvent('download');
      await pdf.click();
      expect((await download).suggestedFilename()).toBe('output.pdf');
      await expect(rest.getByRole('note').filter({ hasText: 'JavaScript output not run' })).toBeVisible();
      await expect(page).not.toHaveTitle('pwned');
      await expect(rest.getByRole('note').filter({ hasText: 'widgets need a widget manager' })).toContainText(
        'IntSlider(value=3)',
      );
      await nb.locator('.nb-cells').evaluate((el) => (el.scrollTop = 0));
      await page.screenshot({ path: test.info().outputPath('notebook-mime-types.png') });
      await rest.scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath('notebook-mime-types-2.png') });
    });
  });

  test.describe('find in outputs', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'find.ipynb': FIND } });

    test('counts markdown, HTML and LaTeX outputs by what they show; Enter and Shift+Enter step through them', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'find.ipynb');
      await expect(outputOf(nb, 4).locator('.katex')).toBeVisible();
      await cellOf(nb, 1).click();
      await page.keyboard.press(`${mod}+f`);
      const bar = nb.getByRole('search', { name: 'Find in notebook' });
      const count = bar.locator('.nb-find-count');
      const box = bar.getByRole('textbox', { name: 'Find' });
      await box.fill('revenue');
      await expect(count).toHaveText('No results');
      await bar.getByRole('button', { name: 'Search outputs' }).click();
      // Markdown 1, the HTML table 2 (not its script), the LaTeX formula 1.
      await expect(count).toHaveText('1 of 4');
      await box.click();

      const current = () => page.evaluate(() => [...(CSS.highlights.get('nb-find-current') ?? [])].map(String));
      const frame = outputOf(nb, 3).frameLocator('iframe[title="HTML output"]');
      await expect.poll(current).toEqual(['Revenue']);
      await expect(frame.locator('mark.kiln-find')).toHaveCount(2);
      await expect(frame.locator('mark.kiln-find-current')).toHaveCount(0);

      await box.press('Enter');
      await expect(count).toHaveText('2 of 4');
      await expect(frame.locator('mark.kiln-find-current')).toHaveText('Revenue');
      await expect.poll(current).toEqual([]);
      await box.press('Enter');
      await expect(count).toHaveText('3 of 4');
      await expect(frame.locator('mark.kiln-find-current')).toHaveText('Revenue');
      await expect(frame.locator('td mark.kiln-find-current')).toHaveCount(1);
      await box.press('Enter');
      await expect(count).toHaveText('4 of 4');
      await expect.poll(current).toEqual(['Revenue']);
      await expect(frame.locator('mark.kiln-find-current')).toHaveCount(0);
      await page.screenshot({ path: test.info().outputPath('notebook-find-outputs.png') });
      await box.press('Shift+Enter');
      await expect(count).toHaveText('3 of 4');
      await box.press('Shift+Enter');
      await box.press('Shift+Enter');
      await expect(count).toHaveText('1 of 4');
      await box.press('Shift+Enter');
      await expect(count).toHaveText('4 of 4');
      await expect(box).toBeFocused();
    });
  });

  test.describe('a folded heading', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'folded.ipynb': FOLDED } });

    test('B on a folded heading unfolds its section and makes the new cell active', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'folded.ipynb');
      await expect(nb.getByRole('button', { name: '1 cell hidden' })).toBeVisible();
      await expect(nb.getByRole('group')).toHaveCount(3);
      await cellOf(nb, 1).click();
      await page.keyboard.press('Escape');
      await page.keyboard.press('b');
      await expect(nb.getByRole('group')).toHaveCount(5);
      const added = cellOf(nb, 2);
      await expect(added).toBeVisible();
      await expect(added).toHaveClass(/\bactive\b/);
      await expect(added).toBeFocused();
      await expect(cellOf(nb, 3).getByText('hidden = 1')).toBeVisible();
      await page.screenshot({ path: test.info().outputPath('notebook-folded-insert.png') });
      await page.keyboard.press(`${mod}+s`);
      await expect(nb.getByTestId('notebook-dirty')).toHaveCount(0);
      const saved = JSON.parse(await workspace.read('folded.ipynb')) as { cells: { metadata: object }[] };
      expect(saved.cells.map((c) => c.metadata)).toEqual([{}, {}, {}, {}, {}]);
    });
  });

  for (const width of [1280, 1024]) {
    test.describe(`the toolbar at ${width} x 720 with the rail open`, () => {
      test.use({ viewport: { width, height: 720 }, fixtureFiles: { ...DEFAULT_FIXTURE, 'tools.ipynb': TOOLBAR } });

      test('no label is cut, every action is reachable by name and keyboard, icons are named in tooltips', async ({
        page,
        kiln,
      }) => {
        await kiln.open(page);
        await expect(page.getByRole('complementary', { name: 'Edit assistant' })).toBeVisible();
        const nb = await openNotebook(page, 'tools.ipynb');
        const toolbar = nb.getByRole('toolbar', { name: 'Notebook' });
        await expect(toolbar.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
        await cellOf(nb, 1).click();
        await page.keyboard.type('2');
        await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
        await page.keyboard.press('Escape');

        await expectNothingCut(toolbar);
        await page.screenshot({ path: test.info().outputPath(`notebook-toolbar-${width}.png`) });

        // Every action: a button on the bar, or an item of More actions.
        const more = toolbar.getByRole('button', { name: 'More actions' });
        const collapsed = (await more.count()) ? await menuItems(page, more) : [];
        for (const name of [
          'Save notebook',
          'Add cell',
          'Run selected cell',
          'Run all',
          'Interrupt',
          'Restart',
          'Rerun everything in a fresh kernel',
          'Clear all outputs',
          'Variables',
          'Export',
          'Cell type',
        ]) {
          const onBar = toolbar.getByRole(name === 'Cell type' ? 'combobox' : 'button', { name, exact: true });
          if (await onBar.isVisible()) continue;
          const inMenu = name === 'Export' ? 'Export as HTML' : name === 'Cell type' ? 'Cell type: Markdown' : name;
          expect(collapsed, `${name} is on the bar or in More actions`).toContain(inMenu);
        }
        // Each icon-only button's tooltip starts with its name.
        for (const button of await toolbar.locator('button:visible').all()) {
          const name = await button.getAttribute('aria-label');
          if (name) expect(await button.getAttribute('title')).toMatch(new RegExp(`^${name}`));
        }

        if (width === 1024) {
          // Narrow: the least important actions are in the menu, and the keyboard reaches them.
          expect(collapsed).toContain('Export as HTML');
          await more.focus();
          await page.keyboard.press('Enter');
          const menu = page.getByRole('menu', { name: 'More actions' });
          await expect(menu).toBeFocused();
          await page.keyboard.press('Home');
          let guard = 0;
          while ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) !== 'Export as HTML') {
            await page.keyboard.press('ArrowDown');
            expect(++guard).toBeLessThan(20);
          }
          await page.keyboard.press('Enter');
          await expect(page.getByText('Exported to tools.html')).toBeVisible({ timeout: 30_000 });
        }
      });
    });
  }
});

/** No label of the toolbar is clipped: each shows whole (scrollWidth within clientWidth) and inside the bar. */
async function expectNothingCut(toolbar: Locator): Promise<void> {
  const bar = (await toolbar.boundingBox())!;
  const labels = toolbar.locator('.nb-tool-label:visible, .nb-kernel-picker, .nb-celltype:visible');
  expect(await labels.count()).toBeGreaterThan(2);
  for (const label of await labels.all()) {
    const { scrollWidth, clientWidth, text } = await label.evaluate((el) => ({
      scrollWidth: el.scrollWidth,
      clientWidth: el.clientWidth,
      text: el.textContent,
    }));
    expect(scrollWidth, `"${text}" is not cut`).toBeLessThanOrEqual(clientWidth);
    const box = (await label.boundingBox())!;
    expect(box.x + box.width, `"${text}" is inside the toolbar`).toBeLessThanOrEqual(bar.x + bar.width + 0.5);
  }
  // The kernel's name and status in full.
  await expect(toolbar.getByRole('combobox', { name: 'Kernel' })).toHaveAttribute('title', /Python 3/);
}

/** The labels of the More actions menu (opened and closed again). */
async function menuItems(page: Page, more: Locator): Promise<string[]> {
  await more.click();
  const menu = page.getByRole('menu', { name: 'More actions' });
  const labels = await menu
    .getByRole('menuitem')
    .evaluateAll((items) => items.map((i) => i.getAttribute('aria-label')!));
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  return labels;
}
