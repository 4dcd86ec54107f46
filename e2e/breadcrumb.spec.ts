import path from 'node:path';
import { expect, test } from './support/fixtures';
import { clipboardText, expandFolder, treeItem } from './support/ui';

test('the breadcrumb names each segment; a segment lists its siblings, folders first', async ({
  page,
  kiln,
  workspace,
}) => {
  await workspace.write('src/lib/helpers.py', 'pass\n');
  await kiln.open(page);
  await expandFolder(page, 'src');
  await treeItem(page, 'app.py').click();
  const nav = page.getByRole('navigation', { name: 'Breadcrumb' });
  await expect(nav.getByRole('list', { name: 'Path' }).getByRole('button')).toHaveText([
    path.basename(workspace.root),
    'src',
    'app.py',
  ]);

  await nav.getByRole('button', { name: 'app.py' }).click();
  const list = page.getByRole('listbox');
  await expect(list.getByRole('option')).toHaveText(['lib', 'app.py', 'util.py']);
  await page.screenshot({ path: test.info().outputPath('kiln-breadcrumb.png') });
  await list.getByRole('option', { name: 'util.py' }).click();
  await expect(page.getByRole('tab', { name: 'util.py' })).toHaveAttribute('aria-selected', 'true');
  await expect(nav.getByRole('list', { name: 'Path' }).getByRole('button')).toHaveText([
    path.basename(workspace.root),
    'src',
    'util.py',
  ]);

  // A folder drills in; a file there opens.
  await nav.getByRole('button', { name: 'util.py' }).click();
  await page.getByRole('option', { name: 'lib' }).click();
  await expect(page.getByRole('listbox').getByRole('option')).toHaveText(['helpers.py']);
  await page.getByRole('option', { name: 'helpers.py' }).click();
  await expect(page.getByRole('tab', { name: 'helpers.py' })).toHaveAttribute('aria-selected', 'true');
  // The tree follows: the folder opens and the file is selected.
  await expect(treeItem(page, 'lib')).toHaveAttribute('aria-expanded', 'true');
  await expect(treeItem(page, 'helpers.py')).toHaveAttribute('aria-selected', 'true');
  await expect(nav.getByRole('list', { name: 'Path' }).getByRole('button')).toHaveText([
    path.basename(workspace.root),
    'src',
    'lib',
    'helpers.py',
  ]);
});

test('the dropdown filters as you type and works by keyboard', async ({ page, kiln }) => {
  await kiln.open(page);
  await expandFolder(page, 'src');
  await treeItem(page, 'app.py').click();
  const nav = page.getByRole('navigation', { name: 'Breadcrumb' });
  const srcSegment = nav.getByRole('button', { name: 'src' });
  await srcSegment.click();
  const list = page.getByRole('listbox');
  await expect(list.getByRole('option')).toHaveText(['data', 'notes', 'src', 'README.md']);
  await expect(list.getByRole('option', { name: 'src' })).toHaveAttribute('aria-selected', 'true');

  await page.keyboard.type('no');
  await expect(list.getByRole('option')).toHaveText(['notes']);
  await page.keyboard.press('Enter'); // drills into notes
  await expect(list.getByRole('option')).toHaveText(['todo.txt']);
  await page.keyboard.press('Enter'); // opens the file
  await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('listbox')).toHaveCount(0);

  // Arrows move, Escape closes and gives focus back to the segment.
  const notes = nav.getByRole('button', { name: 'notes' });
  await notes.click();
  await expect(page.getByRole('option', { name: 'notes' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('option', { name: 'src' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(page.getByRole('option', { name: 'data' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('listbox')).toHaveCount(0);
  await expect(notes).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('option', { name: 'notes' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter'); // src: drills in
  await expect(page.getByRole('listbox').getByRole('option')).toHaveText(['app.py', 'util.py']);
});

test('the header copies the relative path, and the absolute path as the secondary action', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await expandFolder(page, 'src');
  await treeItem(page, 'app.py').click();
  await page.getByRole('button', { name: 'Copy Path', exact: true }).click();
  await expect.poll(() => clipboardText(page)).toBe('src/app.py');
  await page.getByRole('button', { name: 'More copy options' }).click();
  await page.getByRole('menuitem', { name: 'Copy Absolute Path' }).click();
  await expect.poll(() => clipboardText(page)).toBe(path.join(workspace.root, 'src', 'app.py'));
});
