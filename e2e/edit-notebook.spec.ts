import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { reply, type ModelServer } from '../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../test-support/nbformat-build';
import { DEFAULT_FIXTURE, expect, type KilnWebHost, type TempWorkspace } from './support/fixtures';
import { configureScriptedModel, testWithModel } from './support/model';
import { cellOf, cellSources, editCell, openNotebook } from './support/notebook';
import { mod, sendMessage } from './support/ui';

/**
 * Issue 39: the Edit assistant on a notebook. The scripted model proposes three cell changes with propose_notebook;
 * the review is the notebook diff (cells, no JSON), decided cell by cell; what lands on disk is nbformat's own write.
 */

const test = testWithModel(['scripted-coder']);

const NB = 'analysis.ipynb';
const BASE_CELLS: CellSpec[] = [
  { id: 'a1', type: 'markdown', source: '# Title' },
  { id: 'a2', source: 'x = 1\nprint(x)' },
  { id: 'a3', source: 'y = 2' },
  { id: 'a4', source: 'z = 3' },
];
const [BASE] = nbformatWrites([{ cells: BASE_CELLS }]);

/** One source change (a2), one new cell (after a2), one deletion (a4). */
const PROPOSED = [
  { replaces: 'a1', cell_type: 'markdown', source: '# Title' },
  { replaces: 'a2', cell_type: 'code', source: 'x = 10\nprint(x)' },
  { replaces: null, cell_type: 'code', source: 'w = x * 2' },
  { replaces: 'a3', cell_type: 'code', source: 'y = 2' },
];

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, [NB]: BASE } });

function panel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Edit assistant' });
}

function changes(page: Page): Locator {
  return page.getByRole('region', { name: 'Notebook changes' });
}

function change(page: Page, label: string): Locator {
  return changes(page).getByRole('group', { name: label, exact: true });
}

const KERNEL_START = 60_000;

/** The scripted coder configured, the notebook open, and its proposal of PROPOSED asked for. */
async function askForProposal(
  { page, kiln, workspace, model }: { page: Page; kiln: KilnWebHost; workspace: TempWorkspace; model: ModelServer },
  note?: string,
): Promise<void> {
  await configureScriptedModel(workspace, model, 'scripted-coder', ['file_editing']);
  await kiln.open(page);
  await openNotebook(page, NB);
  model.enqueue(reply.tool('propose_notebook', { cells: PROPOSED }, note));
  await sendMessage(panel(page), 'scale x, add w, drop z');
}

test('a notebook proposal is reviewed as cells: accept 2 (button, Mod+Enter), reject 1 (Mod+Backspace)', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  await askForProposal({ page, kiln, workspace, model }, 'Scaled x, added w, dropped z.');

  // Three cell changes, named as the issue says; no notebook JSON anywhere in the review.
  await expect(changes(page).getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(3);
  await expect(change(page, 'Cell 2: source changed')).toBeVisible();
  await expect(change(page, 'Cell 3: added')).toBeVisible();
  await expect(change(page, 'Cell 4: deleted')).toBeVisible();
  const review = page.getByRole('region', { name: `Proposed changes to ${NB}` });
  await expect(review).not.toContainText('cell_type');
  await expect(review).not.toContainText('nbformat');
  await expect(changes(page).getByRole('button', { name: 'Accept all' })).toBeVisible();
  await page.screenshot({ path: 'test-results/edit-notebook-review.png' });

  await change(page, 'Cell 2: source changed').getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(change(page, 'Cell 2: source changed')).toContainText('Accepted');
  // The keyboard: the focused change, Mod+Enter to accept, Mod+Backspace to reject.
  await change(page, 'Cell 3: added').focus();
  await page.keyboard.press(`${mod}+Enter`);
  await expect(change(page, 'Cell 3: added')).toContainText('Accepted');
  await expect(change(page, 'Cell 4: deleted')).toBeFocused();
  await page.keyboard.press(`${mod}+Backspace`);

  // Every change decided: the review closes and the disk holds nbformat's own write of the expected notebook.
  await expect(changes(page)).toHaveCount(0);
  const onDisk = await readFile(workspace.abs(NB), 'utf8');
  const newId = (JSON.parse(onDisk) as { cells: { id: string }[] }).cells[2].id;
  const [expected] = nbformatWrites([
    {
      cells: [
        BASE_CELLS[0],
        { ...BASE_CELLS[1], source: 'x = 10\nprint(x)' },
        { id: newId, source: 'w = x * 2' },
        BASE_CELLS[2],
        BASE_CELLS[3],
      ],
    },
  ]);
  expect(onDisk).toBe(expected);
  await expect(panel(page)).toContainText('Rejected the deletion of cell a4');
});

test('changed on disk after the proposal: Accept is refused, and Review against current notebook re-diffs it', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  await askForProposal({ page, kiln, workspace, model });
  await expect(change(page, 'Cell 2: source changed')).toBeVisible();

  // Another program changes a3 behind the review.
  const [changed] = nbformatWrites([
    { cells: BASE_CELLS.map((c) => (c.id === 'a3' ? { ...c, source: 'y = 20' } : c)) },
  ]);
  await workspace.write(NB, changed);
  await change(page, 'Cell 2: source changed').getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(panel(page).getByRole('alert')).toContainText('changed on disk since this proposal was made');
  expect(await readFile(workspace.abs(NB), 'utf8')).toBe(changed);

  await panel(page).getByRole('button', { name: 'Review against current notebook' }).click();
  // Now against the notebook on disk: the proposal would also put a3 back to "y = 2", shown for the operator to reject.
  await expect(change(page, 'Cell 4: source changed')).toBeVisible();
  await change(page, 'Cell 4: source changed').getByRole('button', { name: 'Reject', exact: true }).click();
  await changes(page).getByRole('button', { name: 'Accept all' }).click();
  await expect(changes(page)).toHaveCount(0);
  const written = JSON.parse(await readFile(workspace.abs(NB), 'utf8')) as { cells: { source: string[] }[] };
  expect(written.cells.map((c) => c.source.join(''))).toEqual(['# Title', 'x = 10\nprint(x)', 'w = x * 2', 'y = 20']);
});

test('a notebook with unsaved edits: proposed against them, accepted into the open notebook, undone with its undo', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  await configureScriptedModel(workspace, model, 'scripted-coder', ['file_editing']);
  await kiln.open(page);
  const nb = await openNotebook(page, NB);
  // The operator's unsaved edit: a3 becomes "y = 20".
  await editCell(nb, 3);
  await page.keyboard.press('End');
  await page.keyboard.type('0');
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();

  model.enqueue(
    reply.tool('propose_notebook', {
      cells: [
        { replaces: 'a1', cell_type: 'markdown', source: '# Title' },
        { replaces: 'a2', cell_type: 'code', source: 'x = 10\nprint(x)' },
        { replaces: 'a3', cell_type: 'code', source: 'y = 20' },
      ],
    }),
  );
  await sendMessage(panel(page), 'scale x, drop z');
  // Diffed against the open notebook: its unsaved edit of a3 is not a change.
  await expect(change(page, 'Cell 2: source changed')).toBeVisible();
  await expect(change(page, 'Cell 4: deleted')).toBeVisible();
  await expect(changes(page).getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(2);
  await page.screenshot({ path: 'test-results/edit-notebook-unsaved-review.png' });
  await change(page, 'Cell 2: source changed').getByRole('button', { name: 'Accept', exact: true }).click();
  await expect(change(page, 'Cell 2: source changed')).toContainText('Accepted');
  await changes(page).getByRole('button', { name: 'Accept all' }).click();
  await expect(changes(page)).toHaveCount(0);

  // Into the open notebook, not the file: the notebook is dirty, the disk as it was.
  await expect.poll(() => cellSources(nb)).toEqual(['Title', 'x = 10\nprint(x)', 'y = 20']);
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
  expect(await readFile(workspace.abs(NB), 'utf8')).toBe(BASE);

  // The notebook's undo takes the accepted changes back one at a time, and redo brings them again.
  await cellOf(nb, 2).locator('.nb-prompt').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press(`${mod}+z`);
  await expect.poll(() => cellSources(nb)).toEqual(['Title', 'x = 10\nprint(x)', 'y = 20', 'z = 3']);
  await page.keyboard.press(`${mod}+z`);
  await expect.poll(() => cellSources(nb)).toEqual(['Title', 'x = 1\nprint(x)', 'y = 20', 'z = 3']);
  await page.keyboard.press(`${mod}+Shift+z`);
  await page.keyboard.press(`${mod}+Shift+z`);
  await expect.poll(() => cellSources(nb)).toEqual(['Title', 'x = 10\nprint(x)', 'y = 20']);

  // Saved: nbformat's own write of the operator's edit plus the accepted cell.
  await page.keyboard.press(`${mod}+s`);
  await expect(nb.getByTestId('notebook-dirty')).toHaveCount(0);
  const [expected] = nbformatWrites([
    {
      cells: [BASE_CELLS[0], { ...BASE_CELLS[1], source: 'x = 10\nprint(x)' }, { ...BASE_CELLS[2], source: 'y = 20' }],
    },
  ]);
  expect(await readFile(workspace.abs(NB), 'utf8')).toBe(expected);
});

test('into an unsaved notebook: the review names its side "unsaved notebook", and an accepted move is one undo step', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  await configureScriptedModel(workspace, model, 'scripted-coder', ['file_editing']);
  await kiln.open(page);
  const nb = await openNotebook(page, NB);
  // The operator's unsaved edit: a3 becomes "y = 20".
  await editCell(nb, 3);
  await page.keyboard.press('End');
  await page.keyboard.type('0');
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();

  // a4 moves to the top; a2's source changes.
  model.enqueue(
    reply.tool('propose_notebook', {
      cells: [
        { replaces: 'a4', cell_type: 'code', source: 'z = 3' },
        { replaces: 'a1', cell_type: 'markdown', source: '# Title' },
        { replaces: 'a2', cell_type: 'code', source: 'x = 10\nprint(x)' },
        { replaces: 'a3', cell_type: 'code', source: 'y = 20' },
      ],
    }),
  );
  await sendMessage(panel(page), 'z first');
  await expect(change(page, 'Cell 3: source changed')).toBeVisible();
  // The old side is the open notebook's unsaved state, said so.
  await expect(page.locator('.pr-legend')).toHaveText('left: unsaved notebook · right: proposal');
  await expect(
    changes(page).getByRole('textbox', { name: 'Cell 3 source, analysis.ipynb, unsaved notebook' }),
  ).toHaveCount(1);
  await page.screenshot({ path: 'test-results/edit-notebook-unsaved-move.png' });
  await changes(page).getByRole('button', { name: 'Accept all' }).click();
  await expect(changes(page)).toHaveCount(0);
  await expect.poll(() => cellSources(nb)).toEqual(['z = 3', 'Title', 'x = 10\nprint(x)', 'y = 20']);

  // Undo: the source change first, then the move, whole, in one step.
  await cellOf(nb, 3).locator('.nb-prompt').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press(`${mod}+z`);
  await expect.poll(() => cellSources(nb)).toEqual(['z = 3', 'Title', 'x = 1\nprint(x)', 'y = 20']);
  await page.keyboard.press(`${mod}+z`);
  await expect.poll(() => cellSources(nb)).toEqual(['Title', 'x = 1\nprint(x)', 'y = 20', 'z = 3']);
});
