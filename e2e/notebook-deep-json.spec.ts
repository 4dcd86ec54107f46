import { readFile } from 'node:fs/promises';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, notebook, openNotebook, outputOf } from './support/notebook';

/** A code cell whose saved output is an application/json array nested `depth` deep. */
function deepOutput(depth: number): string {
  const code = cell('code', 'deep');
  code.execution_count = 1;
  code.outputs = [{ output_type: 'execute_result', execution_count: 1, metadata: {}, data: { 'text/plain': '[[…]]' } }];
  const deep = '['.repeat(depth) + ']'.repeat(depth);
  // JSON.stringify itself cannot write 100,000 levels: the deep value goes in as text.
  return notebook(code).replace('"text/plain": "[[…]]"', `"application/json": ${deep},\n      "text/plain": "[[…]]"`);
}

const TOO_DEEP = deepOutput(100_000);

test.use({
  fixtureFiles: { ...DEFAULT_FIXTURE, 'too-deep.ipynb': TOO_DEEP, 'deep.ipynb': deepOutput(300) },
});

test('a notebook nesting 100,000 deep says so and is kept; one Jupyter reads shows its tree to a depth', async ({
  page,
  kiln,
  workspace,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await kiln.open(page);

  await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'too-deep.ipynb' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'too-deep.ipynb can’t be opened as a notebook' });
  await expect(alert).toContainText('too-deep.ipynb can’t be opened as a notebook');
  await expect(alert).toContainText('nests too deep: more than 1000 levels of JSON');
  await page.screenshot({ path: test.info().outputPath('too-deep.png') });
  expect(await readFile(workspace.abs('too-deep.ipynb'), 'utf8')).toBe(TOO_DEEP);
  // Its text stays readable: the way on the alert offers.
  await alert.getByRole('button', { name: 'Open as text' }).click();
  await expect(page.locator('.code-editor .view-lines')).toContainText('"cells"');

  // The host is still there: another notebook opens, its output drawn down to the shown depth.
  const nb = await openNotebook(page, 'deep.ipynb');
  const tree = outputOf(nb, 1).getByRole('group', { name: 'JSON output' });
  await expect(tree.getByRole('note', { includeHidden: true })).toContainText('too deep to show (more than 20 levels)');
  // Every level opened, as a reader clicking down would: the placeholder ends the tree.
  await tree.evaluate((el) => el.querySelectorAll('details').forEach((d) => ((d as HTMLDetailsElement).open = true)));
  await expect(tree.getByRole('note')).toBeVisible();
  await tree.getByRole('note').scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('deep-tree.png') });
  expect(errors).toEqual([]);
});
