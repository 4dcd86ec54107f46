import { reply } from '../test-support/model-server';
import { nbformatWithCellsFrom, nbformatWrites } from '../test-support/nbformat-build';
import { DEFAULT_FIXTURE, expect } from './support/fixtures';
import { agentPanel, openNotebookForAgent, testWithModel } from './support/model';
import { cellOf, openNotebook, outputOf } from './support/notebook';
import { mod, sendMessage } from './support/ui';

/**
 * Issue 39: an Agent turn's notebook edits are reviewed cell by cell. The scripted model edits two cells and runs
 * one on the real kernel; the turn lists the cells, the notebook marks them, and undoing one cell gives back that
 * cell with its old output while the other stays the agent's; the file saved is nbformat's own write.
 */

const test = testWithModel(['scripted-agent']);
const KERNEL_START = 60_000;

const [NOTEBOOK] = nbformatWrites([
  {
    metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
    cells: [
      { id: 'c1', source: 'a = 1' },
      {
        id: 'c2',
        source: 'print(2 + 2)',
        execution_count: 1,
        outputs: [{ output_type: 'stream', name: 'stdout', text: '4\n' }],
      },
      { id: 'c3', type: 'markdown', source: '# Notes' },
    ],
  },
]);

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'analysis.ipynb': NOTEBOOK } });

test('an Agent turn edits 2 cells and runs one; undoing one cell leaves the other, outputs as before', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 90_000);
  let nb = await openNotebookForAgent(page, { kiln, workspace, model }, 'analysis.ipynb', 3);

  model.setReplies([
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'a = 5' }),
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c2', source: 'print(3 * 3)' }),
    reply.tool('rerun-notebook-cell', { notebook_name: 'analysis.ipynb', cell_id: 'c2' }),
    reply.text('Done.'),
  ]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(agentPanel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await sendMessage(agentPanel(page), 'Change two cells and run one.');
  const checkpoint = agentPanel(page).getByRole('region', { name: 'Changes of this turn' });
  const cells = checkpoint.getByRole('group', { name: 'Cells of analysis.ipynb' });
  await expect(cells).toContainText('Cell 1: edited', { timeout: KERNEL_START });
  await expect(cells).toContainText('Cell 2: edited, ran');
  await expect(outputOf(nb, 2)).toContainText('9');
  // The agent saved the notebook it found clean.
  await expect.poll(() => workspace.read('analysis.ipynb')).toContain('print(3 * 3)');
  const afterTurn = await workspace.read('analysis.ipynb');

  // The notebook marks the agent's cells, in its colour, until they are reviewed.
  await expect(cellOf(nb, 1).getByRole('button', { name: "Review the Agent's change (edited)" })).toBeVisible();
  await expect(cellOf(nb, 2).getByRole('button', { name: "Review the Agent's change (edited, ran)" })).toBeVisible();
  await expect(cellOf(nb, 3).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('agent-notebook-marks.png') });

  // The marks are the notebook's own, from local history: after a reload, with the Agent panel never shown, the
  // notebook opened fresh marks the same cells.
  await page.getByRole('tab', { name: 'Outline' }).click();
  await page.reload();
  await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  await expect(agentPanel(page)).toHaveCount(0);
  nb = await openNotebook(page, 'analysis.ipynb');
  await expect(cellOf(nb, 1).getByRole('button', { name: "Review the Agent's change (edited)" })).toBeVisible();
  await expect(cellOf(nb, 2).getByRole('button', { name: "Review the Agent's change (edited, ran)" })).toBeVisible();
  await expect(cellOf(nb, 3).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await expect(agentPanel(page)).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('agent-notebook-marks-after-reload.png') });
  await page.getByRole('tab', { name: 'Agent' }).click();

  // The review of the turn's changes to the notebook: two cells to keep or undo.
  await cellOf(nb, 2)
    .getByRole('button', { name: /Review the Agent's change/ })
    .click();
  const review = page.getByRole('region', { name: 'Notebook changes' });
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(2);
  await expect(review.getByRole('button', { name: 'Keep all' })).toBeVisible();
  await expect(review.getByRole('button', { name: 'Undo all' })).toBeVisible();
  const second = review.getByRole('group', { name: /^Cell 2:/ });
  await expect(second).toContainText('9');
  await page.screenshot({ path: test.info().outputPath('agent-notebook-review.png') });

  // Undo cell 2: it comes back with its old output; cell 1 stays the agent's, still to review.
  await second.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(1);
  await expect(review.getByRole('group', { name: /^Cell 1:/ })).toBeVisible();
  await expect(cells).toContainText('1 cell change undone');
  await page.getByRole('button', { name: 'Close review' }).click();
  await expect(outputOf(nb, 2)).toContainText('4');
  await expect(outputOf(nb, 2)).not.toContainText('9');
  await expect(cellOf(nb, 2).getByRole('button', { name: /Review the Agent's change/ })).toHaveCount(0);
  await expect(cellOf(nb, 1).getByRole('button', { name: /Review the Agent's change/ })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('agent-notebook-after-undo.png') });

  // The undo was an edit of the open notebook: saved, the file is nbformat's write of the expected notebook.
  await cellOf(nb, 3).locator('.nb-gutter').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press(`${mod}+s`);
  const expected = nbformatWithCellsFrom(afterTurn, NOTEBOOK, ['c2']);
  await expect.poll(() => workspace.read('analysis.ipynb')).toBe(expected);
  expect(expected).toContain('"a = 5"');
  expect(expected).toContain('"4\\n"');

  // And it is one step of the notebook's undo: Z puts the agent's cell 2 back.
  await page.keyboard.press('z');
  await expect(outputOf(nb, 2)).toContainText('9');
});
