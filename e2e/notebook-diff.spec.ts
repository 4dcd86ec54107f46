import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { mod, treeItem } from './support/ui';
import { expectAccessible } from './support/axe';
import { cell, cellOf, cellSources, editCell, notebook, openNotebook } from './support/notebook';

/**
 * Issue 39: a notebook compared in the Timeline shows as cells (never its JSON), each change a named group,
 * F7 going from change to change, and one cell of the older version restorable into the open notebook.
 */

const KERNEL_START = 60_000;

test.use({
  fixtureFiles: {
    ...DEFAULT_FIXTURE,
    'steps.ipynb': notebook(
      cell('code', 'a = 1'),
      cell('code', 'b = 2'),
      cell('code', 'c = 3'),
      cell('markdown', '# The end'),
    ),
  },
});

async function commandModeOn(page: Page, nb: Locator, n: number): Promise<void> {
  await cellOf(nb, n).locator('.nb-prompt').click();
  await page.keyboard.press('Escape');
}

test('the Timeline compares a notebook cell by cell, F7 goes through the changes, and one cell comes back', async ({
  page,
  kiln,
  workspace,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  await kiln.open(page);
  const nb = await openNotebook(page, 'steps.ipynb');
  await expect(cellOf(nb, 4)).toBeVisible();

  // Edit cell 1, delete cell 3, add a cell at the end; save: the version before is in the Timeline.
  await editCell(nb, 1);
  await page.keyboard.type('0');
  await commandModeOn(page, nb, 3);
  await page.keyboard.press('d');
  await page.keyboard.press('d');
  await expect.poll(() => cellSources(nb)).toEqual(['a = 10', 'b = 2', 'The end']);
  // The markdown cell has no prompt: select cell 2, then J down to it, B for a new cell below.
  await commandModeOn(page, nb, 2);
  await page.keyboard.press('j');
  await page.keyboard.press('b');
  await expect(cellOf(nb, 4)).toBeVisible();
  await editCell(nb, 4);
  await page.keyboard.type('d = 4');
  await page.keyboard.press('Escape');
  await expect.poll(() => cellSources(nb)).toEqual(['a = 10', 'b = 2', 'The end', 'd = 4']);
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('steps.ipynb')).toContain('d = 4');

  await treeItem(page, 'steps.ipynb').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Timeline' }).click();
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await timeline.getByRole('listitem').first().getByRole('button').click();
  const slot = page.getByRole('region', { name: 'Timeline version of steps.ipynb' });
  const changes = slot.getByRole('region', { name: 'Notebook changes' });
  await expect(changes).toBeVisible();

  const groups = changes.getByRole('group');
  await expect(groups).toHaveCount(3);
  const names = ['Cell 1: source changed', 'Cell 3: deleted', 'Cell 4: added'];
  for (const [k, name] of names.entries()) await expect(groups.nth(k)).toHaveAccessibleName(name);
  await expect(changes.getByRole('button', { name: '1 unchanged cell' })).toHaveCount(2);
  // Cells, not the file: no JSON on screen.
  await expect(slot).not.toContainText('"cell_type"');
  await expect(slot).not.toContainText('"source"');
  await expect(groups.nth(0).getByTestId('cell-source-diff').locator('.monaco-diff-editor')).toBeVisible();
  // Read-only: nothing to accept or reject here.
  await expect(changes.getByRole('button', { name: /^(Accept|Reject|Keep|Undo)/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('notebook-diff-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: test.info().outputPath('notebook-diff-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  // Inline, as the diff preference says; the source diff grows to hold the old line and the new.
  const sourceDiff = groups.nth(0).getByTestId('cell-source-diff');
  const sideBySideHeight = (await sourceDiff.boundingBox())!.height;
  await slot.getByRole('button', { name: 'Inline', exact: true }).click();
  await expect(slot.getByRole('button', { name: 'Side by side', exact: true })).toBeVisible();
  await expect.poll(async () => (await sourceDiff.boundingBox())!.height).toBeGreaterThan(sideBySideHeight);
  await page.screenshot({ path: test.info().outputPath('notebook-diff-inline.png') });
  await slot.getByRole('button', { name: 'Side by side', exact: true }).click();

  // F7 from change to change, round the end; Shift+F7 back.
  await changes.getByRole('button', { name: 'Show metadata' }).focus();
  for (const name of [...names, names[0]]) {
    await page.keyboard.press('F7');
    await expect(page.locator(':focus')).toHaveAccessibleName(name);
  }
  await page.keyboard.press('Shift+F7');
  await expect(page.locator(':focus')).toHaveAccessibleName(names[2]);
  // From inside a cell's source diff too: F7 is the view's there, not Monaco's (its own within one cell).
  await groups.nth(0).locator('.editor.modified .view-lines').click();
  await page.keyboard.press('F7');
  await expect(page.locator(':focus')).toHaveAccessibleName(names[1]);
  await expectAccessible(page, 'notebook diff');

  // Restore cell 1 from the version: one undoable edit of the open notebook, the diff redrawn without it.
  await groups.nth(0).getByRole('button', { name: 'Restore this cell', exact: true }).click();
  await expect(groups).toHaveCount(2);
  await expect(groups.nth(0)).toHaveAccessibleName('Cell 3: deleted');
  // The deleted cell comes back in its place.
  await groups.nth(0).getByRole('button', { name: 'Restore this cell', exact: true }).click();
  await expect(groups).toHaveCount(1);
  await expect(groups.nth(0)).toHaveAccessibleName('Cell 5: added');
  // The added cell has no older self to restore.
  await expect(groups.nth(0).getByRole('button', { name: 'Restore this cell' })).toHaveCount(0);

  await slot.getByRole('button', { name: 'Close version' }).click();
  await expect.poll(() => cellSources(nb)).toEqual(['a = 1', 'b = 2', 'c = 3', 'The end', 'd = 4']);
  // Unsaved, as any edit: the file keeps what was saved until the operator saves.
  expect(await workspace.read('steps.ipynb')).toContain('a = 10');
  // The notebook's undo takes the restores back, one at a time.
  await commandModeOn(page, nb, 1);
  await page.keyboard.press('z');
  await expect.poll(() => cellSources(nb)).toEqual(['a = 1', 'b = 2', 'The end', 'd = 4']);
  await page.keyboard.press('z');
  await expect.poll(() => cellSources(nb)).toEqual(['a = 10', 'b = 2', 'The end', 'd = 4']);
});

test.describe('changed on disk', () => {
  const stream = (text: string) => ({ name: 'stdout', output_type: 'stream', text: [text] });
  // Another program rewrites the notebook: cell 1's output and cell 2's text change, their ids stay.
  const shared = (output: string, notes: string) =>
    notebook(
      { ...cell('code', 'a = 1'), id: 'calc', execution_count: 1, outputs: [stream(output)] },
      { ...cell('markdown', notes), id: 'notes' },
    );
  test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'shared.ipynb': shared('first run\n', '# Notes') } });

  test('Compare shows the disk and the unsaved notebook as cells, outputs drawn', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    const nb = await openNotebook(page, 'shared.ipynb');
    await expect(cellOf(nb, 1)).toContainText('first run');
    // A new cell (an edit main has applied once it shows, unlike typing on its way) makes the notebook dirty.
    await commandModeOn(page, nb, 1);
    await page.keyboard.press('b');
    await expect(cellOf(nb, 3)).toBeVisible();
    await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
    await workspace.write('shared.ipynb', shared('second run\n', '# Notes, revised'));
    const bar = nb.getByRole('alert', { name: 'Changed on disk' });
    await bar.getByRole('button', { name: 'Compare', exact: true }).click();

    const changes = nb.getByRole('region', { name: 'Notebook changes' });
    const groups = changes.getByRole('group');
    await expect(groups).toHaveCount(3);
    await expect(groups.nth(0)).toHaveAccessibleName('Cell 1: outputs changed');
    await expect(groups.nth(1)).toHaveAccessibleName('Cell 2: added');
    await expect(groups.nth(2)).toHaveAccessibleName('Cell 3: source changed');
    // Outputs as the notebook draws them, the disk's before and the notebook's after.
    await expect(groups.nth(0).locator('.nbd-outputs-old')).toContainText('second run');
    await expect(groups.nth(0).locator('.nbd-outputs-new')).toContainText('first run');
    await expect(changes).not.toContainText('"output_type"');
    await page.screenshot({ path: test.info().outputPath('notebook-disk-compare.png') });

    // Nothing is decided here: Reload or Overwrite still do, and the compare goes with the conflict.
    await bar.getByRole('button', { name: 'Reload' }).click();
    await expect(changes).toHaveCount(0);
    await expect(cellOf(nb, 1)).toContainText('second run');
  });
});
