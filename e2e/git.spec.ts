import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { test as base, expect } from './support/fixtures';
import { openFile, treeItem } from './support/ui';

/** The fixture workspace as a git repository: everything committed, then one file changed and one added. */
const test = base.extend({
  workspace: async ({ workspace }, use) => {
    const git = (...args: string[]) => execFileSync('git', args, {
      cwd: workspace.root,
      stdio: 'pipe',
      env: { ...process.env, GIT_AUTHOR_NAME: 'Kiln', GIT_AUTHOR_EMAIL: 'kiln@example.invalid', GIT_COMMITTER_NAME: 'Kiln', GIT_COMMITTER_EMAIL: 'kiln@example.invalid' },
    });
    await writeFile(workspace.abs('.gitignore'), 'data/\n');
    git('init', '-q', '-b', 'feature/gutter');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    await workspace.write('src/app.py', 'def greet(name):\n    return f"hi {name}"\n\nprint(greet("kiln"))\nprint("added line")\n');
    await workspace.write('src/fresh.py', 'NEW = True\n');
    await use(workspace);
  },
});

test('a git workspace shows M and U in the tree, gutter marks in the editor that follow the buffer, and the branch', async ({ page, kiln }) => {
  await kiln.open(page);
  const app = treeItem(page, 'app.py');
  await expect(app).toContainText('M');
  await expect(app).toHaveAccessibleDescription('Modified');
  const fresh = treeItem(page, 'fresh.py');
  await expect(fresh).toContainText('U');
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
  await page.screenshot({ path: '/tmp/kiln-git.png' });

  // Typing updates the gutter before any save: a new line at the top is one more added line.
  await editor.locator('.view-line').first().click();
  await page.keyboard.press('Home');
  await page.keyboard.type('import os\n');
  await expect(editor.locator('.gutter-added')).toHaveCount(2);
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
