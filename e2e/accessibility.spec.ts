import { execFileSync } from 'node:child_process';
import { DEFAULT_FIXTURE, expect } from './support/fixtures';
import { reply } from '../test-support/model-server';
import { configureScriptedModel, testWithModel } from './support/model';
import { expectAccessible } from './support/axe';
import { cell, notebook } from './support/notebook';
import { openFile, sendMessage, treeItem } from './support/ui';

/**
 * Deque's axe-core (the engine behind Lighthouse's accessibility score) over Kiln's main screens, in the
 * light and the dark theme: no critical or serious violation.
 */

const test = testWithModel(['scripted']);

const APP = DEFAULT_FIXTURE['src/app.py'];

/**
 * Find in Files' findings under rules axe ships off (label-content-name-mismatch, target-size), seen once every
 * rule ran (issue 42); the search view is another part's, to fix there.
 */

/** A notebook whose run prints, displays a table and raises: text, rich and error outputs. */
const NOTEBOOK = notebook(
  cell('markdown', '# Results\n\nA *short* run.'),
  cell('code', 'print("\\x1b[32mok\\x1b[0m", 41 + 1)'),
  cell('code', 'from IPython.display import HTML\nHTML("<table><tr><th>a</th></tr><tr><td>1</td></tr></table>")'),
  cell('code', '1 / 0'),
);

test.describe('accessibility (axe-core)', () => {
  test('the start screen', async ({ page, kiln }) => {
    await kiln.open(page);
    await expect(treeItem(page, 'README.md')).toBeVisible();
    await expectAccessible(page, 'start');
  });

  test('the editor with a file open', async ({ page, kiln }) => {
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await expect(page.locator('.monaco-editor .view-lines').getByText('def greet(name):')).toBeVisible();
    await expectAccessible(page, 'editor');
  });

  test.describe('in a git repository', () => {
    /** Everything committed, then a file changed, one added and an ignored folder: every tree colour git gives. */
    test.beforeEach(async ({ workspace }) => {
      const env = {
        ...process.env,
        GIT_AUTHOR_NAME: 'Kiln',
        GIT_AUTHOR_EMAIL: 'kiln@example.invalid',
        GIT_COMMITTER_NAME: 'Kiln',
        GIT_COMMITTER_EMAIL: 'kiln@example.invalid',
      };
      const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace.root, stdio: 'pipe', env });
      await workspace.write('.gitignore', 'data/\n');
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'fixture');
      await workspace.write('src/app.py', `${APP}print("more")\n`);
      await workspace.write('src/fresh.py', 'NEW = True\n');
    });

    test('the tree, the gutter and the branch', async ({ page, kiln }) => {
      await kiln.open(page);
      await openFile(page, 'src', 'app.py');
      await expect(treeItem(page, 'fresh.py')).toHaveAccessibleDescription('Untracked');
      await expect(treeItem(page, 'data')).toHaveAccessibleDescription('Ignored');
      await expect(page.locator('.code-editor .gutter-added')).toHaveCount(1);
      await expectAccessible(page, 'git');
    });
  });

  test('Quick Open, the command palette, Find in Files, a Save dialog and the terminal', async ({ page, kiln }) => {
    await kiln.open(page);
    await page.keyboard.press('Control+P');
    const quickOpen = page.getByRole('dialog', { name: 'Quick Open' });
    await quickOpen.getByRole('combobox', { name: 'Quick Open' }).fill('app');
    await expect(quickOpen.getByRole('option').first()).toBeVisible();
    await expectAccessible(page, 'quick-open');
    await page.keyboard.press('Escape');

    await page.keyboard.press('Control+Shift+P');
    await expect(page.getByRole('dialog').getByRole('option').first()).toBeVisible();
    await expectAccessible(page, 'command-palette');
    await page.keyboard.press('Escape');

    await page.keyboard.press('Control+Shift+F');
    const search = page.getByRole('region', { name: 'Search' });
    await search.getByRole('textbox', { name: 'Search', exact: true }).fill('greet');
    await page.keyboard.press('Enter');
    await expect(search.getByRole('tree', { name: 'Search results' }).getByRole('treeitem').first()).toBeVisible();
    await expectAccessible(page, 'search');

    await page.getByRole('tab', { name: 'Explorer' }).click();
    await openFile(page, 'src', 'app.py');
    await page.locator('.monaco-editor .view-lines').click();
    await page.keyboard.type('x');
    await page.getByRole('button', { name: 'Close app.py' }).click();
    await expect(page.getByRole('dialog', { name: 'Save changes to app.py?' })).toBeVisible();
    await expectAccessible(page, 'save-dialog');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.keyboard.press('Control+`');
    await expect(page.getByRole('region', { name: 'Terminal' }).getByRole('tab')).toHaveCount(1);
    await expectAccessible(page, 'terminal');
  });

  test('the context menu', async ({ page, kiln }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click({ button: 'right' });
    await expect(page.getByRole('menu')).toBeVisible();
    await expectAccessible(page, 'context-menu');
  });

  test('a pending edit-assistant proposal with its diff', async ({ page, kiln, workspace, model }) => {
    await configureScriptedModel(workspace, model, 'scripted', ['file_editing', 'agent']);
    model.enqueue(reply.propose(APP.replaceAll('name', 'person'), 'Renaming `name` to `person`.'));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    const panel = page.getByRole('complementary', { name: 'Edit assistant' });
    await sendMessage(panel, 'Rename name to person');
    await expect(panel.getByRole('button', { name: /^Proposed changes/ })).toBeVisible();
    const diff = page.getByRole('region', { name: /^Proposed changes to / }).getByTestId('diff-view');
    await expect(diff.locator('.modified').getByText('hello {person}').first()).toBeVisible();
    await expectAccessible(page, 'proposal');
  });

  test('the Agent tab with a run in its transcript', async ({ page, kiln, workspace, model }) => {
    await configureScriptedModel(workspace, model, 'scripted', ['file_editing', 'agent']);
    model.setReplies([
      reply.tool('write-file', { path: 'src/hello.py', content: 'print("hello")\n' }, 'Writing it.'),
      reply.text('Done: `src/hello.py` prints hello.'),
    ]);
    await kiln.open(page);
    await page.getByRole('tab', { name: 'Agent' }).click();
    const panel = page.getByRole('complementary', { name: 'Agent' });
    await sendMessage(panel, 'Write a hello module.');
    await expect(panel.getByRole('button', { name: /^write-file src\/hello\.py/ })).toBeVisible();
    await expect(panel.getByText('prints hello')).toBeVisible();
    await expectAccessible(page, 'agent');
  });

  test.describe('a notebook', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'results.ipynb': NOTEBOOK } });
    test.describe.configure({ timeout: 180_000 });

    test('with outputs and an error from a real kernel', async ({ page, kiln }) => {
      await kiln.open(page);
      await treeItem(page, 'results.ipynb').click();
      const nb = page.getByRole('region', { name: 'results.ipynb', exact: true });
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: 90_000 });
      await nb.getByRole('button', { name: 'Run all', exact: true }).click();
      const output = (n: number) =>
        nb.getByRole('group', { name: `Cell ${n}`, exact: true }).getByRole('region', { name: 'Output', exact: true });
      await expect(output(4)).toContainText('ZeroDivisionError', { timeout: 60_000 });
      await expect(output(2)).toContainText('ok 42');
      await expect(output(3).getByTitle('HTML output')).toBeVisible();
      await expectAccessible(page, 'notebook');
    });
  });
});
