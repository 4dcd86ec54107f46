import { expect, test } from './support/fixtures';
import { editorText, mod, openAndTypeAtEnd, openFile, treeItem, typeAtEnd } from './support/ui';

test('tabs are named by file name and mark unsaved changes; closing asks', async ({ page, kiln, workspace }) => {
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  await openFile(page, 'src', 'util.py');
  await expect(page.getByRole('tab', { name: 'app.py' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'util.py' })).toHaveAttribute('aria-selected', 'true');
  await expect(editorText(page)).toContainText('VALUE = 42');
  await typeAtEnd(page, 'EXTRA = 1');
  await expect(page.getByRole('tab', { name: 'util.py' })).toHaveAttribute('data-dirty', 'true');

  await page.getByRole('button', { name: 'Close util.py' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('util.py');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('tab', { name: 'util.py' })).toBeVisible();

  await page.getByRole('button', { name: 'Close util.py' }).click();
  await page.getByRole('dialog').getByRole('button', { name: "Don't Save" }).click();
  await expect(page.getByRole('tab', { name: 'util.py' })).toHaveCount(0);
  expect(await workspace.read('src/util.py')).toBe('VALUE = 42\n');
  await expect(page.getByRole('tab', { name: 'app.py' })).toHaveAttribute('aria-selected', 'true');
});

test('Ctrl/Cmd+S and the Save button write the buffer to disk', async ({ page, kiln, workspace }) => {
  await openAndTypeAtEnd(page, kiln, ['notes', 'todo.txt'], 'third');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nthird');
  await expect(page.getByRole('tab', { name: 'todo.txt' })).not.toHaveAttribute('data-dirty', 'true');

  await typeAtEnd(page, '\nfourth');
  const save = page.getByRole('button', { name: 'Save', exact: true });
  await expect(save).toBeEnabled();
  await save.click();
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nthird\nfourth');
  await expect(save).toBeDisabled();
});

test('typing back to the saved text makes the tab clean again; a key typed just before Save is saved', async ({
  page,
  kiln,
  workspace,
}) => {
  const tab = page.getByRole('tab', { name: 'todo.txt' });
  await openAndTypeAtEnd(page, kiln, ['notes', 'todo.txt'], 'Z');
  await expect(tab).toHaveAttribute('data-dirty', 'true');
  await page.keyboard.press(`${mod}+z`);
  await expect(tab).not.toHaveAttribute('data-dirty', 'true');
  await page.keyboard.type('Z');
  await expect(tab).toHaveAttribute('data-dirty', 'true');
  await page.keyboard.press('Backspace');
  await expect(tab).not.toHaveAttribute('data-dirty', 'true');
  // The same length as the saved text but not the same text, then the same text typed again (not undone).
  await page.keyboard.press('Backspace');
  await page.keyboard.type('X');
  await expect(tab).toHaveAttribute('data-dirty', 'true');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  await expect(tab).not.toHaveAttribute('data-dirty', 'true');

  await page.keyboard.type('Q');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\nQ');
  await expect(tab).not.toHaveAttribute('data-dirty', 'true');
});

test('the language follows the file name', async ({ page, kiln }) => {
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  await expect(page.locator('.code-editor')).toHaveAttribute('data-language', 'python');
  // Specs that do not test Python's language features start no language server (the fixture turns it off).
  await expect(page.getByRole('status', { name: /^Python: off, language server: / })).toBeVisible();
  await openFile(page, 'README.md');
  await expect(page.locator('.code-editor')).toHaveAttribute('data-language', 'markdown');
  await openFile(page, 'data', 'sample.csv');
  await expect(page.locator('.code-editor')).toHaveAttribute('data-language', /plaintext|csv/);
});

test('the minimap is on by default, toggles, and the choice survives a reload', async ({ page, kiln }) => {
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  const toggle = page.getByRole('button', { name: 'Minimap' });
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.code-editor .minimap')).toBeVisible();
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('.code-editor .minimap')).toBeHidden();
  await page.reload();
  await expect(treeItem(page, 'src')).toBeVisible();
  await openFile(page, 'src', 'app.py');
  await expect(editorText(page)).toContainText('def greet');
  await expect(page.getByRole('button', { name: 'Minimap' })).toHaveAttribute('aria-pressed', 'false');
  await expect(page.locator('.code-editor .minimap')).toBeHidden();
});

test('a clean buffer follows changes on disk silently', async ({ page, kiln, workspace }) => {
  await kiln.open(page);
  await openFile(page, 'src', 'util.py');
  await expect(editorText(page)).toContainText('VALUE = 42');
  await workspace.write('src/util.py', 'VALUE = 43\n');
  await expect(editorText(page)).toContainText('VALUE = 43');
  await expect(page.getByRole('alert', { name: 'Changed on disk' })).toHaveCount(0);
});

test('a dirty buffer changed on disk shows the bar: Compare, Overwrite, Reload', async ({ page, kiln, workspace }) => {
  await openAndTypeAtEnd(page, kiln, ['src', 'util.py'], 'MINE = 1');
  await workspace.write('src/util.py', 'VALUE = 99\n');
  const bar = page.getByRole('alert', { name: 'Changed on disk' });
  await expect(bar).toContainText('util.py changed on disk');
  await expect(bar.getByRole('button', { name: 'Compare' })).toBeVisible();
  await expect(bar.getByRole('button', { name: 'Overwrite' })).toBeVisible();
  await expect(bar.getByRole('button', { name: 'Reload' })).toBeVisible();

  // Saving now never overwrites silently.
  await page.keyboard.press(`${mod}+s`);
  await expect(page.getByRole('alert').filter({ hasText: 'was not saved' })).toBeVisible();
  expect(await workspace.read('src/util.py')).toBe('VALUE = 99\n');

  await bar.getByRole('button', { name: 'Compare' }).click();
  const diff = page.getByTestId('diff-view');
  await expect(diff).toContainText('VALUE = 99');
  await expect(diff).toContainText('MINE = 1');
  await page.screenshot({ path: test.info().outputPath('kiln-conflict.png') });

  await bar.getByRole('button', { name: 'Overwrite' }).click();
  await expect(bar).toHaveCount(0);
  await expect.poll(() => workspace.read('src/util.py')).toBe('VALUE = 42\nMINE = 1');

  await typeAtEnd(page, '\nAGAIN = 2');
  await workspace.write('src/util.py', 'FROM_DISK = 7\n');
  await expect(bar).toBeVisible();
  await bar.getByRole('button', { name: 'Reload' }).click();
  await expect(bar).toHaveCount(0);
  await expect(editorText(page)).toContainText('FROM_DISK = 7');
  await expect(page.getByRole('tab', { name: 'util.py' })).not.toHaveAttribute('data-dirty', 'true');
  expect(await workspace.read('src/util.py')).toBe('FROM_DISK = 7\n');
});

test('binary files show a notice instead of text', async ({ page, kiln, workspace }) => {
  await workspace.write('data/blob.bin', Buffer.from([0, 1, 2, 3, 0, 255, 254, 0, 9, 0]));
  await kiln.open(page);
  await openFile(page, 'data', 'blob.bin');
  await expect(page.getByRole('note')).toContainText('blob.bin is a binary file');
  await expect(page.locator('.code-editor')).toHaveCount(0);
});

test('a large file opens in Monaco with large-file options', async ({ page, kiln, workspace }) => {
  const line = 'x'.repeat(99) + '\n';
  await workspace.write('data/huge.log', line.repeat(60_000)); // ~6 MB
  await kiln.open(page);
  await openFile(page, 'data', 'huge.log');
  await expect(page.getByRole('note')).toContainText('large file');
  await expect(page.locator('.code-editor')).toHaveAttribute('data-minimap', 'false');
  await expect(editorText(page)).toContainText('xxxxxxxx');
});

test('one tab per open file in opening order: the unsaved one is marked, the chosen one is shown', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  await openFile(page, 'src', 'util.py');
  await openFile(page, 'README.md');
  await typeAtEnd(page, '\nMore text.');
  await page.getByRole('tab', { name: 'app.py' }).click();
  const tabs = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');
  await expect(tabs).toHaveText(['app.py', 'util.py', 'README.md']);
  await expect(page.getByRole('tab', { name: 'README.md' })).toHaveAttribute('data-dirty', 'true');
  await expect(page.getByRole('tab', { name: 'README.md' })).toHaveAttribute('title', 'README.md (unsaved)');
  await expect(page.getByRole('tab', { name: 'app.py' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tab', { name: 'app.py' })).not.toHaveAttribute('data-dirty');
  await expect(editorText(page)).toContainText('def greet(name):');
  await page.screenshot({ path: test.info().outputPath('kiln-editor.png') });
});

test('themes follow the OS setting, Monaco included', async ({ page, kiln }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  await expect(page.locator('.code-editor .monaco-editor')).toHaveClass(/vs-dark/);
  const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(dark).toBe('rgb(30, 30, 30)');
  await page.screenshot({ path: test.info().outputPath('kiln-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('.code-editor .monaco-editor')).not.toHaveClass(/vs-dark/);
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
});
