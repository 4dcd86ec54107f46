import { reply } from '../test-support/model-server';
import { nbformatWrites } from '../test-support/nbformat-build';
import { DEFAULT_FIXTURE, expect } from './support/fixtures';
import { agentPanel, openNotebookForAgent, testWithModel } from './support/model';
import { cellOf, cellSources, editCell } from './support/notebook';
import { mod, sendMessage } from './support/ui';

/**
 * Issue 39: undoing an Agent's cell the operator edited after the turn keeps the operator's edit. The agent changes
 * the first line of two cells; the operator then edits the last line of one (the undo is three-way: the agent's
 * line goes back, the operator's stays) and the agent's own line of the other (the undo is refused for that cell,
 * saying why, and the cell is left as the operator has it). The refused cell carries its own mark: in the notebook,
 * in the turn's list and in the review, where its Undo is disabled with why.
 */

const test = testWithModel(['scripted-agent']);
const KERNEL_START = 60_000;

const [NOTEBOOK] = nbformatWrites([
  {
    cells: [
      { id: 'c1', source: 'x = 1\ny = 2\nz = 3' },
      { id: 'c2', source: 'p = 1' },
    ],
  },
]);

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'analysis.ipynb': NOTEBOOK } });

test("undoing the agent's cells keeps the operator's later edits, or refuses that cell", async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 90_000);
  const nb = await openNotebookForAgent(page, { kiln, workspace, model }, 'analysis.ipynb', 2);

  model.setReplies([
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'x = 10\ny = 2\nz = 3' }),
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c2', source: 'p = 10' }),
    reply.text('Done.'),
  ]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await sendMessage(agentPanel(page), 'Tens.');
  const cells = agentPanel(page)
    .getByRole('region', { name: 'Changes of this turn' })
    .getByRole('group', { name: 'Cells of analysis.ipynb' });
  await expect(cells).toContainText('Cell 2: edited', { timeout: KERNEL_START });
  await expect.poll(() => cellSources(nb)).toEqual(['x = 10\ny = 2\nz = 3', 'p = 10']);

  // The operator, after the turn: the last line of cell 1, and the agent's own line of cell 2 (unsaved).
  await editCell(nb, 1);
  await page.keyboard.press(`${mod}+End`);
  await page.keyboard.type('0');
  await editCell(nb, 2);
  await page.keyboard.press('End');
  await page.keyboard.type('0');
  await expect.poll(() => cellSources(nb)).toEqual(['x = 10\ny = 2\nz = 30', 'p = 100']);
  await page.keyboard.press('Escape');

  // Cell 2's Undo would lose the operator's edit: its mark says so as soon as the edit settles; cell 1's does not.
  await expect(
    cellOf(nb, 2).getByRole('button', { name: "Review the Agent's change (edited; not undone, edited since)" }),
  ).toBeVisible();
  await expect(cellOf(nb, 1).getByRole('button', { name: "Review the Agent's change (edited)" })).toBeVisible();

  await cellOf(nb, 1)
    .getByRole('button', { name: /Review the Agent's change/ })
    .click();
  const review = page.getByRole('region', { name: 'Notebook changes' });
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(2);
  // In the review, the refused cell is named so and its Undo disabled with why; the other stays undoable.
  const refused = review.getByRole('group', { name: 'Cell 2: source changed; not undone, edited since' });
  await expect(refused).toContainText('not undone, edited since');
  await expect(refused.getByRole('button', { name: 'Undo', exact: true })).toBeDisabled();
  await expect(refused.getByRole('button', { name: 'Undo', exact: true })).toHaveAttribute(
    'title',
    /^Not undone, to keep your later edits: you edited lines the agent changed\./,
  );
  await expect(refused.getByRole('button', { name: 'Keep', exact: true })).toBeEnabled();
  await expect(
    review.getByRole('group', { name: 'Cell 1: source changed' }).getByRole('button', { name: 'Undo', exact: true }),
  ).toBeEnabled();
  await expect(cells).toContainText('Cell 2: edited (not undone, edited since)');
  await page.screenshot({ path: test.info().outputPath('agent-notebook-refused-mark.png') });
  await review.getByRole('button', { name: 'Undo all' }).click();

  // Cell 1: the agent's line back, the operator's kept. Cell 2: refused, said why, left as the operator has it.
  await expect(
    page.getByRole('region', { name: "Agent's changes to analysis.ipynb" }).getByRole('alert'),
  ).toContainText('Not undone, to keep your later edits: Cell 2 (you edited lines the agent changed)');
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(1);
  await expect(refused).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('agent-notebook-undo-refused.png') });
  await page.getByRole('button', { name: 'Close review' }).click();
  await expect.poll(() => cellSources(nb)).toEqual(['x = 1\ny = 2\nz = 30', 'p = 100']);
  await expect(cellOf(nb, 1).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await expect(
    cellOf(nb, 2).getByRole('button', { name: "Review the Agent's change (edited; not undone, edited since)" }),
  ).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('agent-notebook-refused-cell.png') });
});
