import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, notebook, openNotebook } from './support/notebook';
import { clipboardText } from './support/ui';

/** The data viewer against the real kernel: opened from the Variables region, sorted and filtered kernel-side. */

const KERNEL_START = 60_000;
const RUN = 30_000;

test.describe('the data viewer', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: {
      ...DEFAULT_FIXTURE,
      'frames.ipynb': notebook(
        cell(
          'code',
          'import pandas as pd\ndf = pd.DataFrame({"city": ["Oslo", "Lima", "Pune", "Kobe"], "temp": [3.5, 19.0, 31.0, 12.0]})',
        ),
      ),
      'results.ipynb': notebook(
        cell('code', 'import pandas as pd\ndf = pd.DataFrame({"n": [2, 3, 1]}); df'),
        cell('code', 'pd.Series([5, 4, 6], name="s") * 2'),
      ),
    },
  });

  test("opens a cell's DataFrame result from its output menu, by name or by Out[n], and sorts it", async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'results.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
    await nb.getByRole('button', { name: 'Run all', exact: true }).click();
    const outputs = nb.locator('.nb-output-execute_result');
    await expect(outputs).toHaveCount(2, { timeout: RUN });

    // The frame's cell ends with its name: the tab follows the variable, named after it.
    await outputs.nth(0).getByRole('button', { name: 'Output menu' }).click();
    await page.getByRole('menuitem', { name: 'Open in Data Viewer' }).click();
    const grid = page.getByRole('grid', { name: 'df', exact: true });
    const firstColumn = () => grid.locator('.dv-row:not(.dv-head):not(.dv-summary) .dv-cell:nth-child(2)');
    await expect(firstColumn()).toHaveText(['2', '3', '1'], { timeout: RUN });
    await grid.getByRole('columnheader', { name: /n/ }).getByRole('button').click();
    await expect(firstColumn()).toHaveText(['1', '2', '3'], { timeout: RUN });
    await page.screenshot({ path: test.info().outputPath('data-viewer-from-output.png') });

    // A result of an expression (text/plain only, right-clicked) is found in Out by its execution count.
    await openNotebook(page, 'results.ipynb');
    await outputs.nth(1).locator('.nb-out-rich').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Open in Data Viewer' }).click();
    const series = page.getByRole('grid', { name: 'Out[2]', exact: true });
    await expect(series.locator('.dv-row:not(.dv-head):not(.dv-summary) .dv-cell:nth-child(2)')).toHaveText(
      ['10', '8', '12'],
      { timeout: RUN },
    );

    // The kernel restarted: Out is empty, and the tab says so.
    await openNotebook(page, 'results.ipynb');
    await nb.getByRole('button', { name: 'Restart', exact: true }).click();
    await page.getByRole('tab', { name: /Out\[2\]/ }).click();
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'Out[2]' })).toContainText(
        'Out[2] is no longer in the kernel: its output history was cleared or the kernel restarted',
        { timeout: 2_000 },
      );
    }).toPass({ timeout: KERNEL_START });
  });

  test('opens a DataFrame from the Variables region, sorts and filters it, copies TSV and exports CSV', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'frames.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
    await nb.getByRole('button', { name: 'Run all', exact: true }).click();
    // From the palette: the toolbar's Variables button may sit in its overflow menu on a narrow window.
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type('Toggle Variables');
    await page.keyboard.press('Enter');
    const region = page.getByRole('region', { name: 'Variables', exact: true });
    await region.getByRole('button', { name: 'View df as data' }).click({ timeout: RUN });

    const grid = page.getByRole('grid', { name: 'df', exact: true });
    await expect(grid).toBeVisible();
    const firstColumn = () => grid.locator('.dv-row:not(.dv-head):not(.dv-summary) .dv-cell:nth-child(2)');
    await expect(firstColumn()).toHaveText(['Oslo', 'Lima', 'Pune', 'Kobe'], { timeout: RUN });
    await expect(grid.getByRole('columnheader', { name: /temp/ })).toContainText('float64');
    await expect(grid.locator('.dv-summary')).toContainText('4 values · 3.5 – 31', { timeout: RUN });

    // Sorting asks the kernel: descending by temp after two clicks.
    const temp = grid.getByRole('columnheader', { name: /temp/ });
    await temp.getByRole('button').click();
    await expect(temp).toHaveAttribute('aria-sort', 'ascending');
    await expect(firstColumn()).toHaveText(['Oslo', 'Kobe', 'Lima', 'Pune'], { timeout: RUN });
    await temp.getByRole('button').click();
    await expect(firstColumn()).toHaveText(['Pune', 'Lima', 'Kobe', 'Oslo'], { timeout: RUN });

    // A number condition: temp > 10 leaves three rows.
    await grid.getByRole('textbox', { name: 'Filter temp' }).fill('> 10');
    await page.keyboard.press('Enter');
    await expect(firstColumn()).toHaveText(['Pune', 'Lima', 'Kobe'], { timeout: RUN });
    await expect(page.getByRole('status', { name: 'Rows' })).toHaveText('3 of 4 rows × 2 columns');

    // Copy a selection (two rows, both columns) as TSV.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await firstColumn().nth(0).click();
    await grid
      .locator('.dv-row:not(.dv-head):not(.dv-summary) .dv-cell:nth-child(3)')
      .nth(1)
      .click({ modifiers: ['Shift'] });
    await page.keyboard.press('Control+c');
    await expect.poll(() => clipboardText(page)).toBe('city\ttemp\nPune\t31\nLima\t19');

    await page.screenshot({ path: test.info().outputPath('data-viewer.png') });

    // Export the filtered view as CSV into the workspace.
    await page.getByRole('button', { name: 'Export CSV…' }).click();
    await page.getByRole('textbox', { name: 'Export to' }).fill('out/hot.csv');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await expect(page.getByRole('status', { name: 'Export' })).toHaveText('Exported 3 rows to out/hot.csv', {
      timeout: RUN,
    });
    expect(await workspace.read('out/hot.csv')).toBe(',city,temp\n2,Pune,31.0\n1,Lima,19.0\n3,Kobe,12.0\n');
  });
});
