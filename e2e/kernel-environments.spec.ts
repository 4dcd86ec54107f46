import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, cellOf, notebook, openNotebook, outputOf } from './support/notebook';

/**
 * The kernel picker's Python environments, against venvs made here with Debian's python3 (its ipykernel, from
 * python3-ipykernel, is seen by a --system-site-packages venv) and the real Jupyter.
 */

const run = promisify(execFile);
const KERNEL_START = 60_000;
const RUN = 30_000;

const makeVenv = (dir: string, systemSitePackages: boolean) =>
  run('/usr/bin/python3', [
    '-m',
    'venv',
    '--without-pip',
    ...(systemSitePackages ? ['--system-site-packages'] : []),
    dir,
  ]);

test.describe('kernel environments', () => {
  test.describe.configure({ timeout: 180_000 });
  test.use({
    fixtureFiles: { ...DEFAULT_FIXTURE, 'env.ipynb': notebook(cell('code', 'import sys\nprint(sys.executable)')) },
  });

  test("the kernel picker offers the workspace's venv; a cell runs on its python", async ({
    page,
    kiln,
    workspace,
  }, testInfo) => {
    await makeVenv(workspace.abs('.venv'), true);
    await kiln.open(page);
    const nb = await openNotebook(page, 'env.ipynb');
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
    const picker = nb.getByRole('combobox', { name: 'Kernel' });
    const venvOption = picker.locator('option', { hasText: /^\.venv · Python 3\.\d+/ });
    await expect(venvOption).toBeEnabled();

    // One made while Kiln runs, without ipykernel: listed within seconds, greyed, with the command that installs it.
    await makeVenv(workspace.abs('bare'), false);
    await expect(picker.locator('option', { hasText: /^bare · Python 3\.\d+.*\(no ipykernel\)$/ })).toBeDisabled({
      timeout: 5_000,
    });
    await nb.getByRole('button', { name: 'Python environments' }).click();
    const panel = page.getByRole('dialog', { name: 'Python environments' });
    const bare = panel.getByRole('listitem').filter({ hasText: 'bare' });
    await expect(bare).toHaveAttribute('aria-disabled', 'true');
    await expect(bare.locator('code')).toHaveText(`${workspace.abs('bare/bin/python')} -m pip install ipykernel`);
    await expect(bare.getByRole('button', { name: /^Use/ })).toHaveCount(0);
    await expect(bare.getByRole('button', { name: 'Copy the install command for bare' })).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('environments-panel.png') });
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();

    // Picked from the picker: the kernel starts from the venv's python.
    const label = (await venvOption.textContent())!;
    await picker.selectOption({ label });
    await expect(picker).toHaveAttribute('title', /^Kernel: Python 3\.\d+\.\d+ \(\.venv\)$/, { timeout: KERNEL_START });
    await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
    await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
    await expect(outputOf(nb, 1)).toHaveText(workspace.abs('.venv/bin/python'), { timeout: RUN });
    await page.screenshot({ path: testInfo.outputPath('environment-picked.png') });
  });
});

test.describe('kernel environments of an untrusted folder', () => {
  test.use({
    trusted: false,
    fixtureFiles: { ...DEFAULT_FIXTURE, 'env.ipynb': notebook(cell('code', 'import sys\nprint(sys.executable)')) },
  });

  test('are not offered; a line says they appear once the folder is trusted', async ({
    page,
    kiln,
    workspace,
  }, testInfo) => {
    await makeVenv(workspace.abs('.venv'), true);
    await kiln.open(page);
    const nb = await openNotebook(page, 'env.ipynb');
    await nb.getByRole('button', { name: 'Python environments' }).click();
    const panel = page.getByRole('dialog', { name: 'Python environments' });
    await expect(panel).toContainText("This folder's Python environments appear here once it is trusted");
    await expect(panel.getByRole('listitem')).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath('environments-untrusted.png') });
  });
});
