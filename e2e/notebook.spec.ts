import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { mod } from './support/ui';
import { cell, cellOf, notebook, openNotebook, outputOf } from './support/notebook';

/**
 * The notebook view against the real Jupyter (Debian's jupyter-server + ipykernel), started lazily by the
 * web host when the first notebook opens. Kernel start-up takes 10-20 s on this machine, hence the timeouts.
 */

const KERNEL_START = 60_000;
const RUN = 30_000;

/** An 8×8 PNG (orange/blue checks), embedded so no plotting library is needed. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAH0lEQVR42mPQyLsDRM+iNIAImc2AUwJTCMLGLUEHOwCpFVtBhCczLwAAAABJRU5ErkJggg==';

async function kernelIdle(nb: Locator): Promise<void> {
  await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
}

/** Replaces a cell's source by typing into its Monaco editor. */
async function typeInto(page: Page, nb: Locator, n: number, text: string): Promise<void> {
  await cellOf(nb, n).locator('.nb-editor .view-lines').click();
  await page.keyboard.press(`${mod}+A`);
  await page.keyboard.type(text);
}

test.describe('notebook', () => {
  test.describe.configure({ timeout: 240_000 });

  test.describe('the notebook tab', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'notes.ipynb': notebook(cell('code', 'a = 1')) } });

    test("shows unsaved changes, and closing asks: Save writes the notebook, Don't Save keeps the disk", async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'notes.ipynb');
      const tab = page.getByRole('tab', { name: 'notes.ipynb' });
      await typeInto(page, nb, 1, 'a = 2');
      await expect(tab).toHaveAttribute('data-dirty', 'true');
      await page.getByRole('button', { name: 'Close notes.ipynb' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Save', exact: true }).click();
      await expect(tab).toHaveCount(0);
      await expect
        .poll(async () => [JSON.parse(await workspace.read('notes.ipynb')).cells[0].source].flat().join(''))
        .toBe('a = 2');

      const again = await openNotebook(page, 'notes.ipynb');
      await typeInto(page, again, 1, 'a = 3');
      await expect(tab).toHaveAttribute('data-dirty', 'true');
      await page.getByRole('button', { name: 'Close notes.ipynb' }).click();
      await page.getByRole('dialog').getByRole('button', { name: "Don't Save" }).click();
      await expect(tab).toHaveCount(0);
      const reopened = await openNotebook(page, 'notes.ipynb');
      await expect(cellOf(reopened, 1)).toContainText('a = 2');
      expect([JSON.parse(await workspace.read('notes.ipynb')).cells[0].source].flat().join('')).toBe('a = 2');
    });
  });

  test.describe('a notebook with text, an image and an error', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'analysis.ipynb': notebook(
          cell('code', 'x = 6 * 7\nprint("answer", x)'),
          cell(
            'code',
            `import base64\nfrom IPython.display import Image, display\ndisplay(Image(data=base64.b64decode("${PNG_BASE64}"), width=64))`,
          ),
          cell('code', 'x / 0'),
          cell('markdown', '## Notes\n\nSome *notes*.'),
        ),
      },
    });

    test('runs cells, shows text, an image and a traceback; re-runs, deletes, saves and reopens', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'analysis.ipynb');
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(4);
      await expect(cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true })).toBeVisible();
      // The markdown cell shows rendered.
      await expect(outputOf(nb, 4).getByRole('heading', { name: 'Notes' })).toBeVisible();
      await kernelIdle(nb);

      // Run all stops at the error, as JupyterLab does.
      await nb.getByRole('button', { name: 'Run all', exact: true }).click();
      await expect(outputOf(nb, 1)).toContainText('answer 42', { timeout: RUN });
      await expect(cellOf(nb, 1).locator('.nb-prompt')).toHaveText('[1]:');
      const image = outputOf(nb, 2).getByRole('img', { name: 'PNG output' });
      await expect(image).toBeVisible({ timeout: RUN });
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);
      await expect(outputOf(nb, 3)).toContainText('ZeroDivisionError', { timeout: RUN });
      // The traceback keeps IPython's colours (ANSI escapes turned into styled spans, none left as text).
      await expect(outputOf(nb, 3).locator('[class*="ansi-fg-"]').first()).toBeVisible();
      expect(await outputOf(nb, 3).innerText()).not.toContain('\u001b[');
      await expect(nb.getByTestId('notebook-dirty')).toBeVisible();

      // Re-run the first cell: a new execution count, the other cells' outputs stay.
      await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
      await expect(cellOf(nb, 1).locator('.nb-prompt')).toHaveText('[4]:', { timeout: RUN });
      await expect(outputOf(nb, 1)).toHaveText(/answer 42/);
      await expect(image).toBeVisible();

      // Edit the failing cell and re-run it: earlier variables are still in scope.
      await typeInto(page, nb, 3, 'print(x + 1)');
      await page.keyboard.press(`${mod}+Enter`);
      await expect(outputOf(nb, 3)).toHaveText(/^\s*43\s*$/, { timeout: RUN });

      // Delete the markdown cell from its cell toolbar.
      await cellOf(nb, 4).hover();
      await cellOf(nb, 4).getByRole('button', { name: 'Delete cell' }).click();
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(3);

      // Save with Ctrl/Cmd+S: valid nbformat JSON with the outputs.
      await cellOf(nb, 1).locator('.nb-editor .view-lines').click();
      await page.keyboard.press(`${mod}+s`);
      await expect(nb.getByTestId('notebook-dirty')).toHaveCount(0);
      const saved = JSON.parse(await workspace.read('analysis.ipynb')) as {
        cells: {
          cell_type: string;
          source: string[] | string;
          outputs?: { output_type: string; text?: string[]; data?: Record<string, unknown> }[];
        }[];
        nbformat: number;
      };
      expect(saved.nbformat).toBe(4);
      expect(saved.cells).toHaveLength(3);
      expect(saved.cells.map((c) => c.cell_type)).toEqual(['code', 'code', 'code']);
      expect(JSON.stringify(saved.cells[0].outputs)).toContain('answer 42');
      expect(saved.cells[1].outputs?.some((o) => o.data && 'image/png' in o.data)).toBe(true);
      expect([saved.cells[2].source].flat().join('')).toBe('print(x + 1)');
      expect(JSON.stringify(saved.cells[2].outputs)).toContain('43');

      // Reopen: close the tab (the kernel goes away), reload the window, open again: outputs come from disk.
      await page.getByRole('button', { name: 'Close analysis.ipynb' }).click();
      await expect(nb).toHaveCount(0);
      await page.reload();
      await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
      const again = await openNotebook(page, 'analysis.ipynb');
      await expect(again.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(3);
      await expect(outputOf(again, 1)).toContainText('answer 42');
      await expect(outputOf(again, 2).getByRole('img', { name: 'PNG output' })).toBeVisible();
      await expect(outputOf(again, 3)).toContainText('43');
      await expect(cellOf(again, 1).locator('.nb-prompt')).toHaveText('[4]:');
    });
  });

  test.describe('rich outputs', () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="teal"/><script>parent.__pwned = 4</script></svg>';
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'rich.ipynb': notebook(
          cell(
            'markdown',
            '# Title\n\nText with a [link](https://example.com).\n\n<img src="nowhere.png" onerror="window.__pwned = 1"><script>window.__pwned = 2</script>',
          ),
          cell(
            'code',
            [
              'from IPython.display import HTML, SVG, JSON, Markdown, Latex, display',
              'display(HTML("<b>bold html</b><script>parent.__pwned = 3</script>"))',
              `display(SVG(${JSON.stringify(svg)}))`,
              'display(JSON({"nested": {"list": [1, 2]}}))',
              'display(Markdown("**strong** words"))',
              'display(Latex(r"$\\alpha^2$"))',
            ].join('\n'),
          ),
        ),
      },
    });

    test('HTML in a script-less sandbox, SVG as an image, JSON, markdown and LaTeX; nothing runs', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'rich.ipynb');
      await expect(outputOf(nb, 1).getByRole('heading', { name: 'Title' })).toBeVisible();
      await expect(outputOf(nb, 1).getByRole('link', { name: 'link' })).toBeVisible();
      await kernelIdle(nb);
      await cellOf(nb, 2).getByRole('button', { name: 'Run cell', exact: true }).click();
      const out = outputOf(nb, 2);
      const frame = out.locator('iframe[title="HTML output"]');
      await expect(frame).toHaveAttribute('sandbox', '', { timeout: RUN });
      await expect(page.frameLocator('iframe[title="HTML output"]').locator('b')).toHaveText('bold html');
      const svgImage = out.getByRole('img', { name: 'SVG output' });
      await expect(svgImage).toBeVisible();
      await expect(svgImage).toHaveAttribute('src', /^data:image\/svg\+xml/);
      await expect(out.getByRole('group', { name: 'JSON output' })).toContainText('nested');
      await expect(out.locator('strong')).toHaveText('strong');
      await expect(out.locator('.nb-out-latex .katex')).toBeVisible();
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    });
  });

  test.describe('exact numbers', () => {
    // As Python's json writes them: floats that JavaScript would print as 1, 0.00001 or 100000000000000000000.
    const exact = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "exact-1",
   "metadata": {},
   "outputs": [
    {
     "data": {
      "application/json": {
       "big": 123456789012345678901234567890,
       "missing": NaN,
       "small": 1e-05,
       "wide": 1e+20,
       "x": 1.0
      }
     },
     "execution_count": 1,
     "metadata": {},
     "output_type": "execute_result"
    }
   ],
   "source": [
    "JSON(data)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`;
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'exact.ipynb': exact } });

    test('an application/json output shows its numbers as the file has them', async ({ page, kiln }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'exact.ipynb');
      const json = outputOf(nb, 1).getByRole('group', { name: 'JSON output' });
      await expect(json).toContainText('x: 1.0');
      await expect(json).toContainText('small: 1e-05');
      await expect(json).toContainText('wide: 1e+20');
      await expect(json).toContainText('big: 123456789012345678901234567890');
      await expect(json).toContainText('missing: NaN');
      await page.screenshot({ path: test.info().outputPath('exact-json.png') });
    });
  });

  test.describe('a corrupt notebook', () => {
    const corrupt = '{"cells": [ {"cell_type": "code", oops';
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'broken.ipynb': corrupt } });

    test('shows an alert naming the problem and opens as text; the file is untouched', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'broken.ipynb' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'broken.ipynb' });
      await expect(alert).toBeVisible();
      await expect(alert).toContainText('not valid JSON');
      await alert.getByRole('button', { name: 'Open as text' }).click();
      await expect(page.locator('.code-editor .view-lines')).toContainText('oops');
      expect(await workspace.read('broken.ipynb')).toBe(corrupt);
    });
  });

  test.describe('long runs', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'long.ipynb': notebook(
          cell('code', 'import time\nprint("sleeping", flush=True)\ntime.sleep(120)'),
          cell('code', 'for i in range(100000):\n    print("line", i)'),
          cell('code', 'name = input("Your name: ")\nprint("hi", name)'),
        ),
      },
    });

    test('interrupts time.sleep, truncates 100,000 lines with Show more, answers input(), and knows the keys', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'long.ipynb');
      await kernelIdle(nb);

      // Interrupt a sleeping cell.
      await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
      await expect(outputOf(nb, 1)).toContainText('sleeping', { timeout: RUN });
      await expect(nb.getByRole('status')).toHaveText('busy');
      await expect(cellOf(nb, 1).locator('.nb-prompt')).toHaveText('[*]:');
      await nb.getByRole('button', { name: 'Interrupt', exact: true }).click();
      await expect(outputOf(nb, 1)).toContainText('KeyboardInterrupt', { timeout: RUN });
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: RUN });

      // 100,000 lines: the head and the tail are shown, the middle behind "Show more".
      await cellOf(nb, 2).getByRole('button', { name: 'Run cell', exact: true }).click();
      await expect(outputOf(nb, 2)).toContainText('line 99999', { timeout: 60_000 });
      const more = outputOf(nb, 2).getByRole('button', { name: 'Show more' });
      await expect(more).toBeVisible();
      await expect(outputOf(nb, 2).getByRole('note')).toContainText('100,000 in all');
      const shownBefore = (await outputOf(nb, 2).innerText()).split('\n').length;
      expect(shownBefore).toBeLessThan(1000);
      await more.click();
      await expect
        .poll(async () => (await outputOf(nb, 2).innerText()).split('\n').length)
        .toBeGreaterThan(shownBefore + 4000);

      // input(): a prompt box in the output; the answer reaches the kernel.
      await cellOf(nb, 3).getByRole('button', { name: 'Run cell', exact: true }).click();
      const answer = outputOf(nb, 3).getByRole('textbox', { name: 'Your name:' });
      await expect(answer).toBeVisible({ timeout: RUN });
      await answer.fill('Ada');
      await answer.press('Enter');
      await expect(outputOf(nb, 3)).toContainText('hi Ada', { timeout: RUN });

      // Keys: Escape to command mode, B inserts below, Enter edits, Shift+Enter runs (and adds a cell at the end),
      // D D deletes, Z brings it back, M makes it markdown.
      await cellOf(nb, 3).locator('.nb-editor .view-lines').click();
      await page.keyboard.press('Escape');
      await expect(cellOf(nb, 3)).toBeFocused();
      await page.keyboard.press('b');
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(4);
      await expect(cellOf(nb, 4)).toBeFocused();
      await page.keyboard.press('Enter');
      await expect(cellOf(nb, 4).locator('.monaco-editor.focused')).toHaveCount(1);
      await page.keyboard.type('6 * 7');
      await page.keyboard.press('Shift+Enter');
      await expect(outputOf(nb, 4)).toContainText('42', { timeout: RUN });
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(5);
      await page.keyboard.type('"fifth"');
      await page.keyboard.press('Alt+Enter');
      await expect(outputOf(nb, 5)).toContainText('fifth', { timeout: RUN });
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(6);
      await page.keyboard.press('Escape');
      await expect(cellOf(nb, 6)).toBeFocused();
      await page.keyboard.press('d');
      await page.keyboard.press('d');
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(5);
      await expect(cellOf(nb, 5)).toBeFocused();
      await page.keyboard.press('z');
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(6);
      await expect(cellOf(nb, 6)).toBeFocused();
      await page.keyboard.press('m');
      await expect(cellOf(nb, 6)).toHaveAttribute('data-cell-type', 'markdown');

      // Restart keeps outputs.
      await nb.getByRole('button', { name: 'Restart', exact: true }).click();
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
      await expect(outputOf(nb, 4)).toContainText('42');
    });
  });

  test.describe('changed on disk', () => {
    // Another program rewriting the notebook keeps the cell's id, as Jupyter does.
    const shared = (source: string) => notebook({ ...cell('code', source), id: 'shared-cell' });
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'shared.ipynb': shared('a = 1') } });

    test('a clean notebook follows the disk; a dirty one gets the conflict bar with Reload and Overwrite', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'shared.ipynb');
      const source = cellOf(nb, 1).locator('.nb-editor .view-lines');
      await expect(source).toContainText('a = 1');

      await workspace.write('shared.ipynb', shared('a = 2'));
      await expect(source).toContainText('a = 2');
      await expect(nb.getByTestId('notebook-dirty')).toHaveCount(0);

      await typeInto(page, nb, 1, 'a = 3');
      await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
      await workspace.write('shared.ipynb', shared('a = 4'));
      const bar = nb.getByRole('alert', { name: 'Changed on disk' });
      await expect(bar).toBeVisible();
      await expect(source).toContainText('a = 3');
      await bar.getByRole('button', { name: 'Reload' }).click();
      await expect(source).toContainText('a = 4');
      await expect(bar).toHaveCount(0);
      await expect(nb.getByTestId('notebook-dirty')).toHaveCount(0);

      await typeInto(page, nb, 1, 'a = 5');
      await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
      await workspace.write('shared.ipynb', shared('a = 6'));
      await expect(bar).toBeVisible();
      await bar.getByRole('button', { name: 'Overwrite' }).click();
      await expect(bar).toHaveCount(0);
      await expect
        .poll(async () => [JSON.parse(await workspace.read('shared.ipynb')).cells[0].source].flat().join(''))
        .toBe('a = 5');
    });
  });

  test.describe('a kernel that dies', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'crash.ipynb': notebook(cell('code', 'print("still here")'), cell('code', 'import os\nos._exit(1)')),
      },
    });

    test('keeps the notebook and its outputs and says so in an alert', async ({ page, kiln }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'crash.ipynb');
      await kernelIdle(nb);
      await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
      await expect(outputOf(nb, 1)).toContainText('still here', { timeout: RUN });
      await cellOf(nb, 2).getByRole('button', { name: 'Run cell', exact: true }).click();
      await expect(nb.getByRole('alert').first()).toBeVisible({ timeout: RUN });
      await expect(outputOf(nb, 1)).toContainText('still here');
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(2);
      // Jupyter restarts a crashed kernel; the status comes back and cells run again (without old variables).
      await expect(nb.getByRole('status')).toHaveText(/idle|dead/, { timeout: KERNEL_START });
    });
  });

  test.describe('an nbformat 4.4 file whose cells carry ids (as several JupyterLab versions wrote them)', () => {
    const v44 = JSON.stringify(
      { ...JSON.parse(notebook(cell('markdown', '# Title'), cell('code', 'x = 1'))), nbformat_minor: 4 },
      null,
      1,
    );
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'old.ipynb': v44,
        '.kiln/config.yaml': 'jupyter:\n  command: /nonexistent/jupyter\n',
      },
    });

    test('opens as 4.5 with a warning, keeps the ids, and saves nbformat 4.5', async ({ page, kiln, workspace }) => {
      const ids = JSON.parse(v44).cells.map((c: { id: string }) => c.id);
      await kiln.open(page);
      const nb = await openNotebook(page, 'old.ipynb');
      await expect(nb.getByRole('note')).toContainText('This notebook was nbformat 4.4; Kiln opened it as 4.5');
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(2);
      await page.screenshot({ path: test.info().outputPath('kiln-nb-upgraded.png') });
      await nb.getByRole('button', { name: 'Add cell', exact: true }).click();
      await expect(cellOf(nb, 2).locator('.monaco-editor.focused')).toHaveCount(1);
      await page.keyboard.type('y = 2');
      await page.keyboard.press(`${mod}+s`);
      await expect.poll(async () => JSON.parse(await workspace.read('old.ipynb')).cells.length).toBe(3);
      const saved = JSON.parse(await workspace.read('old.ipynb'));
      expect(saved.nbformat_minor).toBe(5);
      expect(saved.cells.map((c: { id: string }) => c.id).filter((id: string) => ids.includes(id))).toEqual(ids);
    });
  });

  test.describe('without Jupyter', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'plain.ipynb': notebook(cell('code', 'print(1)')),
        '.kiln/config.yaml': 'jupyter:\n  command: /nonexistent/jupyter\n',
      },
    });

    test('says what to install, once, and the notebook still edits and saves', async ({ page, kiln, workspace }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'plain.ipynb');
      const alert = nb.getByRole('alert').filter({ hasText: 'Jupyter' });
      await expect(alert).toBeVisible({ timeout: RUN });
      await expect(alert).toContainText('jupyter-server');
      await expect(alert).toHaveCount(1);
      // Running says so again in the same single alert, not one per cell.
      await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
      await expect(alert).toHaveCount(1);
      await expect(nb.getByRole('status')).toHaveText('no kernel');
      await nb.getByRole('button', { name: 'Add cell', exact: true }).click();
      await expect(nb.getByRole('group', { name: /^Cell \d+$/ })).toHaveCount(2);
      await expect(cellOf(nb, 2).locator('.monaco-editor.focused')).toHaveCount(1);
      await page.keyboard.type('y = 2');
      await page.keyboard.press(`${mod}+s`);
      await expect.poll(async () => JSON.parse(await workspace.read('plain.ipynb')).cells.length).toBe(2);
      expect(JSON.parse(await workspace.read('plain.ipynb')).cells[1].source).toEqual(['y = 2']);
    });
  });
});
