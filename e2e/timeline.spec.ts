import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { mod, openAndTypeAtEnd, treeItem, typeAtEnd } from './support/ui';

const timeline = (page: Page) => page.getByRole('region', { name: 'Timeline' });
const versions = (page: Page) => timeline(page).getByRole('listitem');

test('save twice, restore the first version from the Timeline, then undo the restore', async ({
  page,
  kiln,
  workspace,
}) => {
  await openAndTypeAtEnd(page, kiln, ['notes', 'todo.txt'], 'A');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nA');
  await typeAtEnd(page, 'B');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nAB');

  await treeItem(page, 'todo.txt').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Timeline' }).click();
  await expect(versions(page)).toHaveCount(2);
  await expect(versions(page).first()).toContainText('Before a save by you');

  // The oldest: the file as it was before the first save.
  await versions(page).last().getByRole('button').click();
  const diff = page.getByRole('region', { name: 'Timeline version of todo.txt' });
  await expect(diff).toBeVisible();
  await expect(diff.locator('.monaco-diff-editor')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('timeline-diff.png') });
  await diff.getByRole('button', { name: 'Restore' }).click();
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
  await expect(timeline(page).getByRole('status')).toContainText('Restored');
  // The clean tab follows the disk.
  await expect(page.locator('.code-editor .view-lines')).not.toContainText('AB');

  // The restore kept what it replaced: restoring that undoes it.
  await expect(versions(page)).toHaveCount(3);
  await expect(versions(page).first()).toContainText('Before a restore');
  await versions(page).first().getByRole('button').click();
  await diff.getByRole('button', { name: 'Restore' }).click();
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nAB');
  await page.screenshot({ path: test.info().outputPath('timeline-after-undo.png') });
});

test('Restore refuses, as Save does, when the file changed since the diff was shown', async ({
  page,
  kiln,
  workspace,
}) => {
  await openAndTypeAtEnd(page, kiln, ['notes', 'todo.txt'], 'A');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nA');
  await treeItem(page, 'todo.txt').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Timeline' }).click();
  await versions(page).first().getByRole('button').click();
  const diff = page.getByRole('region', { name: 'Timeline version of todo.txt' });
  await expect(diff).toBeVisible();

  await workspace.write('notes/todo.txt', 'changed by another program\n');
  await diff.getByRole('button', { name: 'Restore' }).click();
  await expect(diff.getByRole('alert')).toContainText(/changed on disk/i);
  expect(await workspace.read('notes/todo.txt')).toBe('changed by another program\n');
});

test("the editor's context menu opens the file's Timeline", async ({ page, kiln }) => {
  await openAndTypeAtEnd(page, kiln, ['notes', 'todo.txt'], 'A');
  await page.keyboard.press(`${mod}+s`);
  await page.locator('.code-editor .monaco-editor .view-lines').click({ button: 'right' });
  // Monaco's menu takes the item under the pointer with Enter; a synthetic click on it does not register.
  await page.getByRole('menuitem', { name: 'Open Timeline' }).hover();
  await page.keyboard.press('Enter');
  await expect(timeline(page)).toContainText('todo.txt');
  await expect(versions(page)).toHaveCount(1);
});
