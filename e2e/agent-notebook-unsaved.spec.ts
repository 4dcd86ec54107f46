import type { Locator, Page } from '@playwright/test';
import { reply } from '../test-support/model-server';
import { nbformatWrites } from '../test-support/nbformat-build';
import { DEFAULT_FIXTURE, expect } from './support/fixtures';
import { agentPanel, openNotebookForAgent, testWithModel } from './support/model';
import { cellOf, cellSources, editCell } from './support/notebook';
import { mod, sendMessage } from './support/ui';

/**
 * Issue 39: an Agent turn that edits a notebook open with the operator's unsaved edits. The verbs leave the change in
 * the open notebook, unsaved; the turn still lists the agent's cell and the notebook marks it. Undoing it in the
 * review puts the cell back in the open notebook and leaves the operator's unsaved edit of another cell exact: saved,
 * the file is nbformat's own write of the operator's edit alone.
 */

const test = testWithModel(['scripted-agent']);
type AgentFixtures = Parameters<typeof openNotebookForAgent>[1];
const KERNEL_START = 60_000;

const [NOTEBOOK, MINE] = nbformatWrites([
  {
    cells: [
      { id: 'c1', source: 'a = 1' },
      { id: 'c2', source: 'c = 0' },
      { id: 'c3', source: 'b = 2' },
    ],
  },
  {
    cells: [
      { id: 'c1', source: 'a = 100' },
      { id: 'c2', source: 'c = 0' },
      { id: 'c3', source: 'b = 2' },
    ],
  },
]);

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'analysis.ipynb': NOTEBOOK } });

/**
 * The scene of every test here: the operator's unsaved edit of cell 1 ("a = 100"), then an Agent turn that edits cell
 * 3 ("b = 3") and leaves it unsaved. Returns the notebook and the turn's group of its cells once it lists cell 3.
 */
async function agentEditBesideUnsavedEdit(
  page: Page,
  fixtures: AgentFixtures,
): Promise<{ nb: Locator; cells: Locator }> {
  const nb = await openNotebookForAgent(page, fixtures, 'analysis.ipynb', 3);
  await editCell(nb, 1);
  await page.keyboard.press('End');
  await page.keyboard.type('00');
  await page.keyboard.press('Escape');
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
  await expect.poll(() => cellSources(nb)).toEqual(['a = 100', 'c = 0', 'b = 2']);

  fixtures.model.setReplies([
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c3', source: 'b = 3' }),
    reply.text('Done.'),
  ]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(agentPanel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await sendMessage(agentPanel(page), 'Three.');
  const cells = agentPanel(page)
    .getByRole('region', { name: 'Changes of this turn' })
    .getByRole('group', { name: 'Cells of analysis.ipynb' });
  await expect(cells).toContainText('Cell 3: edited', { timeout: KERNEL_START });
  return { nb, cells };
}

/** Saves the notebook (command mode, Mod+S): the file is then nbformat's own write of the operator's edit alone. */
async function saveExpectingMine(page: Page, nb: Locator, workspace: AgentFixtures['workspace']): Promise<void> {
  await cellOf(nb, 2).locator('.nb-gutter').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('analysis.ipynb')).toBe(MINE);
}

test("the Agent's edit of a notebook with unsaved edits is listed, marked and undone in the open notebook", async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 90_000);
  const { nb, cells } = await agentEditBesideUnsavedEdit(page, { kiln, workspace, model });
  await expect(cells).not.toContainText('Cell 1');
  await expect(cells).toContainText('In the open notebook, not saved yet');
  await expect.poll(() => cellSources(nb)).toEqual(['a = 100', 'c = 0', 'b = 3']);
  // Nothing was saved behind the operator's back.
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);

  // The notebook marks the agent's cell, not the operator's.
  await expect(cellOf(nb, 3).getByRole('button', { name: "Review the Agent's change (edited)" })).toBeVisible();
  await expect(cellOf(nb, 1).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('agent-notebook-unsaved-marks.png') });

  await cellOf(nb, 3)
    .getByRole('button', { name: /Review the Agent's change/ })
    .click();
  const review = page.getByRole('region', { name: 'Notebook changes' });
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(1);
  const third = review.getByRole('group', { name: /^Cell 3:/ });
  await expect(third).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('agent-notebook-unsaved-review.png') });
  await third.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(0);
  await expect(cells).toContainText('1 cell change undone');
  await page.getByRole('button', { name: 'Close review' }).click();

  // Cell 3 is back, cell 1's unsaved edit is intact, and the notebook is still unsaved.
  await expect.poll(() => cellSources(nb)).toEqual(['a = 100', 'c = 0', 'b = 2']);
  await expect(cellOf(nb, 3).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
  await page.screenshot({ path: test.info().outputPath('agent-notebook-unsaved-after-undo.png') });

  // Saved: the operator's edit alone, byte for byte as nbformat writes it.
  await saveExpectingMine(page, nb, workspace);
});

test('"Undo this turn" undoes the agent\'s cell in the open notebook and keeps the unsaved edit', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  const { nb } = await agentEditBesideUnsavedEdit(page, { kiln, workspace, model });
  const checkpoint = agentPanel(page).getByRole('region', { name: 'Changes of this turn' });
  await checkpoint.getByRole('button', { name: 'Undo this turn' }).click();
  await expect(checkpoint.getByRole('status')).toContainText('Undone: 1 of 1 file');
  await expect.poll(() => cellSources(nb)).toEqual(['a = 100', 'c = 0', 'b = 2']);
  await expect(cellOf(nb, 3).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('agent-notebook-unsaved-undo-turn.png') });
  await saveExpectingMine(page, nb, workspace);
});

test("closing the notebook with Don't Save says in the Agent panel that the turn's changes were discarded", async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 60_000);
  const { cells } = await agentEditBesideUnsavedEdit(page, { kiln, workspace, model });
  await expect(cells).toContainText('In the open notebook, not saved yet');

  // The notebook closes with Don't Save: no view of it is left, yet the panel's turn says what became of its cells.
  await page.getByRole('button', { name: 'Close analysis.ipynb' }).click();
  await page.getByRole('dialog').getByRole('button', { name: "Don't Save" }).click();
  await expect(page.getByRole('tab', { name: 'analysis.ipynb' })).toHaveCount(0);
  await expect(cells).toContainText('were discarded with it');
  await expect(cells).not.toContainText('Cell 3');
  await page.screenshot({ path: test.info().outputPath('agent-notebook-unsaved-discarded.png') });
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
});
