import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, cellOf, editCell, notebook, openNotebook, outputOf } from './support/notebook';
import { openFile } from './support/ui';

/** The notebook debugger against the real kernel (debugpy). Kernel start-up takes 10-20 s here, hence the timeouts. */

const KERNEL_START = 60_000;
const STEP = 30_000;

test.describe('the notebook debugger', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: {
      ...DEFAULT_FIXTURE,
      'debug.ipynb': notebook(
        cell('code', 'def double(n):\n    twice = n * 2\n    return twice'),
        cell('code', 'a = 20\nb = double(a)\nprint(b)'),
      ),
    },
  });

  test('Debug Cell stops at a gutter breakpoint in another cell, and F10 moves the marker', async ({ page, kiln }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'debug.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
    // Cell 1 defines the function Cell 2 calls.
    await editCell(nb, 1);
    await page.keyboard.press('Shift+Enter');
    await expect(cellOf(nb, 1)).toContainText('[1]:', { timeout: STEP });

    // A click in cell 1's gutter, beside line 2, sets a breakpoint there.
    const editor = cellOf(nb, 1).locator('.nb-editor');
    const lines = cellOf(nb, 1).locator('.view-line');
    const margin = await cellOf(nb, 1).locator('.margin').boundingBox();
    const line2 = await lines.nth(1).boundingBox();
    await page.mouse.click(margin!.x + margin!.width - 3, line2!.y + line2!.height / 2);
    await expect(editor).toHaveAttribute('data-breakpoints', '2');
    await expect(cellOf(nb, 1).locator('.debug-breakpoint')).toHaveCount(1);

    // Debug Cell on cell 2: it stops in cell 1's function, on the breakpoint's line.
    await cellOf(nb, 2).hover();
    await cellOf(nb, 2).getByRole('button', { name: 'Debug Cell' }).click();
    await expect(editor).toHaveAttribute('data-debug-line', '2', { timeout: STEP });
    const stack = page.getByRole('list', { name: 'Call Stack' });
    await expect(stack.getByRole('listitem')).toHaveText([/^double\s*Cell 1:2$/, /^<module>\s*Cell 2:2$/]);
    const panel = page.getByRole('region', { name: 'Debugger' });
    await expect(panel.getByRole('group', { name: 'Locals' })).toContainText('n');
    await panel.getByRole('textbox', { name: 'Evaluate in the selected frame' }).fill('n * 3');
    await page.keyboard.press('Enter');
    await expect(panel.getByRole('log', { name: 'Evaluations' })).toHaveText('n * 3 = 60');
    await page.screenshot({ path: test.info().outputPath('debugger-paused.png') });

    // F10 (Step Over) moves the marker to the next line.
    await page.keyboard.press('F10');
    await expect(editor).toHaveAttribute('data-debug-line', '3', { timeout: STEP });
    await expect(stack.getByRole('listitem').first()).toHaveText(/^double\s*Cell 1:3$/);

    // Continue: the run ends, the panel goes, the cell's output is there.
    await panel.getByRole('button', { name: 'Continue' }).click();
    await expect(panel).toBeHidden({ timeout: STEP });
    await expect(editor).not.toHaveAttribute('data-debug-line', /./);
    await expect(outputOf(nb, 2)).toContainText('40');
  });
});

test.describe('breakpoints in a .py file of the workspace', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: {
      ...DEFAULT_FIXTURE,
      'src/mathops.py': 'def triple(n):\n    tripled = n * 3\n    result = tripled + 1\n    return result\n',
      'calls.ipynb': notebook(cell('code', 'import mathops\nv = mathops.triple(4)\nprint(v)')),
    },
  });

  test('F9 in a src/ module, Debug Cell stops there with the marker in the file, F10 and Shift+F11 move it', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'calls.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });

    // F9 on line 2 of the module sets a breakpoint; a click in the glyph margin sets one and a second clears it.
    await openFile(page, 'src', 'mathops.py');
    const file = page.locator('.code-editor[data-path="src/mathops.py"]');
    const lines = file.locator('.view-line');
    await lines.nth(1).click();
    await page.keyboard.press('F9');
    await expect(file).toHaveAttribute('data-breakpoints', '2');
    const glyphs = await file.locator('.glyph-margin').boundingBox();
    const line4 = await lines.nth(3).boundingBox();
    await page.mouse.click(glyphs!.x + glyphs!.width / 2, line4!.y + line4!.height / 2);
    await expect(file).toHaveAttribute('data-breakpoints', '2,4');
    await page.mouse.click(glyphs!.x + glyphs!.width / 2, line4!.y + line4!.height / 2);
    await expect(file).toHaveAttribute('data-breakpoints', '2');
    await expect(file.locator('.debug-breakpoint')).toHaveCount(1);

    // Debug Cell in the notebook: the run stops in the module, whose tab comes to the front with the line marked.
    await page.getByRole('tab', { name: 'calls.ipynb', exact: true }).click();
    await cellOf(nb, 1).hover();
    await cellOf(nb, 1).getByRole('button', { name: 'Debug Cell' }).click();
    await expect(file).toHaveAttribute('data-debug-line', '2', { timeout: STEP });
    await expect(file).toBeVisible();
    const stack = page.getByRole('list', { name: 'Call Stack' });
    await expect(stack.getByRole('listitem')).toHaveText([/^triple\s*src\/mathops\.py:2$/, /^<module>\s*Cell 1:2$/]);
    const panel = page.getByRole('region', { name: 'Debugger' });
    await expect(panel.getByRole('group', { name: 'Locals' })).toContainText('n');
    await panel.getByRole('textbox', { name: 'Evaluate in the selected frame' }).fill('n * 10');
    await page.keyboard.press('Enter');
    await expect(panel.getByRole('log', { name: 'Evaluations' })).toHaveText('n * 10 = 40');
    await page.screenshot({ path: test.info().outputPath('debugger-paused-in-file.png') });

    // F10 moves the marker down the file; Shift+F11 steps out to the cell, whose notebook comes back.
    await page.keyboard.press('F10');
    await expect(file).toHaveAttribute('data-debug-line', '3', { timeout: STEP });
    await expect(stack.getByRole('listitem').first()).toHaveText(/^triple\s*src\/mathops\.py:3$/);
    await page.keyboard.press('Shift+F11');
    const cellEditor = cellOf(nb, 1).locator('.nb-editor');
    await expect(cellEditor).toHaveAttribute('data-debug-line', '2', { timeout: STEP });
    await expect(stack.getByRole('listitem').first()).toHaveText(/^<module>\s*Cell 1:2$/);

    await page.keyboard.press('F5');
    await expect(panel).toBeHidden({ timeout: STEP });
    await expect(outputOf(nb, 1)).toContainText('13');
  });
});
