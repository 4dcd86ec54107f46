import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, cellOf, editCell, notebook, openNotebook, outputOf } from './support/notebook';
import { mod, openFile } from './support/ui';

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
    // Paused on the breakpoint's line: one mark says both.
    await expect(file.locator('.debug-current-on-breakpoint')).toHaveCount(1);
    await expect(file.locator('.debug-breakpoint')).toHaveCount(0);
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

  test('breakpoints move with the lines the operator edits, in a file and in a cell, and stay moved', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    await openFile(page, 'src', 'mathops.py');
    const file = page.locator('.code-editor[data-path="src/mathops.py"]');
    await file.locator('.view-line').nth(1).click();
    await page.keyboard.press('F9');
    await expect(file).toHaveAttribute('data-breakpoints', '2');
    // A line inserted above carries the breakpoint down with its code; deleting it carries it back.
    await file.locator('.view-line').nth(0).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('# a note');
    await expect(file).toHaveAttribute('data-breakpoints', '3');

    const nb = await openNotebook(page, 'calls.ipynb');
    const editor = cellOf(nb, 1).locator('.nb-editor');
    await editCell(nb, 1);
    await page.keyboard.press(`${mod}+End`);
    await page.keyboard.press('F9');
    await expect(editor).toHaveAttribute('data-breakpoints', '3');
    await page.keyboard.press(`${mod}+Home`);
    await page.keyboard.press('Enter');
    await expect(editor).toHaveAttribute('data-breakpoints', '4');

    // Kept by main: after a reload both are where the edits carried them.
    await page.reload();
    const again = await openNotebook(page, 'calls.ipynb');
    await expect(cellOf(again, 1).locator('.nb-editor')).toHaveAttribute('data-breakpoints', '4');
    await openFile(page, 'src', 'mathops.py');
    await expect(file).toHaveAttribute('data-breakpoints', '3');
  });
});

/**
 * The operator's own kernelspec (on their JUPYTER_PATH) for a real ipykernel whose Python cannot import debugpy,
 * as in an environment without it: `sys.modules['debugpy'] = None` makes every import of it fail.
 */
const NO_DEBUGPY_JUPYTER_PATH = path.join(os.tmpdir(), `kiln-e2e-nodebug-${process.pid}`);
const NO_DEBUGPY_KERNEL = 'nodebugpy';

function noDebugpyKernelspec(): void {
  const dir = path.join(NO_DEBUGPY_JUPYTER_PATH, 'kernels', NO_DEBUGPY_KERNEL);
  mkdirSync(dir, { recursive: true });
  const launch =
    "import sys; sys.modules['debugpy'] = None; from ipykernel.kernelapp import launch_new_instance; launch_new_instance()";
  writeFileSync(
    path.join(dir, 'kernel.json'),
    JSON.stringify({
      argv: ['/usr/bin/python3', '-c', launch, '-f', '{connection_file}'],
      display_name: 'Python 3 (no debugpy)',
      language: 'python',
    }),
  );
}

function notebookOnKernel(kernel: string, ...cells: ReturnType<typeof cell>[]): string {
  const json = JSON.parse(notebook(...cells)) as { metadata: { kernelspec: Record<string, string> } };
  json.metadata.kernelspec = { display_name: 'Python 3 (no debugpy)', language: 'python', name: kernel };
  return `${JSON.stringify(json, null, 1)}\n`;
}

test.describe('a kernel that cannot debug', () => {
  test.describe.configure({ timeout: 180_000 });
  test.beforeAll(noDebugpyKernelspec);
  test.afterAll(() => rmSync(NO_DEBUGPY_JUPYTER_PATH, { recursive: true, force: true }));
  test.use({
    hostEnv: { JUPYTER_PATH: NO_DEBUGPY_JUPYTER_PATH },
    fixtureFiles: {
      ...DEFAULT_FIXTURE,
      'nodebug.ipynb': notebookOnKernel(NO_DEBUGPY_KERNEL, cell('code', 'print("ran")'), cell('code', 'x = 6 * 7\nx')),
    },
  });

  test('Debug Cell says "This kernel cannot debug: …" in one line, runs nothing, and cells still run', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'nodebug.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });

    await cellOf(nb, 1).hover();
    await cellOf(nb, 1).getByRole('button', { name: 'Debug Cell' }).click();
    const line = page.getByRole('status').filter({ hasText: 'This kernel cannot debug' });
    await expect(line).toHaveText(/^This kernel cannot debug: it has no debugger \(install debugpy/, { timeout: STEP });
    // One line, however long the reason: its text never wraps to a second row (13px text: a row is under 24px).
    const text = await line.getByText('This kernel cannot debug').boundingBox();
    expect(text!.height).toBeLessThan(24);
    await expect(page.getByRole('region', { name: 'Debugger' })).toHaveCount(0);
    await expect(outputOf(nb, 1)).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('kernel-cannot-debug.png') });

    // Everything else keeps working: both cells run, in order, on the same kernel.
    await editCell(nb, 1);
    await page.keyboard.press('Shift+Enter');
    await expect(outputOf(nb, 1)).toContainText('ran', { timeout: STEP });
    await page.keyboard.press('Shift+Enter');
    await expect(outputOf(nb, 2)).toContainText('42', { timeout: STEP });
    await expect(line).toBeVisible();
  });
});
