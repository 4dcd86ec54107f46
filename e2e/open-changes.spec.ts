import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { nbformatWrites, type NotebookSpec } from '../test-support/nbformat-build';
import { gitIn } from '../test-support/notebook-conflict';
import { test as base, expect } from './support/fixtures';
import { editorText, openFile, treeItem, typeAtEnd } from './support/ui';

/*
 * "Open Changes" on a real git repository: the notebook as committed at HEAD ↔ the file in the working tree,
 * shown cell by cell over the editor.
 */
const meta = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };
const nb = (load: string): NotebookSpec => ({
  metadata: meta,
  cells: [
    { id: 'load', source: load },
    { id: 'plot', source: 'score * 2' },
  ],
});
const [committed, edited] = nbformatWrites([nb('cfg = load("a.json")'), nb('cfg = load("b.json")')]);

const test = base.extend<{ repository: boolean }>({
  repository: [true, { option: true }],
  fixtureFiles: {},
  workspace: async ({ workspace, repository }, use) => {
    await writeFile(path.join(workspace.root, 'run.ipynb'), committed);
    await writeFile(path.join(workspace.root, 'notes.txt'), 'alpha\nbeta\n');
    if (repository) {
      gitIn(workspace.root, 'init', '-q', '-b', 'main');
      gitIn(workspace.root, 'add', 'run.ipynb', 'notes.txt');
      gitIn(workspace.root, 'commit', '-q', '-m', 'base');
    }
    // The edit made outside Kiln, after the commit: the working tree differs from HEAD in cell 1's source.
    await writeFile(path.join(workspace.root, 'run.ipynb'), edited);
    await use(workspace);
  },
});

test('Open Changes from the explorer shows the notebook at HEAD ↔ the working tree, cell by cell', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await treeItem(page, 'run.ipynb').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Changes' }).click();
  const overlay = page.getByRole('region', { name: 'Open changes of run.ipynb' });
  await expect(overlay).toContainText('run.ipynb: HEAD ↔ working tree');
  const changes = overlay.getByRole('region', { name: 'Notebook changes' });
  const cell = changes.getByRole('group', { name: 'Cell 1: source changed' });
  await expect(cell).toContainText('a.json');
  await expect(cell).toContainText('b.json');
  await expect(changes.getByRole('group', { name: /^Cell 2/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('open-changes.png') });

  // A file git does not hold at HEAD: every cell is new.
  await writeFile(path.join(workspace.root, 'new.ipynb'), edited);
  await overlay.getByRole('button', { name: 'Close changes' }).click();
  await expect(overlay).toHaveCount(0);
  await treeItem(page, 'new.ipynb').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Changes' }).click();
  const added = page.getByRole('region', { name: 'Open changes of new.ipynb' });
  await expect(added.getByRole('note')).toHaveText('Not in HEAD: the whole notebook is new');
  await expect(added.getByRole('group', { name: 'Cell 1: added' })).toBeVisible();
  await expect(added.getByRole('group', { name: 'Cell 2: added' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(added).toHaveCount(0);
});

test('Open Changes of a text file shows its unsaved edits against HEAD, as the editor holds them', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await openFile(page, 'notes.txt');
  await expect(editorText(page)).toContainText('beta');
  const overlay = page.getByRole('region', { name: 'Open changes of notes.txt' });
  // Unchanged on disk and in the editor: the view says so rather than showing two equal sides.
  await treeItem(page, 'notes.txt').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Changes' }).click();
  await expect(overlay.getByRole('note')).toHaveText('No changes: the file is as at HEAD');
  await page.keyboard.press('Escape');
  await expect(overlay).toHaveCount(0);

  await typeAtEnd(page, 'gamma');
  await expect(page.getByRole('tab', { name: 'notes.txt' })).toHaveAttribute('data-dirty', 'true');
  await treeItem(page, 'notes.txt').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Changes' }).click();
  await expect(overlay.getByRole('note')).toHaveCount(0);
  // The diff's modified side is the editor's text, not the file on disk (which still ends at "beta").
  await expect(overlay.locator('.editor.modified .view-lines')).toContainText('gamma');
  await expect(overlay.getByRole('textbox', { name: /^notes.txt with unsaved edits/ })).toHaveCount(1);
  expect(await workspace.read('notes.txt')).toBe('alpha\nbeta\n');
  await page.screenshot({ path: test.info().outputPath('open-changes-unsaved.png') });
});

test.describe('outside a repository', () => {
  test.use({ repository: false });
  test('Open Changes says why in a toast and shows no diff', async ({ page, kiln }) => {
    await kiln.open(page);
    await treeItem(page, 'run.ipynb').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Open Changes' }).click();
    await expect(page.locator('.toast[role="alert"]')).toContainText('repository');
    await expect(page.getByRole('region', { name: 'Open changes of run.ipynb' })).toHaveCount(0);
  });
});

test.describe('in a folder not trusted', () => {
  test.use({ trusted: false });
  test('Open Changes says git runs only in a trusted folder', async ({ page, kiln }) => {
    await kiln.open(page);
    // The repository is what an untrusted folder holds back: Kiln asks first.
    await page.getByRole('dialog', { name: 'Trust this folder?' }).getByRole('button', { name: "Don't trust" }).click();
    await treeItem(page, 'run.ipynb').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Open Changes' }).click();
    await expect(page.locator('.toast[role="alert"]')).toContainText('git runs only in a trusted folder');
    await expect(page.getByRole('region', { name: 'Open changes of run.ipynb' })).toHaveCount(0);
  });
});
