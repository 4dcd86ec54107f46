import { judgeWithNbformat } from '../test-support/nbformat';
import { expect, test } from './support/fixtures';
import { editorText, mod, openFile, typeAtEnd } from './support/ui';

// A notebook as Jupyter writes it; the output holds the pattern too, and must keep it.
const NOTEBOOK = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "old_name(3)\\n"
     ]
    }
   ],
   "source": [
    "x = old_name(3)\\n",
    "print(x)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`;

test.use({
  fixtureFiles: {
    'src/app.py': 'from lib import old_name\n\nold_name(1)\n',
    'src/lib.py': 'def old_name(n):\n    return n\n',
    'analysis.ipynb': NOTEBOOK,
    'notes.txt': 'nothing to see\n',
  },
});

async function openReplace(page: import('@playwright/test').Page, pattern: string, replacement: string) {
  await page.keyboard.press(`${mod}+Shift+h`);
  const view = page.getByRole('region', { name: 'Search' });
  const replace = view.getByRole('textbox', { name: 'Replace', exact: true });
  await expect(replace).toBeFocused();
  await expect(view.getByRole('button', { name: 'Toggle Replace' })).toHaveAttribute('aria-expanded', 'true');
  const box = view.getByRole('textbox', { name: 'Search', exact: true });
  await box.fill(pattern);
  await box.press('Enter');
  await replace.fill(replacement);
  return view;
}

test('Replace All with a regex group: previews, asks, changes the files (a notebook cell too), and can be undone', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  const view = await openReplace(page, 'old_(\\w+)\\(', 'new_$1(');
  await view.getByRole('button', { name: 'Use Regular Expression' }).click();
  await expect(view.getByRole('status')).toHaveText('3 results in 3 files');
  // The preview strikes the match through and shows what replaces it, with the group filled in.
  const appMatch = view.locator('[role="treeitem"][aria-level="2"][data-path="src/app.py"]');
  await expect(appMatch.locator('del')).toHaveText('old_name(');
  await expect(appMatch.locator('ins')).toHaveText('new_name(');
  await page.screenshot({ path: test.info().outputPath('replace-preview.png') });

  await view.getByRole('button', { name: 'Replace All', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText("Replace 3 occurrences across 3 files with 'new_$1('?");
  await page.screenshot({ path: test.info().outputPath('replace-confirm.png') });
  await dialog.getByRole('button', { name: 'Replace', exact: true }).click();

  // The toast comes once every file is done.
  const toast = page.locator('.toasts').getByRole('status');
  await expect(toast).toContainText('Replaced 3 occurrences in 3 files.');
  expect(await workspace.read('src/app.py')).toBe('from lib import old_name\n\nnew_name(1)\n');
  expect(await workspace.read('src/lib.py')).toBe('def new_name(n):\n    return n\n');
  // The notebook: the cell's source changed, its output did not, and every other byte is as Jupyter wrote it.
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK.replace('"x = old_name(3)', '"x = new_name(3)'));
  const judged = judgeWithNbformat(workspace.abs('analysis.ipynb'));
  expect(judged).toMatchObject({ valid: true, sameBytes: true, sources: ['x = new_name(3)\nprint(x)'] });
  await expect(view.getByRole('tree', { name: 'Search results' }).getByRole('treeitem')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('replace-done.png') });

  await toast.getByRole('button', { name: 'Undo Replace' }).click();
  // The search runs again once the undo is done: the matches are back, and so is every byte.
  await expect(view.getByRole('status')).toHaveText('3 results in 3 files');
  expect(await workspace.read('src/lib.py')).toBe('def old_name(n):\n    return n\n');
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
});

test('per-file Replace changes that file alone, and Dismiss takes a match out of the list', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  const view = await openReplace(page, 'old_name', 'fresh_name');
  await expect(view.getByRole('status')).toHaveText('4 results in 3 files');
  const results = view.getByRole('tree', { name: 'Search results' });
  const appFile = results.getByRole('treeitem', { name: 'app.py src', exact: true });
  await appFile.hover();
  await appFile.getByRole('button', { name: 'Replace All in File' }).click();
  await expect.poll(() => workspace.read('src/app.py')).toBe('from lib import fresh_name\n\nfresh_name(1)\n');
  expect(await workspace.read('src/lib.py')).toBe('def old_name(n):\n    return n\n');
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
  await expect(view.getByRole('status')).toHaveText('2 results in 2 files');

  const libMatch = results.locator('[role="treeitem"][aria-level="2"][data-path="src/lib.py"]');
  await libMatch.hover();
  await libMatch.getByRole('button', { name: 'Dismiss' }).click();
  await expect(view.getByRole('status')).toHaveText('1 result in 1 file');
  expect(await workspace.read('src/lib.py')).toBe('def old_name(n):\n    return n\n');

  // One match's Replace: the notebook's cell changes on disk, and the search runs again.
  const cellMatch = results.locator('[role="treeitem"][aria-level="2"][data-path="analysis.ipynb"]');
  await cellMatch.hover();
  await cellMatch.getByRole('button', { name: 'Replace', exact: true }).click();
  await expect
    .poll(() => workspace.read('analysis.ipynb'))
    .toBe(NOTEBOOK.replace('"x = old_name(3)', '"x = fresh_name(3)'));
  await expect(view.getByRole('status')).toHaveText('1 result in 1 file');
  await expect(results.getByRole('treeitem', { name: 'lib.py src', exact: true })).toBeVisible();
});

test('a dirty open tab takes the replacement in its buffer, unsaved; the disk under it is not written', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  await typeAtEnd(page, 'old_name(2)');
  const tab = page.getByRole('tab', { name: 'app.py' });
  await expect(tab).toHaveAttribute('data-dirty', 'true');
  const view = await openReplace(page, 'old_name', 'fresh_name');
  // The search reads the disk; the typed line is not in the results, and is left as typed.
  await expect(view.getByRole('status')).toHaveText('4 results in 3 files');
  await view.getByRole('button', { name: 'Replace All', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Replace', exact: true }).click();
  await expect(page.locator('.toasts').getByRole('status')).toContainText(
    '1 open file with unsaved changes took the replacement unsaved',
  );
  await expect.poll(() => workspace.read('src/lib.py')).toBe('def fresh_name(n):\n    return n\n');
  expect(await workspace.read('src/app.py')).toBe('from lib import old_name\n\nold_name(1)\n');
  await expect(tab).toHaveAttribute('data-dirty', 'true');
  await expect(editorText(page)).toContainText('from lib import fresh_name');
  await expect(editorText(page)).toContainText('fresh_name(1)old_name(2)');
  await page.screenshot({ path: test.info().outputPath('replace-dirty-tab.png') });
  await page.keyboard.press(`${mod}+s`);
  await expect
    .poll(() => workspace.read('src/app.py'))
    .toBe('from lib import fresh_name\n\nfresh_name(1)\nold_name(2)');
});
