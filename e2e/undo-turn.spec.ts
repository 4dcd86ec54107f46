import type { Locator, Page } from '@playwright/test';
import { ModelServer, reply } from '../test-support/model-server';
import { jupyterOneCellNotebook } from '../test-support/notebook-doc';
import { DEFAULT_FIXTURE, expect, type TempWorkspace } from './support/fixtures';
import { configureScriptedModel, testWithModel } from './support/model';
import { mod, openFile, sendMessage, typeAtEnd } from './support/ui';

const test = testWithModel(['scripted-agent']);

// Jupyter's own formatting: undo must give these exact bytes back.
const NOTEBOOK = `${jupyterOneCellNotebook('x = 1.50')}\n`;
test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'analysis.ipynb': NOTEBOOK } });

const panel = (page: Page): Locator => page.getByRole('complementary', { name: 'Agent' });

async function runTurn(page: Page, workspace: TempWorkspace, model: ModelServer): Promise<Locator> {
  await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
  model.setReplies([
    reply.tool('write-file', { path: 'src/new.py', content: 'print("new")\n' }),
    reply.tool('edit-file', {
      path: 'notes/todo.txt',
      mode: 'replace',
      old: 'second\n',
      new: 'second, by the agent\n',
    }),
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'x = 2' }),
    reply.tool('run-file', { path: 'src/app.py' }),
    reply.text('Done.'),
  ]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(panel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await sendMessage(panel(page), 'Change three files.');
  const checkpoint = panel(page).getByRole('region', { name: 'Changes of this turn' });
  await expect(checkpoint.getByRole('listitem')).toHaveText([
    /created src\/new\.py/,
    /changed notes\/todo\.txt/,
    /changed analysis\.ipynb/,
    /ran src\/app\.py/,
  ]);
  return checkpoint;
}

test('"Undo this turn" puts a written file, an edited file and an edited notebook cell back byte-exact', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  await kiln.open(page);
  const checkpoint = await runTurn(page, workspace, model);
  expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond, by the agent\n');
  await page.screenshot({ path: test.info().outputPath('undo-turn-checkpoint.png') });

  await checkpoint.getByRole('button', { name: 'Undo this turn' }).click();
  await expect(checkpoint.getByRole('status')).toContainText('Undone: 3 of 3 files');
  await expect(checkpoint.getByRole('status')).toContainText('scripts/');
  expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
  expect(await workspace.exists('src/new.py')).toBe(false);

  // The transcript still shows the turn undone after a reload (history keeps it).
  await page.reload();
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(checkpoint.getByRole('status')).toContainText('Undone: 3 of 3 files');
  await expect(checkpoint.getByRole('button', { name: 'Undo this turn' })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('undo-turn-after-reload.png') });

  // Undo is recorded: Redo brings the turn's work back.
  await checkpoint.getByRole('button', { name: 'Redo' }).click();
  await expect(checkpoint.getByRole('button', { name: 'Undo this turn' })).toBeVisible();
  expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond, by the agent\n');
  expect(await workspace.read('src/new.py')).toBe('print("new")\n');
});

test('a file the operator changed after the turn is shown in a diff and kept when told "Keep current"', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  await kiln.open(page);
  const checkpoint = await runTurn(page, workspace, model);
  // The operator edits and saves the file the agent changed.
  await openFile(page, 'notes', 'todo.txt');
  await expect(page.locator('.code-editor .view-lines')).toContainText('by the agent');
  await typeAtEnd(page, 'mine');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond, by the agent\nmine');

  await checkpoint.getByRole('button', { name: 'Undo this turn' }).click();
  await expect(checkpoint.getByRole('status')).toContainText('Undone: 2 of 3 files');
  const conflict = checkpoint.getByRole('group', { name: 'Changed since the turn: notes/todo.txt' });
  await expect(conflict.locator('.monaco-diff-editor')).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('undo-turn-conflict.png') });
  expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
  expect(await workspace.exists('src/new.py')).toBe(false);

  await conflict.getByRole('button', { name: 'Keep current' }).click();
  await expect(conflict).toHaveCount(0);
  expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond, by the agent\nmine');
});

test('"Undo this turn" also takes back what code the turn ran wrote: a created file, a changed one and a deleted one', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  await kiln.open(page);
  await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
  const code = [
    'import os',
    "open('data/result.csv', 'w').write('total\\n10\\n')",
    "open('notes/todo.txt', 'a').write('third, by the run\\n')",
    "os.remove('data/sample.csv')",
    "print('wrote')",
  ].join('\n');
  model.setReplies([reply.tool('execute-code', { code }), reply.text('Done.')]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(panel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await sendMessage(panel(page), 'Run code that writes files.');
  const checkpoint = panel(page).getByRole('region', { name: 'Changes of this turn' });
  await expect(checkpoint.getByRole('listitem')).toHaveText([
    /created data\/result\.csv/,
    /deleted data\/sample\.csv/,
    /changed notes\/todo\.txt/,
    /ran scripts\/step_001_\S+\.py$/,
  ]);
  // The run's writes reached the workspace when it ended (and the tree shows them).
  expect(await workspace.read('data/result.csv')).toBe('total\n10\n');
  expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\nthird, by the run\n');
  expect(await workspace.exists('data/sample.csv')).toBe(false);
  await page.screenshot({ path: test.info().outputPath('undo-turn-run-checkpoint.png') });

  await checkpoint.getByRole('button', { name: 'Undo this turn' }).click();
  await expect(checkpoint.getByRole('status')).toContainText('Undone: 3 of 3 files');
  expect(await workspace.read('notes/todo.txt')).toBe(DEFAULT_FIXTURE['notes/todo.txt']);
  expect(await workspace.read('data/sample.csv')).toBe(DEFAULT_FIXTURE['data/sample.csv']);
  expect(await workspace.exists('data/result.csv')).toBe(false);
  // The step that ran stays: it is the log of what ran.
  expect(await workspace.exists('scripts')).toBe(true);
  await page.screenshot({ path: test.info().outputPath('undo-turn-run-undone.png') });
});

test.describe('where a run cannot be staged', () => {
  test.use({ hostEnv: { KILN_RUN_OVERLAY: 'none' } });

  test('the run writes to disk directly, and its chip and the turn say undo cannot restore what it wrote', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await kiln.open(page);
    await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
    model.setReplies([
      reply.tool('execute-code', { code: "open('data/direct.csv', 'w').write('d\\n')" }),
      reply.text('Done.'),
    ]);
    await page.getByRole('tab', { name: 'Agent' }).click();
    await expect(panel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
    await sendMessage(panel(page), 'Run code that writes a file.');
    const checkpoint = panel(page).getByRole('region', { name: 'Changes of this turn' });
    await expect(checkpoint.getByRole('listitem')).toHaveText([
      /ran scripts\/step_001_\S+\.pyIt wrote to disk directly: undo cannot restore what it wrote\.$/,
    ]);
    await expect(panel(page).getByText('exit 0 · writes not undoable')).toBeVisible();
    await expect(checkpoint.getByRole('button', { name: 'Undo this turn' })).toHaveCount(0);
    expect(await workspace.read('data/direct.csv')).toBe('d\n');
    await page.screenshot({ path: test.info().outputPath('undo-turn-direct-writes.png') });
  });
});
