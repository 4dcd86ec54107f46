import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { test as base, expect } from './support/fixtures';
import { openFile, treeItem } from './support/ui';

/** Real git in the workspace, as the operator's terminal would run it. */
function gitIn(root: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd: root,
    input,
    stdio: 'pipe',
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Kiln',
      GIT_AUTHOR_EMAIL: 'kiln@example.invalid',
      GIT_COMMITTER_NAME: 'Kiln',
      GIT_COMMITTER_EMAIL: 'kiln@example.invalid',
    },
  });
}

/** The fixture workspace as a git repository: everything committed, then one file changed and one added. */
const test = base.extend({
  workspace: async ({ workspace }, use) => {
    const git = (...args: string[]) => gitIn(workspace.root, args);
    await writeFile(workspace.abs('.gitignore'), 'data/\n');
    git('init', '-q', '-b', 'feature/gutter');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    await workspace.write(
      'src/app.py',
      'def greet(name):\n    return f"hi {name}"\n\nprint(greet("kiln"))\nprint("added line")\n',
    );
    await workspace.write('src/fresh.py', 'NEW = True\n');
    await use(workspace);
  },
});

test('a git workspace shows M and U in the tree, gutter marks in the editor that follow the buffer, and the branch', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  const app = treeItem(page, 'app.py');
  // The letter is drawn as CSS content (decoration, not part of the row's name).
  await expect(app.locator('.git-mark')).toHaveAttribute('data-letter', 'M');
  await expect(app).toHaveAccessibleDescription('Modified');
  const fresh = treeItem(page, 'fresh.py');
  await expect(fresh.locator('.git-mark')).toHaveAttribute('data-letter', 'U');
  await expect(fresh).toHaveAccessibleDescription('Untracked');
  await expect(treeItem(page, 'src')).toHaveAccessibleDescription('Contains changes');
  await expect(treeItem(page, 'data')).toHaveAccessibleDescription('Ignored');
  await expect(treeItem(page, 'README.md')).not.toHaveAttribute('aria-description');
  await expect(page.getByRole('status', { name: 'Git branch: feature/gutter' })).toBeVisible();

  await openFile(page, 'src', 'app.py');
  const editor = page.locator('.code-editor[data-path="src/app.py"]');
  // Line 2 changed and line 5 was added against HEAD.
  await expect(editor.locator('.gutter-modified')).toHaveCount(1);
  await expect(editor.locator('.gutter-added')).toHaveCount(1);
  await page.screenshot({ path: test.info().outputPath('kiln-git.png') });

  // Typing updates the gutter before any save: a new line at the top is one more added line. The line is
  // opened first and typed after: an Enter after a word can accept a suggestion instead of breaking the line.
  await editor.locator('.view-line').first().click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.type('import os');
  await expect(editor.locator('.gutter-added')).toHaveCount(2);
});

test('a commit of one of two changes, on the same branch, leaves the gutter showing only the other', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  const editor = page.locator('.code-editor[data-path="src/app.py"]');
  await expect(editor.locator('.gutter-modified')).toHaveCount(1);
  await expect(editor.locator('.gutter-added')).toHaveCount(1);

  // A partial commit: the index gets the line-2 change only; the added line stays in the working file,
  // so the file is still modified on the same branch and only HEAD's commit moves.
  const partial = 'def greet(name):\n    return f"hi {name}"\n\nprint(greet("kiln"))\n';
  const blob = gitIn(workspace.root, ['hash-object', '-w', '--stdin'], partial).trim();
  gitIn(workspace.root, ['update-index', '--cacheinfo', `100644,${blob},src/app.py`]);
  gitIn(workspace.root, ['commit', '-q', '-m', 'the greeting']);

  await expect(editor.locator('.gutter-modified')).toHaveCount(0);
  await expect(editor.locator('.gutter-added')).toHaveCount(1);
  await expect(treeItem(page, 'app.py')).toHaveAccessibleDescription('Modified');
});

base.describe('without a repository', () => {
  base('no marks, no branch and no errors', async ({ page, kiln }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await kiln.open(page);
    await expect(treeItem(page, 'README.md')).toBeVisible();
    await expect(page.locator('.git-mark')).toHaveCount(0);
    await expect(page.getByRole('status', { name: /Git branch/ })).toHaveCount(0);
    await openFile(page, 'README.md');
    await expect(page.locator('.gutter-added, .gutter-modified, .gutter-deleted')).toHaveCount(0);
    expect(errors).toEqual([]);
  });
});
