import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, cellOf, editCell, notebook, openNotebook, suggestions } from './support/notebook';

/**
 * The live kernel helping to write code (completion, inspection, signature help) and each cell's timing,
 * against the real Jupyter. Kernel start-up takes 10-20 s on this machine, hence the timeouts.
 */

const KERNEL_START = 60_000;
const RUN = 30_000;
/** Main's bound for a busy kernel (ASSIST_TIMEOUT_MS, 1.5 s), plus the round trip and a loaded machine's slack. */
const BUSY_ANSWER = 4_000;

/** A notebook of code cells with these sources. */
function codeNotebook(...sources: string[]): string {
  return notebook(...sources.map((source) => cell('code', source)));
}

/**
 * Suggest rows offering `path` that came from the kernel: the cell's own words (kind Text) may offer it too when the
 * keys that typed it arrive while Monaco is still asking.
 */
const kernelPathItems = (page: Page) =>
  page.locator('.suggest-widget.visible .monaco-list-row[aria-label^="path,"]:not([aria-label^="path, Text"])');

/** Opens the notebook and waits for its kernel. */
async function openWithKernel(page: Page, name: string): Promise<Locator> {
  const nb = await openNotebook(page, name);
  await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
  return nb;
}

test.describe('the kernel helps write the code', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: { ...DEFAULT_FIXTURE, 'assist.ipynb': codeNotebook('', '', 'import time\ntime.sleep(30)') },
    // The kernel's items merge with the language server's.
    languageServer: 'on',
  });

  test('Tab and `.` complete from the kernel, Shift+Tab shows the docstring, `(` the signature', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const nb = await openWithKernel(page, 'assist.ipynb');
    await editCell(nb, 1);

    // `.` after a name asks the kernel.
    await page.keyboard.type('import os; os.');
    await expect(suggestions(page)).toBeVisible({ timeout: RUN });
    // os's names, from the kernel (the cell has none of them).
    await expect(suggestions(page).getByRole('option', { name: /^abc\b/ })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(suggestions(page)).toHaveCount(0);

    // Tab after `os.pa` offers path, with its kind; Enter takes it.
    await page.keyboard.type('pa');
    await page.keyboard.press('Tab');
    const path = suggestions(page).getByRole('option', { name: /^path\b/ });
    await expect(path).toBeVisible({ timeout: RUN });
    // The kernel's kinds are the icons (pardir is a 'statement': a variable).
    const pardir = suggestions(page).getByRole('option', { name: /^pardir\b/ });
    await expect(pardir.locator('.codicon-symbol-variable')).toHaveCount(1);
    await page.screenshot({ path: test.info().outputPath('nbkernel-completion.png') });
    await path.click();
    await expect(cellOf(nb, 1).locator('.view-lines')).toHaveText('import os; os.path');

    // Tab at a line's start still indents.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.type('x');
    await expect(cellOf(nb, 1).locator('.view-lines')).toContainText(/\s{4}x/);
    await expect(suggestions(page)).toHaveCount(0);

    // Shift+Tab on `len(` shows len's docstring; again, more.
    await editCell(nb, 2);
    await page.keyboard.type('len(');
    const signature = page.locator('.parameter-hints-widget');
    await expect(signature).toContainText('len(obj, /)', { timeout: RUN });
    await page.keyboard.press('Shift+Tab');
    const inspection = page.getByRole('tooltip', { name: 'Kernel inspection' });
    await expect(inspection).toContainText('Return the number of items in a container', { timeout: RUN });
    await page.screenshot({ path: test.info().outputPath('nbkernel-inspect.png') });
    await expect(inspection).toContainText('Shift+Tab again for more');
    await page.keyboard.press('Shift+Tab');
    await expect(inspection).not.toContainText('Shift+Tab again for more');
    // Escape closes the panel and stays in the editor.
    await page.keyboard.press('Escape');
    await expect(inspection).toHaveCount(0);
    await expect(cellOf(nb, 2).locator('.monaco-editor.focused')).toHaveCount(1);

    // Hovering a name shows its docstring after a short pause.
    await cellOf(nb, 2).locator('.view-line span', { hasText: /^len$/ }).first().hover();
    await expect(page.locator('.monaco-hover:not(.hidden)')).toContainText('Return the number of items', {
      timeout: RUN,
    });
    await page.screenshot({ path: test.info().outputPath('nbkernel-hover.png') });
  });

  test('a busy kernel never blocks typing, and completion says "kernel busy" within the bound', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const nb = await openWithKernel(page, 'assist.ipynb');
    await cellOf(nb, 3).getByRole('button', { name: 'Run cell', exact: true }).click();
    await expect(nb.getByRole('status')).toHaveText('busy', { timeout: RUN });

    await editCell(nb, 1);
    await page.keyboard.type('import os; os.pa');
    await expect(cellOf(nb, 1).locator('.view-lines')).toHaveText('import os; os.pa');
    const asked = Date.now();
    await page.keyboard.press('Tab');
    const busy = page.getByRole('tooltip', { name: 'Kernel inspection' });
    await expect(busy).toContainText('Kernel busy', { timeout: BUSY_ANSWER });
    expect(Date.now() - asked).toBeLessThan(BUSY_ANSWER);
    await page.screenshot({ path: test.info().outputPath('nbkernel-busy.png') });
    // Typing goes on meanwhile.
    await page.keyboard.press('Escape');
    await page.keyboard.type('th');
    await expect(cellOf(nb, 1).locator('.view-lines')).toHaveText('import os; os.path');

    await nb.getByRole('button', { name: 'Interrupt', exact: true }).click();
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: RUN });
  });
});

test.describe('no running kernel', () => {
  test.describe.configure({ timeout: 180_000 });

  test.describe('restarting', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'restart.ipynb': codeNotebook('import os; os.pa') } });

    test('a restarting kernel gives no completion and no error toast; once back, it completes again', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openWithKernel(page, 'restart.ipynb');
      await nb.getByRole('button', { name: 'Restart', exact: true }).click();
      await expect(nb.getByRole('status')).not.toHaveText(/idle|busy/);
      // While it restarts: Tab asks nothing of it, shows no kernel items and no error, and typing goes on.
      await cellOf(nb, 1).locator('.nb-editor .view-lines').click();
      await page.keyboard.press('End');
      const restarting = (await nb.getByRole('status').textContent()) ?? '';
      await page.keyboard.press('Tab');
      await page.keyboard.type('th');
      await expect(cellOf(nb, 1).locator('.view-lines')).toHaveText(/import\sos;\sos\.path/);
      if (!/idle|busy/.test(restarting)) await expect(kernelPathItems(page)).toHaveCount(0);
      await expect(page.locator('.toasts [role="alert"]')).toHaveCount(0);
      await page.screenshot({ path: test.info().outputPath('nbkernel-restarting.png') });

      // Back: the same Tab offers `path`.
      // The language server's suggestions for the typed `th` may open the widget late: close it whenever it shows.
      await expect(async () => {
        if (await suggestions(page).isVisible()) await page.keyboard.press('Escape');
        await expect(suggestions(page)).toHaveCount(0, { timeout: 1_000 });
      }).toPass();
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
      await cellOf(nb, 1).locator('.nb-editor .view-lines').click();
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      // A Tab pressed as the restarted kernel turns idle was seen cancelled once ("No suggestions."): press it again,
      // as an operator would.
      await expect(async () => {
        if (await suggestions(page).isVisible()) await page.keyboard.press('Escape');
        await page.keyboard.press('Tab');
        await expect(suggestions(page)).toContainText('path', { timeout: 8_000 });
      }).toPass({ timeout: RUN });
      await expect(page.locator('.toasts [role="alert"]')).toHaveCount(0);
    });
  });

  test.describe('none at all', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'nokernel.ipynb': codeNotebook('import os; os.pa', 'path_of_mine = 1'),
        '.kiln/config.yaml': 'jupyter:\n  command: /nonexistent/jupyter\n',
      },
    });

    test('Tab offers no kernel items, Shift+Tab says no kernel is running, and no error toast', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'nokernel.ipynb');
      await expect(nb.getByRole('status')).toHaveText('no kernel', { timeout: KERNEL_START });
      const toastsBefore = await page.locator('.toasts [role="alert"]').count();
      await editCell(nb, 1);
      await page.keyboard.press('End');
      await page.keyboard.press('Tab');
      await page.keyboard.type('th');
      await expect(cellOf(nb, 1).locator('.view-lines')).toHaveText(/import\sos;\sos\.p/);
      // The notebook's own words still complete; nothing from a kernel.
      await expect(suggestions(page).getByRole('option', { name: /^path_of_mine\b/ })).toBeVisible();
      await expect(kernelPathItems(page)).toHaveCount(0);
      // Shift+Tab says why there is no docstring, quietly at the cursor (no request, no error). With the suggest widget
      // open it would take the item instead, as in VS Code, so the widget is closed first.
      await page.keyboard.press('Escape');
      await expect(suggestions(page)).toHaveCount(0);
      await page.keyboard.press('Shift+Tab');
      await expect(page.getByRole('tooltip', { name: 'Kernel inspection' })).toHaveText('No kernel is running.');
      await expect(page.locator('.toasts [role="alert"]')).toHaveCount(toastsBefore);
      await page.screenshot({ path: test.info().outputPath('nbkernel-none.png') });
    });
  });
});

test.describe('the cell tells you what happened', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: { ...DEFAULT_FIXTURE, 'timed.ipynb': codeNotebook('import time\ntime.sleep(1.5)\nprint("done")') },
  });

  test('a running cell shows its elapsed time, then its duration and when it finished', async ({ page, kiln }) => {
    await kiln.open(page);
    const nb = await openWithKernel(page, 'timed.ipynb');
    const timing = cellOf(nb, 1).locator('.nb-timing');
    await expect(timing).toHaveCount(0);
    await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
    // Live while it runs: the elapsed time counts up.
    await expect(timing).toHaveAttribute('data-running', '', { timeout: RUN });
    const first = await timing.innerText();
    await expect(timing).not.toHaveText(first);
    await page.screenshot({ path: test.info().outputPath('nbkernel-timing-running.png') });
    // Then "1.5 s, 14:02".
    await expect(cellOf(nb, 1).getByRole('region', { name: 'Output' })).toContainText('done', { timeout: RUN });
    await expect(timing).toHaveText(/^1\.\d s, \d\d:\d\d$/);
    await expect(timing).not.toHaveAttribute('data-running');
    await page.screenshot({ path: test.info().outputPath('nbkernel-timing.png') });
  });
});
