import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, startWebHost, test } from './support/fixtures';
import { openFile } from './support/ui';

const LOST = 'Lost the connection to Kiln; reload the window to reconnect.';

test('when Kiln stops, the window says the connection is lost, and a save says why it failed', async ({
  page,
  workspace,
}) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-data-'));
  const { child, url } = await startWebHost(workspace.root, dataDir);
  try {
    await page.goto(url);
    await openFile(page, 'notes', 'todo.txt');
    await page.locator('.code-editor .monaco-editor .view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('third');
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await expect(page.getByRole('alert', { name: 'Connection' })).toContainText(LOST);
    await expect(page.getByRole('alert', { name: 'Connection' }).getByRole('button', { name: 'Reload' })).toBeVisible();

    await page.keyboard.press('Control+S');
    await expect(page.locator('.toast[role="alert"]')).toContainText(`Could not save todo.txt: ${LOST}`);
    // The unsaved text is still there to copy out.
    await expect(page.locator('.code-editor .monaco-editor .view-lines')).toContainText('third');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
});
