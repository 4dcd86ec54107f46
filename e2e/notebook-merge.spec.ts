import { nbformatProblems } from '../test-support/nbformat-build';
import { gitIn, makeNotebookConflict, notebookConflictTexts } from '../test-support/notebook-conflict';
import { test as base, expect } from './support/fixtures';
import { expectAccessible } from './support/axe';
import { treeItem } from './support/ui';

/** The workspace is a repository in the middle of a `git merge` that left run.ipynb in conflict. */
const texts = notebookConflictTexts();
const test = base.extend({
  fixtureFiles: {},
  workspace: async ({ workspace }, use) => {
    await makeNotebookConflict(workspace.root, texts);
    await use(workspace);
  },
});

test('a notebook in a real git merge conflict opens in the resolver and resolves to a valid, staged notebook', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await treeItem(page, 'run.ipynb').click();
  const resolver = page.getByRole('region', { name: 'Resolve merge conflicts in run.ipynb' });
  await expect(resolver).toBeVisible();
  await expect(resolver.getByRole('status')).toHaveText('0 of 1 conflicts resolved');
  // Each side's own edit merged by itself; the cell both edited is the one conflict.
  await expect(resolver.getByText('from ours')).toHaveCount(1);
  await expect(resolver.getByText('from theirs')).toHaveCount(1);
  const conflict = resolver.getByRole('group', { name: 'Cell 2: source changed on both sides' });
  await expect(conflict).toContainText('open("ours.json")');
  await expect(conflict).toContainText('open("theirs.json")');
  const save = resolver.getByRole('button', { name: 'Save and Stage' });
  await expect(save).toBeDisabled();

  await conflict.getByRole('button', { name: 'Use theirs' }).click();
  await expect(conflict.getByRole('button', { name: 'Use theirs' })).toHaveAttribute('aria-pressed', 'true');
  await expect(resolver.getByRole('status')).toHaveText('1 of 1 conflicts resolved');
  await page.screenshot({ path: test.info().outputPath('notebook-merge.png') });
  await expectAccessible(page, 'notebook-merge');
  expect(gitIn(workspace.root, 'status', '--porcelain')).toBe('UU run.ipynb\n');

  await save.click();
  // The notebook opens as usual once saved; the file is what Jupyter writes, and git has it staged.
  await expect(page.getByRole('grid', { name: 'Cells' })).toBeVisible();
  await expect(resolver).toHaveCount(0);
  const written = await workspace.read('run.ipynb');
  expect(written).toBe(texts.resolvedTheirs);
  expect(nbformatProblems([written])).toEqual([null]);
  expect(gitIn(workspace.root, 'status', '--porcelain')).toBe('M  run.ipynb\n');
});
