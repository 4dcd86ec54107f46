import type { ChildProcess } from 'node:child_process';
import { access, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { trustFolder } from '../main/trust';
import { ModelServer, reply } from '../test-support/model-server';
import { jupyterOneCellNotebook } from '../test-support/notebook-doc';
import { DEFAULT_FIXTURE, expect, startWebHost, type TempWorkspace } from './support/fixtures';
import { agentPanel, configureScriptedModel, testWithModel } from './support/model';
import { mod, openFile, sendMessage, typeAtEnd } from './support/ui';

const test = testWithModel(['scripted-agent']);

// Jupyter's own formatting: undo must give these exact bytes back.
const NOTEBOOK = `${jupyterOneCellNotebook('x = 1.50')}\n`;
test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'analysis.ipynb': NOTEBOOK } });

/** Sends a message from the Agent tab whose scripted turn runs `code` (execute-code); the turn's list of changes. */
async function runCodeTurn(page: Page, model: ModelServer, code: string[], message: string): Promise<Locator> {
  model.setReplies([reply.tool('execute-code', { code: code.join('\n') }), reply.text('Done.')]);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(agentPanel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await sendMessage(agentPanel(page), message);
  return agentPanel(page).getByRole('region', { name: 'Changes of this turn' });
}

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
  await expect(agentPanel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await sendMessage(agentPanel(page), 'Change three files.');
  const checkpoint = agentPanel(page).getByRole('region', { name: 'Changes of this turn' });
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
  ];
  const checkpoint = await runCodeTurn(page, model, code, 'Run code that writes files.');
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

test('the turn lists the folders and links a run made and the mode it changed, and undo takes them back', async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  await kiln.open(page);
  await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
  const code = [
    'import os',
    "os.makedirs('out/empty')",
    "os.symlink('app.py', 'src/latest.py')",
    "os.chmod('src/app.py', 0o755)",
  ];
  const checkpoint = await runCodeTurn(page, model, code, 'Make a folder and a link.');
  await expect(checkpoint.getByRole('listitem')).toHaveText([
    /created folder out$/,
    /created folder out\/empty$/,
    /changed src\/app\.py$/,
    /created link src\/latest\.py$/,
    /ran scripts\/step_001_\S+\.py$/,
  ]);
  expect((await stat(path.join(workspace.root, 'src/app.py'))).mode & 0o777).toBe(0o755);
  await page.screenshot({ path: test.info().outputPath('undo-turn-folders-links.png') });
  await checkpoint.getByRole('button', { name: 'Undo this turn' }).click();
  await expect(checkpoint.getByRole('status')).toContainText('Undone: 4 of 4 files');
  expect(await workspace.exists('out')).toBe(false);
  expect(await workspace.exists('src/latest.py')).toBe(false);
  expect((await stat(path.join(workspace.root, 'src/app.py'))).mode & 0o777).toBe(0o644);
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
    const code = ["open('data/direct.csv', 'w').write('d\\n')"];
    const checkpoint = await runCodeTurn(page, model, code, 'Run code that writes a file.');
    await expect(checkpoint.getByRole('listitem')).toHaveText([
      /ran scripts\/step_001_\S+\.pyIt wrote to disk directly: undo cannot restore what it wrote\.$/,
    ]);
    await expect(agentPanel(page).getByText('exit 0 · writes not undoable')).toBeVisible();
    await expect(checkpoint.getByRole('button', { name: 'Undo this turn' })).toHaveCount(0);
    expect(await workspace.read('data/direct.csv')).toBe('d\n');
    await page.screenshot({ path: test.info().outputPath('undo-turn-direct-writes.png') });
  });
});

test.describe('a run cut short by a killed host', () => {
  let dataDir: string;
  let host: ChildProcess | null = null;

  test.beforeEach(async ({ workspace }) => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-cut-short-'));
    await trustFolder(dataDir, workspace.root);
  });
  test.afterEach(async () => {
    if (host && host.exitCode === null && host.signalCode === null) {
      const exited = new Promise((resolve) => host!.once('exit', resolve));
      host.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  async function start(page: Page, root: string): Promise<void> {
    const started = await startWebHost(root, dataDir);
    host = started.child;
    await page.goto(started.url);
    await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  }

  /** Whether a run staged in the data folder has written `rel` (its upper layer, Kiln's own folder). */
  async function runWrote(rel: string): Promise<boolean> {
    const runs = path.join(dataDir, 'runs');
    for (const name of await readdir(runs).catch(() => [] as string[])) {
      if (
        await access(path.join(runs, name, 'upper', rel)).then(
          () => true,
          () => false,
        )
      )
        return true;
    }
    return false;
  }

  test('is applied at the next start, under its turn, and "Undo this turn" takes it back', async ({
    page,
    workspace,
    model,
  }) => {
    await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
    const code = [
      'import time',
      "open('data/result.csv', 'w').write('total\\n10\\n')",
      "open('notes/todo.txt', 'a').write('third, by the run\\n')",
      "open('data/ready', 'w').close()",
      'time.sleep(600)',
    ];
    await start(page, workspace.root);
    await runCodeTurn(page, model, code, 'Run code that writes files, then waits.');
    await expect.poll(() => runWrote('data/ready'), { timeout: 30_000 }).toBe(true);
    // kill -9 of the host while the code runs: nothing it wrote has reached the workspace.
    const exited = new Promise((resolve) => host!.once('exit', resolve));
    host!.kill('SIGKILL');
    await exited;
    expect(await workspace.exists('data/result.csv')).toBe(false);
    expect(await workspace.read('notes/todo.txt')).toBe(DEFAULT_FIXTURE['notes/todo.txt']);

    // The next start applies what the run wrote, as the turn's.
    await start(page, workspace.root);
    await expect.poll(() => workspace.exists('data/result.csv'), { timeout: 30_000 }).toBe(true);
    expect(await workspace.read('data/result.csv')).toBe('total\n10\n');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\nthird, by the run\n');
    const tree = page.getByRole('tree', { name: 'Files' });
    await tree.getByRole('treeitem', { name: 'data', exact: true }).click();
    await expect(tree.getByRole('treeitem', { name: 'result.csv', exact: true })).toBeVisible();
    await page.getByRole('tab', { name: 'Agent' }).click();
    const checkpoint = agentPanel(page).getByRole('region', { name: 'Changes of this turn' });
    await expect(checkpoint.getByRole('listitem').filter({ hasText: 'created data/result.csv' })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('undo-turn-cut-short-recovered.png') });
    await checkpoint.getByRole('button', { name: 'Undo this turn' }).click();
    await expect(checkpoint.getByRole('status')).toContainText('Undone:');
    expect(await workspace.exists('data/result.csv')).toBe(false);
    expect(await workspace.read('notes/todo.txt')).toBe(DEFAULT_FIXTURE['notes/todo.txt']);
    await page.screenshot({ path: test.info().outputPath('undo-turn-cut-short-undone.png') });
  });
});
