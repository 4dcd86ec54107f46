import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { trustFolder } from '../main/trust';
import { expect, startWebHost, test } from './support/fixtures';
import { editorText, mod, openFile, typeAtEnd } from './support/ui';

/** How many hot-exit backups the data folder holds (what a killed host leaves for the next one). */
async function backupCount(dataDir: string): Promise<number> {
  const root = path.join(dataDir, 'backups');
  let count = 0;
  for (const workspace of await readdir(root).catch(() => [])) {
    count += (await readdir(path.join(root, workspace))).filter((name) => name.endsWith('.json')).length;
  }
  return count;
}

/** A host of our own on the test's workspace and a data folder that outlives it, so it can be killed and started again. */
test.describe('hot exit', () => {
  let dataDir: string;
  let host: ChildProcess | null = null;

  test.beforeEach(async ({ workspace }) => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-hot-exit-'));
    await trustFolder(dataDir, workspace.root);
  });
  test.afterEach(async () => {
    if (host && host.exitCode === null && host.signalCode === null) {
      const exited = new Promise((resolve) => host!.once('exit', resolve));
      host.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  async function start(page: Page, root: string): Promise<void> {
    const started = await startWebHost(root, dataDir);
    host = started.child;
    await page.goto(started.url);
    await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  }

  async function killHost(): Promise<void> {
    const exited = new Promise((resolve) => host!.once('exit', resolve));
    host!.kill('SIGKILL');
    await exited;
  }

  test('a killed host comes back with the typed text in a dirty tab, the disk unchanged', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'typed before the crash');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();

    await start(page, workspace.root);
    await expect(page.getByText('Restored 1 unsaved file')).toBeVisible();
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');
    await expect(editorText(page)).toContainText('typed before the crash');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
    await page.screenshot({ path: 'test-results/hot-exit-restored.png' });

    // Saving writes it and drops the backup.
    await page.keyboard.press(`${mod}+s`);
    await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\ntyped before the crash');
    await expect.poll(() => backupCount(dataDir)).toBe(0);
  });

  test('a file changed on disk while the host was down opens in the conflict state with both versions', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'mine');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();
    await workspace.write('notes/todo.txt', 'first\nsecond\ntheirs\n');

    await start(page, workspace.root);
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');
    await expect(editorText(page)).toContainText('mine');
    await expect(page.getByRole('alert', { name: 'Changed on disk' })).toBeVisible();
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\ntheirs\n');
    await page.screenshot({ path: 'test-results/hot-exit-conflict.png' });
  });

  test('a reload right after typing asks nothing and brings the text back', async ({ page, workspace }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'just typed');
    // No wait for the debounce: the page sends what is pending as it goes.
    await page.reload();
    await expect(page.getByText('Restored 1 unsaved file')).toBeVisible();
    await expect(editorText(page)).toContainText('just typed');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
  });
});
