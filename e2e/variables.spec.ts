import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { expectAccessible } from './support/axe';
import { cell, editCell, notebook, openNotebook } from './support/notebook';

/** The Variables region against the real kernel. Kernel start-up takes 10-20 s on this machine, hence the timeouts. */

const KERNEL_START = 60_000;
const RUN = 30_000;

test.describe('the Variables region', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: {
      ...DEFAULT_FIXTURE,
      'vars.ipynb': notebook(
        cell('code', 'x = 42'),
        cell(
          'code',
          'import os\nimport numpy as np\nalpha = "a"\nzeta = [1, 2, 3]\nbig = np.zeros(10_000_000)\ndef helper(): pass',
        ),
      ),
    },
  });

  test('shows x = 42 after a run as "x int 42"; sorts, filters and expands', async ({ page, kiln }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'vars.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });

    // Open from the notebook's toolbar before anything ran: the kernel holds nothing yet.
    await nb.getByRole('toolbar', { name: 'Notebook' }).getByRole('button', { name: 'Variables' }).click();
    const region = page.getByRole('region', { name: 'Variables', exact: true });
    await expect(region).toBeVisible();
    const grid = region.getByRole('treegrid');
    await expect(grid).toContainText('The kernel holds no variables yet.', { timeout: RUN });

    // Run x = 42: the region follows the run's end without being asked.
    await editCell(nb, 1);
    await page.keyboard.press('Shift+Enter');
    await expect(grid.getByRole('row', { name: 'x int 42', exact: true })).toBeVisible({ timeout: RUN });

    await nb.getByRole('button', { name: 'Run all', exact: true }).click();
    await expect(grid.getByRole('row', { name: /^big ndarray 10000000 / })).toBeVisible({ timeout: RUN });
    // A module and a function are hidden until Show all.
    const names = () => grid.locator('.variables-name');
    await expect(names()).toHaveText(['alpha', 'big', 'x', 'zeta']);
    await region.getByRole('checkbox', { name: 'Show all' }).check();
    await expect(grid.getByRole('row', { name: /^os module / })).toBeVisible({ timeout: RUN });
    await expect(grid.getByRole('row', { name: /^helper function / })).toBeVisible();
    await region.getByRole('checkbox', { name: 'Show all' }).uncheck();
    await expect(names()).toHaveText(['alpha', 'big', 'x', 'zeta'], { timeout: RUN });

    // Sort by a column's header; again reverses.
    const name = grid.getByRole('columnheader', { name: 'Name' });
    await expect(name).toHaveAttribute('aria-sort', 'ascending');
    await name.click();
    await expect(name).toHaveAttribute('aria-sort', 'descending');
    await expect(names()).toHaveText(['zeta', 'x', 'big', 'alpha']);
    await grid.getByRole('columnheader', { name: 'Size' }).getByRole('button').click();
    await expect(names()).toHaveText(['x', 'alpha', 'big', 'zeta']);
    await grid.getByRole('columnheader', { name: 'Type' }).getByRole('button').click();
    await expect(names()).toHaveText(['x', 'zeta', 'big', 'alpha']);

    // Filter by name.
    await region.getByRole('searchbox', { name: 'Filter variables by name' }).fill('A');
    await expect(names()).toHaveText(['zeta', 'alpha']);
    await region.getByRole('searchbox', { name: 'Filter variables by name' }).fill('');

    // Expand a list: its items, one level down.
    const zeta = grid.getByRole('row', { name: /^zeta list len 3 / });
    await zeta.focus();
    await page.keyboard.press('ArrowRight');
    await expect(zeta).toHaveAttribute('aria-expanded', 'true');
    await expect(grid.getByRole('row', { name: '[2] int 3', exact: true })).toBeVisible({ timeout: RUN });

    // Selecting an array shows its value as NumPy prints it (asked through the kernel debugger's richInspectVariables).
    await grid.getByRole('row', { name: /^big ndarray / }).click();
    await expect(page.getByRole('region', { name: 'Value of big' })).toContainText(
      'array([0., 0., 0., ..., 0., 0., 0.])',
      {
        timeout: RUN,
      },
    );

    await page.screenshot({ path: test.info().outputPath('variables-light.png') });
    await expectAccessible(page, 'variables region');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: test.info().outputPath('variables-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });

    // The palette toggles it too.
    await page.keyboard.press('Control+Shift+p');
    const palette = page.getByRole('dialog', { name: 'Command Palette' });
    await palette.getByRole('combobox').fill('Toggle Variables');
    await page.keyboard.press('Enter');
    await expect(region).toHaveCount(0);
  });
});
