import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { cell, notebook, openNotebook, outputOf } from './support/notebook';
import { expandFolder } from './support/ui';

/**
 * Untrusted means inert, in the window: a cloned folder's notebook starts no kernel, says why in its toolbar, and
 * asks the trust question before anything runs. A file beside the notebook named like Jupyter's kernel launcher
 * writes a canary outside the workspace if it ever runs (before or after Trust).
 */

// Outside the workspace and the data folder, so nothing Kiln cleans or watches touches it.
const canaries = mkdtempSync(path.join(os.tmpdir(), 'kiln-e2e-canaries-'));
const plant = `open(${JSON.stringify(path.join(canaries, 'ipykernel_launcher'))}, 'w').write('ran')\n`;

test.use({
  trusted: false,
  fixtureFiles: {
    'README.md': '# Cloned project\n',
    'nb/a.ipynb': notebook(cell('code', '1+1'), cell('code', 'import mymodule\nmymodule.VALUE')),
    'nb/ipykernel_launcher.py': plant,
    'nb/mymodule.py': 'VALUE = 40 + 2\n',
  },
});
test.describe.configure({ timeout: 240_000 });

/** The embedded Jupyter server's kernels, asked of the server itself; null when Kiln never started one. */
async function serverKernels(dataDir: string): Promise<unknown[] | null> {
  const jupyter = path.join(dataDir, 'jupyter');
  const dirs = (await readdir(jupyter).catch(() => [] as string[])).filter((d) => d.startsWith('kiln-jupyter-'));
  if (!dirs.length) return null;
  const runtime = path.join(jupyter, dirs[0], 'runtime');
  const file = (await readdir(runtime)).find((f) => /^jpserver-\d+\.json$/.test(f));
  if (!file) return null;
  const { url, token } = JSON.parse(await readFile(path.join(runtime, file), 'utf8')) as { url: string; token: string };
  const res = await fetch(`${url.replace(/\/?$/, '/')}api/kernels`, { headers: { Authorization: `token ${token}` } });
  return (await res.json()) as unknown[];
}

async function runAll(nb: Locator): Promise<void> {
  await nb.getByRole('toolbar', { name: 'Notebook' }).getByRole('button', { name: 'Run all' }).click();
}

function trustDialog(page: Page): Locator {
  return page.getByRole('dialog', { name: 'Trust this folder?' });
}

test('an untrusted notebook starts no kernel, says why, and runs only after Trust, never the planted launcher', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await expandFolder(page, 'nb');
  const nb = await openNotebook(page, 'a.ipynb');
  const toolbar = nb.getByRole('toolbar', { name: 'Notebook' });
  const notice = toolbar.getByTestId('kernel-untrusted');
  await expect(notice.getByRole('status')).toHaveText('Kernel not started: this folder is not trusted');
  // Nothing to pick and no state to show: the notice stands in for the kernel picker and status.
  await expect(toolbar.getByRole('combobox', { name: 'Kernel' })).toBeHidden();
  await page.screenshot({ path: test.info().outputPath('untrusted-notebook.png') });

  // Run All asks first; "Don't trust" runs nothing.
  await runAll(nb);
  await expect(trustDialog(page)).toBeVisible();
  await trustDialog(page).getByRole('button', { name: "Don't trust" }).click();
  await expect(trustDialog(page)).toBeHidden();
  await expect(notice).toBeVisible();
  await expect(outputOf(nb, 1)).toHaveCount(0);
  expect(await serverKernels(kiln.dataDir)).toBeNull();
  expect(await readdir(canaries)).toEqual([]);

  // Run All again, and Trust: the same Run All goes on, on a kernel that never ran the planted launcher.
  await runAll(nb);
  await trustDialog(page).getByRole('button', { name: 'Trust', exact: true }).click();
  await expect(notice).toHaveCount(0);
  await expect(outputOf(nb, 1)).toContainText('2', { timeout: 90_000 });
  await expect(outputOf(nb, 2)).toContainText('42', { timeout: 30_000 });
  await expect(toolbar.getByRole('status')).toHaveText('idle');
  expect(await serverKernels(kiln.dataDir)).toHaveLength(1);
  expect(await readdir(canaries)).toEqual([]);
  await page.screenshot({ path: test.info().outputPath('trusted-notebook.png') });
});
