import { rename } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, type TempWorkspace } from './support/fixtures';
import { reply } from '../test-support/model-server';
import { configureScriptedModel, testWithModel } from './support/model';
import {
  dragWithMouse,
  editorText,
  mod,
  openAndTypeAtEnd,
  openFile,
  sendMessage,
  treeItem,
  typeAtEnd,
} from './support/ui';

/**
 * File identity: unsaved work follows renames and moves made in Kiln (one change feed, every owner
 * re-keys itself), proposals never land on a different file, and nothing an agent or another program
 * does to a file silently replaces what the operator has not saved. Asserted on disk and on screen.
 */

const test = testWithModel(['scripted-model']);

const APP = DEFAULT_FIXTURE['src/app.py'];
const APP_RENAMED = APP.replace(/name/g, 'person');

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });

/** F2 on a tree entry, the new name typed over the selected stem. */
async function renameInTree(page: Page, name: string, stem: string): Promise<void> {
  await treeItem(page, name).click();
  await page.keyboard.press('F2');
  await expect(page.getByRole('textbox', { name: 'New name' })).toBeFocused();
  await page.keyboard.type(stem);
  await page.keyboard.press('Enter');
}

function notebookJson(source: string): string {
  const cell = { cell_type: 'code', id: 'cell-1', metadata: {}, source, execution_count: null, outputs: [] };
  return `${JSON.stringify({ cells: [cell], metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } }, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
}

const cellSources = async (workspace: TempWorkspace, file: string) =>
  (JSON.parse(await workspace.read(file)) as { cells: { source: string | string[] }[] }).cells.map((c) =>
    [c.source].flat().join(''),
  );

test.describe('unsaved work follows renames and moves', () => {
  test('an unsaved text buffer follows F2; Save writes the new path', async ({ page, kiln, workspace }) => {
    await openAndTypeAtEnd(page, kiln, ['src', 'util.py'], '\nMINE = 1');
    await expect(tab(page, 'util.py')).toHaveAttribute('data-dirty', 'true');

    await renameInTree(page, 'util.py', 'helpers');
    await expect(tab(page, 'helpers.py')).toHaveAttribute('data-dirty', 'true');
    await expect(tab(page, 'util.py')).toHaveCount(0);
    await expect(editorText(page)).toContainText('MINE = 1');
    expect(await workspace.read('src/helpers.py')).toBe('VALUE = 42\n');

    await page.keyboard.press(`${mod}+s`);
    await expect.poll(() => workspace.read('src/helpers.py')).toContain('MINE = 1');
    await expect(tab(page, 'helpers.py')).not.toHaveAttribute('data-dirty', 'true');
    expect(await workspace.exists('src/util.py')).toBe(false);
    // Monaco kept the very same model: undo still reaches back past the rename.
    await editorText(page).click();
    await page.keyboard.press(`${mod}+z`);
    await expect(editorText(page)).not.toContainText('MINE = 1');
  });

  test('keys typed a moment before a move (not yet handed to the tab) stay in the buffer', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await openFile(page, 'src', 'util.py');
    // Another client of the host moves the file, its socket opened beforehand so the move lands within the
    // editor's pause before it hands typed text over (150 ms).
    await page.evaluate(
      ({ origin, token }) =>
        new Promise<void>((resolve) => {
          const socket = new WebSocket(`${origin.replace('http', 'ws')}/ws`);
          (window as unknown as { moveSoon: () => void }).moveSoon = () =>
            socket.send(
              JSON.stringify({ id: 1, channel: 'workspace.move', args: { from: 'src/util.py', to: 'src/helpers.py' } }),
            );
          // The token is the socket's first message; the move follows it later.
          socket.onopen = () => {
            socket.send(JSON.stringify({ auth: token }));
            resolve();
          };
        }),
      { origin: kiln.origin, token: kiln.token },
    );
    await typeAtEnd(page, '\nMINE = 1');
    await page.evaluate(() => (window as unknown as { moveSoon: () => void }).moveSoon());

    await expect(tab(page, 'helpers.py')).toHaveAttribute('data-dirty', 'true');
    await expect(editorText(page)).toContainText('MINE = 1');
    await page.keyboard.press(`${mod}+s`);
    await expect.poll(() => workspace.read('src/helpers.py')).toBe('VALUE = 42\n\nMINE = 1');
  });

  test('an unsaved file inside a dragged folder follows it; Save writes the new path', async ({
    page,
    kiln,
    workspace,
  }) => {
    await openAndTypeAtEnd(page, kiln, ['notes', 'todo.txt'], 'third');
    await expect(tab(page, 'todo.txt')).toHaveAttribute('data-dirty', 'true');

    await dragWithMouse(page, treeItem(page, 'notes'), treeItem(page, 'data'));
    await expect.poll(() => workspace.exists('data/notes/todo.txt')).toBe(true);
    await expect(tab(page, 'todo.txt')).toHaveAttribute('title', 'data/notes/todo.txt (unsaved)');
    await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toContainText('data');

    await page.keyboard.press(`${mod}+s`);
    await expect.poll(() => workspace.read('data/notes/todo.txt')).toBe('first\nsecond\nthird');
    expect(await workspace.exists('notes')).toBe(false);
    await page.screenshot({ path: test.info().outputPath('kiln-identity-folder-move.png') });
  });

  test.describe('a notebook', () => {
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'notes.ipynb': notebookJson('a = 1') } });

    test('with unsaved cell edits follows F2; Save writes them to the new path', async ({ page, kiln, workspace }) => {
      await kiln.open(page);
      await treeItem(page, 'notes.ipynb').click();
      const nb = page.getByRole('region', { name: 'notes.ipynb', exact: true });
      await expect(nb).toBeVisible();
      await nb.getByRole('group', { name: 'Cell 1', exact: true }).locator('.nb-editor .view-lines').click();
      await page.keyboard.press(`${mod}+A`);
      await page.keyboard.type('a = 2');
      await expect(tab(page, 'notes.ipynb')).toHaveAttribute('data-dirty', 'true');

      await renameInTree(page, 'notes.ipynb', 'renamed');
      const moved = page.getByRole('region', { name: 'renamed.ipynb', exact: true });
      await expect(moved).toBeVisible();
      await expect(moved.getByRole('group', { name: 'Cell 1', exact: true })).toContainText('a = 2');
      await expect(tab(page, 'renamed.ipynb')).toHaveAttribute('data-dirty', 'true');
      expect(await cellSources(workspace, 'renamed.ipynb')).toEqual(['a = 1']);

      await page.keyboard.press(`${mod}+s`);
      await expect.poll(() => cellSources(workspace, 'renamed.ipynb')).toEqual(['a = 2']);
      await expect(tab(page, 'renamed.ipynb')).not.toHaveAttribute('data-dirty', 'true');
      expect(await workspace.exists('notes.ipynb')).toBe(false);
    });

    test('with unsaved cell edits, renamed by another program: the edits stay and Save As writes them', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      await treeItem(page, 'notes.ipynb').click();
      const nb = page.getByRole('region', { name: 'notes.ipynb', exact: true });
      await nb.getByRole('group', { name: 'Cell 1', exact: true }).locator('.nb-editor .view-lines').click();
      await page.keyboard.press(`${mod}+A`);
      await page.keyboard.type('a = 3');
      await expect(tab(page, 'notes.ipynb')).toHaveAttribute('data-dirty', 'true');

      await rename(workspace.abs('notes.ipynb'), workspace.abs('by_git.ipynb'));
      const bar = nb.getByRole('alert', { name: 'Changed on disk' });
      await expect(bar).toContainText('was deleted on disk');
      await expect(nb.getByRole('group', { name: 'Cell 1', exact: true })).toContainText('a = 3');
      await bar.getByRole('button', { name: 'Save As…' }).click();
      await bar.getByRole('textbox', { name: 'Save as path' }).fill('kept.ipynb');
      await bar.getByRole('button', { name: 'Save', exact: true }).click();

      await expect(tab(page, 'kept.ipynb')).toBeVisible();
      await expect(tab(page, 'kept.ipynb')).not.toHaveAttribute('data-dirty', 'true');
      await expect(page.getByRole('region', { name: 'kept.ipynb', exact: true })).toBeVisible();
      expect(await cellSources(workspace, 'kept.ipynb')).toEqual(['a = 3']);
      expect(await cellSources(workspace, 'by_git.ipynb')).toEqual(['a = 1']);
      // It goes on there: the next edit and Save land in the new file.
      const kept = page.getByRole('region', { name: 'kept.ipynb', exact: true });
      await kept.getByRole('group', { name: 'Cell 1', exact: true }).locator('.nb-editor .view-lines').click();
      await page.keyboard.press(`${mod}+A`);
      await page.keyboard.type('a = 4');
      await page.keyboard.press(`${mod}+s`);
      await expect.poll(() => cellSources(workspace, 'kept.ipynb')).toEqual(['a = 4']);
    });
  });
});

test.describe('outside changes never replace unsaved work', () => {
  test('a rename by another program: the dirty tab keeps its buffer and Save As writes it', async ({
    page,
    kiln,
    workspace,
  }) => {
    await openAndTypeAtEnd(page, kiln, ['src', 'util.py'], '\nMINE = 1');
    await rename(workspace.abs('src/util.py'), workspace.abs('src/moved_by_git.py'));
    const bar = page.getByRole('alert', { name: 'Changed on disk' });
    await expect(bar).toContainText('util.py was deleted on disk; your unsaved text is still here');
    await expect(treeItem(page, 'moved_by_git.py')).toBeVisible();
    await bar.getByRole('button', { name: 'Save As…' }).click();
    const field = bar.getByRole('textbox', { name: 'Save as path' });
    await field.fill('src/kept.py');
    await page.screenshot({ path: test.info().outputPath('kiln-identity-save-as.png') });
    await bar.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(tab(page, 'kept.py')).toBeVisible();
    await expect(bar).toHaveCount(0);
    expect(await workspace.read('src/kept.py')).toContain('MINE = 1');
    expect(await workspace.read('src/moved_by_git.py')).toBe('VALUE = 42\n');
  });

  test("an agent's write-file over an open dirty file raises the conflict bar; both versions stay reachable", async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configureScriptedModel(workspace, model, 'scripted-model', ['file_editing', 'agent']);
    model.setReplies([
      reply.tool('write-file', { path: 'src/util.py', content: 'AGENT = 1\n' }),
      reply.text('Wrote it.'),
    ]);
    await openAndTypeAtEnd(page, kiln, ['src', 'util.py'], '\nMINE = 1');
    await page.getByRole('tab', { name: 'Agent' }).click();
    await sendMessage(page.getByRole('complementary', { name: 'Agent' }), 'Rewrite util.py');

    const bar = page.getByRole('alert', { name: 'Changed on disk' });
    await expect(bar).toContainText('util.py changed on disk');
    await expect.poll(() => workspace.read('src/util.py')).toBe('AGENT = 1\n');
    await expect(editorText(page)).toContainText('MINE = 1');
    await bar.getByRole('button', { name: 'Compare' }).click();
    const diff = page.getByTestId('diff-view');
    await expect(diff).toContainText('AGENT = 1');
    await expect(diff).toContainText('MINE = 1');
    await page.screenshot({ path: test.info().outputPath('kiln-identity-agent-conflict.png') });
    await bar.getByRole('button', { name: 'Overwrite' }).click();
    await expect.poll(() => workspace.read('src/util.py')).toContain('MINE = 1');
  });
});

test.describe('proposals stay with their file', () => {
  function editPanel(page: Page): Locator {
    return page.getByRole('complementary', { name: 'Edit assistant' });
  }

  test('a pending proposal on a renamed file never lands on a new file at the old path', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configureScriptedModel(workspace, model, 'scripted-model', ['file_editing', 'agent']);
    model.enqueue(reply.propose(APP_RENAMED, 'Renamed.'));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await sendMessage(editPanel(page), 'Rename name to person');
    const chip = editPanel(page).getByRole('button', { name: /^Proposed changes/ });
    await expect(chip).toContainText('pending');

    await renameInTree(page, 'app.py', 'main');
    await expect(tab(page, 'main.py')).toBeVisible();
    // Another program puts a new file where the old one was.
    await workspace.write('src/app.py', 'NEW = 1\n');
    await expect(treeItem(page, 'app.py')).toBeVisible();
    await openFile(page, 'src', 'app.py');
    await expect(editPanel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
    await expect(editPanel(page).getByRole('button', { name: /^Proposed changes/ })).toHaveCount(0);
    await expect(editPanel(page).getByRole('button', { name: 'Accept' })).toHaveCount(0);
    expect(await workspace.read('src/app.py')).toBe('NEW = 1\n');

    // The proposal went with its file, and lands there only.
    await tab(page, 'main.py').click();
    await expect(chip).toContainText('pending');
    await chip.click();
    await editPanel(page).getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => workspace.read('src/main.py')).toBe(APP_RENAMED);
    expect(await workspace.read('src/app.py')).toBe('NEW = 1\n');
  });
});
