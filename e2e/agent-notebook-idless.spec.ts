import type { Locator } from '@playwright/test';
import { reply } from '../test-support/model-server';
import { debianPython } from '../test-support/nbformat';
import { nbformatWrites, type CellSpec } from '../test-support/nbformat-build';
import { DEFAULT_FIXTURE, expect } from './support/fixtures';
import { agentPanel, openNotebookForAgent, testWithModel } from './support/model';
import { cellOf, cellSources, outputOf } from './support/notebook';
import { mod, sendMessage } from './support/ui';

/**
 * Issue 39 on a notebook without cell ids (nbformat 4.4): an Agent turn edits one cell and appends one. The file
 * the turn leaves is nbformat's own write of the 4.4 notebook (no ids written, every other byte as it was); the
 * notebook marks the two cells by position; Undo of the edited cell brings back its source and output, Keep takes
 * the added one; the operator's save then writes what JupyterLab saves (4.5, with the ids Kiln gave).
 */

const test = testWithModel(['scripted-agent']);
const KERNEL_START = 60_000;

const CELLS: CellSpec[] = [
  { source: 'a = 1' },
  { source: 'b = 2', execution_count: 1, outputs: [{ output_type: 'stream', name: 'stdout', text: '2\n' }] },
  { type: 'markdown', source: '# Notes' },
];
const [NOTEBOOK, AFTER_TURN, EDIT_UNDONE] = nbformatWrites([
  { minor: 4, cells: CELLS },
  { minor: 4, cells: [CELLS[0], { ...CELLS[1], source: 'b = 20' }, CELLS[2], { source: 'd = 4' }] },
  { minor: 4, cells: [...CELLS, { source: 'd = 4' }] },
]);

/** nbformat's write of a 4.4 notebook upgraded to 4.5 with the given cell ids: what JupyterLab saves. */
function upgradedWithIds(text: string, ids: string[]): string {
  const script = [
    'import io, json, sys, nbformat',
    'nb = nbformat.reads(sys.argv[1], as_version=nbformat.NO_CONVERT); nb.nbformat_minor = 5',
    'for cell, id in zip(nb.cells, json.loads(sys.argv[2])): cell.id = id',
    'nbformat.validate(nb)',
    'out = io.StringIO(); nbformat.write(nb, out); sys.stdout.write(out.getvalue())',
  ].join('\n');
  return debianPython(['-c', script, text, JSON.stringify(ids)]);
}

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'old.ipynb': NOTEBOOK } });

const mark = (cell: Locator) => cell.getByRole('button', { name: /Review the Agent's change/ });

test('an Agent turn on a 4.4 notebook: marked by position, kept and undone per cell, the file stays 4.4', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  test.setTimeout(KERNEL_START + 90_000);
  const nb = await openNotebookForAgent(page, { kiln, workspace, model }, 'old.ipynb', 3);
  // The agent addresses a cell by the id Kiln gave it in memory (what its notebook listing shows).
  const ids = await nb.locator('.nb-cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-cell-id')));

  model.setReplies([
    reply.tool('edit-notebook-cell', { notebook: 'old.ipynb', cell_id: ids[1], source: 'b = 20' }),
    reply.tool('append-notebook-cell', { notebook_name: 'old.ipynb', source: 'd = 4' }),
    reply.text('Done.'),
  ]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await sendMessage(agentPanel(page), 'Twenty, and d.');
  const cells = agentPanel(page)
    .getByRole('region', { name: 'Changes of this turn' })
    .getByRole('group', { name: 'Cells of old.ipynb' });
  await expect(cells).toContainText('Cell 2: edited', { timeout: KERNEL_START });
  await expect(cells).toContainText('Cell 4: added');
  // The turn's write: the 4.4 notebook as nbformat writes it, no ids, no version change.
  await expect.poll(() => workspace.read('old.ipynb')).toBe(AFTER_TURN);

  // Marked by position: cells 2 and 4, not 1 and 3.
  await expect(cellOf(nb, 2).getByRole('button', { name: "Review the Agent's change (edited)" })).toBeVisible();
  await expect(cellOf(nb, 4).getByRole('button', { name: "Review the Agent's change (added)" })).toBeVisible();
  await expect(mark(cellOf(nb, 1))).toHaveCount(0);
  await expect(mark(cellOf(nb, 3))).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('agent-notebook-idless-marks.png') });

  await mark(cellOf(nb, 2)).click();
  const review = page.getByRole('region', { name: 'Notebook changes' });
  await expect(review.getByRole('group', { name: /^Cell \d+:/ })).toHaveCount(2);
  // No notebook-level change: the turn did not touch the format.
  await expect(review.getByRole('group', { name: 'Notebook: metadata changed' })).toHaveCount(0);
  await review
    .getByRole('group', { name: /^Cell 4: added/ })
    .getByRole('button', { name: 'Keep', exact: true })
    .click();
  await expect(review.getByRole('group', { name: /^Cell 4: added/ })).toContainText('Kept');
  await review
    .getByRole('group', { name: /^Cell 2: source changed/ })
    .getByRole('button', { name: 'Undo', exact: true })
    .click();
  await expect(review.getByRole('group', { name: /^Cell 2:/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('agent-notebook-idless-review.png') });
  await page.getByRole('button', { name: 'Close review' }).click();

  await expect.poll(() => cellSources(nb)).toEqual(['a = 1', 'b = 2', 'Notes', 'd = 4']);
  await expect(outputOf(nb, 2)).toContainText('2');
  await expect(mark(nb.locator('.nb-cell'))).toHaveCount(0);
  // Undone in the open notebook (one step of its undo): the file is still the turn's until the operator saves.
  expect(await workspace.read('old.ipynb')).toBe(AFTER_TURN);

  // The operator's save writes what JupyterLab saves of the expected notebook: 4.5, with the ids Kiln gave.
  await cellOf(nb, 3).locator('.nb-gutter').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press(`${mod}+s`);
  const idsNow = await nb.locator('.nb-cell').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-cell-id') ?? ''));
  await expect.poll(() => workspace.read('old.ipynb')).toBe(upgradedWithIds(EDIT_UNDONE, idsNow));
});
