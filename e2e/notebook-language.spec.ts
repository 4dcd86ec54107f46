import type { Locator, Page } from '@playwright/test';
import { expect, test, type KilnWebHost } from './support/fixtures';
import { cell, cellOf, editCell, notebook, openNotebook, suggestions } from './support/notebook';
import { editorText, mod, openFile } from './support/ui';

/*
 * The real pyright server in a notebook: the notebook's code cells are one document to it. The workspace's
 * Jupyter is a program that does not exist, so no kernel runs: what completes and squiggles is the language
 * server alone.
 */

const SERVER_START = { timeout: 90_000 };

const NB = notebook(
  ...[
    'x = 1',
    '%time x\n!ls',
    'print(x)',
    '%%bash\necho $HOME',
    'import os\n\nprint(never_defined)',
    '',
    'from util import helper\nhelper(x)',
  ].map((source) => cell('code', source)),
);

test.use({
  languageServer: 'on',
  fixtureFiles: {
    'analysis.ipynb': NB,
    'src/util.py': 'def helper(v):\n    return v\n',
    '.kiln/config.yaml': 'jupyter:\n  command: /nonexistent/jupyter\n',
  },
});
test.describe.configure({ timeout: 180_000 });

/** The notebook open, once the server's diagnostics are in (cell 5's error): the server knows every cell by then. */
async function openAnalyzed(page: Page, kiln: KilnWebHost): Promise<Locator> {
  await kiln.open(page);
  const nb = await openNotebook(page, 'analysis.ipynb');
  await expect(cellOf(nb, 5).locator('.squiggly-error')).toHaveCount(1, SERVER_START);
  return nb;
}

/** The cursor in cell 7's `helper(x)`: on `x` (the argument) or on `helper` (the callee). */
async function cursorInHelperCall(page: Page, nb: Locator, on: 'argument' | 'callee'): Promise<void> {
  await editCell(nb, 7);
  await page.keyboard.press(`${mod}+End`);
  if (on === 'argument') {
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
  } else {
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
  }
}

test('a name from an earlier cell raises nothing; one never defined is squiggled on its cell and listed in Problems', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  const nb = await openNotebook(page, 'analysis.ipynb');
  // One squiggle in the whole notebook, in cell 5 (the magics, %%bash and x raise nothing).
  await expect(cellOf(nb, 5).locator('.squiggly-error')).toHaveCount(1, SERVER_START);
  await expect(nb.locator('.squiggly-error')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Problems 1 0' })).toHaveAccessibleDescription(
    /^Problems: 1 error, 0 warnings/,
  );
  await page.screenshot({ path: test.info().outputPath('notebook-squiggle.png') });

  await page.keyboard.press(`${mod}+Shift+M`);
  const problems = page.getByRole('region', { name: 'Problems' });
  const entry = problems.getByRole('treeitem', {
    name: /"never_defined" is not defined, analysis\.ipynb Cell 5, line 3/,
  });
  await expect(entry).toBeVisible();
  await expect(entry.locator('.problems-place')).toHaveAttribute('data-text', '[Cell 5, Ln 3, Col 7]');
  await page.screenshot({ path: test.info().outputPath('notebook-problems.png') });

  // The entry opens the cell with the name selected.
  await cellOf(nb, 1).click();
  await entry.click();
  await expect(cellOf(nb, 5).locator('.monaco-editor.focused')).toHaveCount(1);
  await page.keyboard.type('x');
  await expect(cellOf(nb, 5).locator('.view-lines')).toContainText('print(x)');
  // Defined now: the squiggle and the entry go.
  await expect(nb.locator('.squiggly-error')).toHaveCount(0, SERVER_START);
  await expect(entry).toHaveCount(0);
});

test('completion, hover and signature help in a cell without a kernel come from the language server', async ({
  page,
  kiln,
}) => {
  const nb = await openAnalyzed(page, kiln);
  // No kernel: Jupyter could not start.
  await expect(nb.getByRole('status')).not.toHaveText('idle');
  await editCell(nb, 6);
  // `os` was imported in cell 5: the server knows it here.
  await page.keyboard.type('os.path.jo');
  await page.keyboard.press(`Control+Space`);
  const join = suggestions(page).getByRole('option', { name: /^join\b/ });
  await expect(join).toBeVisible(SERVER_START);
  await expect(suggestions(page).locator('.monaco-list-row').first()).toContainText('join');
  await page.screenshot({ path: test.info().outputPath('notebook-static-completion.png') });
  await page.keyboard.press('Enter');
  await expect(cellOf(nb, 6).locator('.view-lines')).toHaveText('os.path.join');

  // Hover on helper (imported in cell 7 from src/) shows its static signature, with no kernel to inspect it.
  await cellOf(nb, 7).locator('.view-lines').getByText('helper', { exact: true }).last().hover();
  const hover = page.locator('.monaco-hover:not(.hidden)');
  await expect(hover).toContainText('(function) def helper(v', SERVER_START);
  await page.screenshot({ path: test.info().outputPath('notebook-static-hover.png') });

  // Typing a call in the cell shows the static parameter hints, as in a file.
  await editCell(nb, 7);
  await page.keyboard.press(`${mod}+End`);
  await page.keyboard.press('Enter');
  await page.keyboard.type('helper(');
  const hints = page.locator('.parameter-hints-widget.visible');
  await expect(hints).toContainText('(v: Unknown) -> Unknown', SERVER_START);
  await expect(hints.locator('.parameter.active')).toHaveText('v: Unknown');
  await page.screenshot({ path: test.info().outputPath('notebook-signature-help.png') });
});

test('F12 in a cell goes to the definition in src/ and in an earlier cell', async ({ page, kiln }) => {
  const nb = await openAnalyzed(page, kiln);

  // On `x` of `helper(x)`: cell 1, where x is assigned, the cursor at the name (as VS Code puts it).
  await cursorInHelperCall(page, nb, 'argument');
  await page.keyboard.press('F12');
  await expect(cellOf(nb, 1).locator('.monaco-editor.focused')).toHaveCount(1, SERVER_START);
  await page.keyboard.type('renamed_');
  await expect(cellOf(nb, 1).locator('.view-lines')).toHaveText('renamed_x = 1');

  // On `helper`: src/util.py opens at its def.
  await cursorInHelperCall(page, nb, 'callee');
  await page.keyboard.press('F12');
  const tab = page.getByRole('tab', { name: /util\.py/ });
  await expect(tab).toHaveAttribute('aria-selected', 'true', SERVER_START);
  await expect(editorText(page)).toContainText('def helper(v):');
  await page.screenshot({ path: test.info().outputPath('notebook-f12-into-src.png') });
  await page.keyboard.type('renamed_');
  await expect(editorText(page)).toContainText('def renamed_helper(v):');
});

test('F2 in a cell renames across cells and src/ after a preview; the notebook takes it as one undoable edit', async ({
  page,
  kiln,
  workspace,
}) => {
  const nb = await openAnalyzed(page, kiln);

  // On `helper` of `helper(x)` in cell 7.
  await cursorInHelperCall(page, nb, 'callee');
  await page.keyboard.press('F2');
  const input = page.locator('.rename-box input');
  await expect(input).toBeFocused(SERVER_START);
  await page.keyboard.press(`${mod}+a`);
  await page.keyboard.type('twice');
  await page.keyboard.press('Enter');

  const dialog = page.getByRole('dialog', { name: "Rename to 'twice': 2 files" });
  await expect(dialog).toBeVisible(SERVER_START);
  await expect(dialog.getByRole('listitem')).toHaveText([/^analysis\.ipynb/, /^src\/util\.py/]);
  const inNotebook = dialog.getByRole('listitem', { name: 'analysis.ipynb' });
  await expect(inNotebook).toContainText('in the open notebook');
  await expect(inNotebook).toContainText('Cell 7');
  await expect(inNotebook).toContainText('+ from util import twice');
  await expect(inNotebook).toContainText('+ twice(x)');
  await page.screenshot({ path: test.info().outputPath('notebook-rename-preview.png') });
  await dialog.getByRole('button', { name: 'Apply' }).click();

  // src/util.py is written; the notebook's cell changes in the notebook only, unsaved.
  await expect.poll(() => workspace.read('src/util.py')).toBe('def twice(v):\n    return v\n');
  await expect(cellOf(nb, 7).locator('.view-lines')).toHaveText('from util import twicetwice(x)');
  await expect(nb.getByTestId('notebook-dirty')).toBeVisible();
  expect(await workspace.read('analysis.ipynb')).toContain('helper(x)');
  await page.screenshot({ path: test.info().outputPath('notebook-rename-applied.png') });

  // One step of the notebook's undo takes it back, and redo brings it again; save writes it.
  await page.keyboard.press('Escape');
  await page.keyboard.press('z');
  await expect(cellOf(nb, 7).locator('.view-lines')).toHaveText('from util import helperhelper(x)');
  await page.keyboard.press('Shift+Z');
  await expect(cellOf(nb, 7).locator('.view-lines')).toHaveText('from util import twicetwice(x)');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('analysis.ipynb')).toContain('twice(x)');
});

test('Shift+F12 in a cell peeks the references in other cells; opening one shows its cell', async ({ page, kiln }) => {
  const nb = await openAnalyzed(page, kiln);

  // On `x` of `helper(x)`: x is assigned in cell 1 and read in cells 3 and 7 (`%time x` is IPython's, unseen).
  await cursorInHelperCall(page, nb, 'argument');
  await page.keyboard.press('Shift+F12');
  const peek = page.locator('.peekview-widget');
  await expect(peek.locator('.reference-file')).toHaveCount(3, SERVER_START);
  // Each cell is named as the notebook numbers it, under the notebook's path.
  await expect(peek.locator('.reference-file .label-name')).toHaveText(['Cell 1', 'Cell 3', 'Cell 7'], {
    useInnerText: true,
  });
  await expect(peek.locator('.reference-file').first()).toContainText('analysis.ipynb');
  await page.screenshot({ path: test.info().outputPath('notebook-references.png') });
  // The other cells' groups start folded: open them, then open the assignment.
  const folded = peek.locator('.monaco-list-row[aria-expanded="false"]');
  while ((await folded.count()) > 0) await folded.first().click();
  // Typing in the peek's preview edits that cell itself, as VS Code's peek edits the document.
  await peek.locator('.monaco-list-row', { hasText: 'x = 1' }).click();
  await peek.locator('.preview .monaco-editor .view-lines').click();
  await page.keyboard.press(`${mod}+End`);
  await page.keyboard.type('  # peeked');
  await expect(cellOf(nb, 1).locator('.view-lines')).toContainText('# peeked');
  await peek.locator('.monaco-list-row', { hasText: 'x = 1' }).dblclick();
  await expect(cellOf(nb, 1).locator('.monaco-editor.focused')).toHaveCount(1);
});

test('a problem is renumbered in Problems when a cell moves above it, though its diagnostic stays the same', async ({
  page,
  kiln,
  workspace,
}) => {
  // A markdown cell is no part of the server's document: moving it changes no diagnostic, only the numbers.
  await workspace.write('moves.ipynb', notebook(cell('markdown', '# Notes'), cell('code', 'print(nope)')));
  await kiln.open(page);
  const nb = await openNotebook(page, 'moves.ipynb');
  await page.keyboard.press(`${mod}+Shift+M`);
  const problems = page.getByRole('region', { name: 'Problems' });
  await expect(problems.getByRole('treeitem', { name: /"nope" is not defined, moves\.ipynb Cell 2/ })).toBeVisible(
    SERVER_START,
  );
  await cellOf(nb, 1).getByRole('heading', { name: 'Notes' }).click();
  await page.keyboard.press('Control+Shift+ArrowDown');
  await expect(cellOf(nb, 2).getByRole('heading', { name: 'Notes' })).toBeVisible();
  await expect(problems.getByRole('treeitem', { name: /"nope" is not defined, moves\.ipynb Cell 1/ })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('notebook-problems-renumbered.png') });
});

test('F2 in src/ renames into a notebook open in main without a view: every file changes, the notebook saved', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  // Another client of the host (as an agent would) opens the notebook in main; this window has no view of it.
  const opened = await page.evaluate(
    ({ origin, token }) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${origin.replace('http', 'ws')}/ws`);
        (window as unknown as { agentSocket: WebSocket }).agentSocket = socket;
        // The token is the socket's first message; requests may follow it at once.
        socket.onopen = () => {
          socket.send(JSON.stringify({ auth: token }));
          socket.send(JSON.stringify({ id: 1, channel: 'notebook.open', args: { path: 'analysis.ipynb' } }));
        };
        socket.onmessage = (m) => {
          const frame = JSON.parse(String(m.data));
          if (frame.id === 1) resolve(JSON.stringify(frame));
        };
      }),
    { origin: kiln.origin, token: kiln.token },
  );
  expect(opened).toContain('"ok":true');
  await openFile(page, 'src', 'util.py');
  await expect(editorText(page)).toContainText('def helper');
  // On `helper` of `def helper(v):`, once the server answers for it.
  await editorText(page).click();
  await page.keyboard.press(`${mod}+Home`);
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  const dialog = page.getByRole('dialog', { name: "Rename to 'twice': 2 files" });
  await expect(async () => {
    await page.keyboard.press('F2');
    const input = page.locator('.rename-box input');
    await expect(input).toBeFocused({ timeout: 2000 });
    await page.keyboard.press(`${mod}+a`);
    await page.keyboard.type('twice');
    await page.keyboard.press('Enter');
    await expect(dialog).toBeVisible({ timeout: 5000 });
  }).toPass(SERVER_START);
  await expect(dialog.getByRole('listitem')).toHaveText([/^analysis\.ipynb/, /^src\/util\.py/]);
  await dialog.getByRole('button', { name: 'Apply' }).click();

  // Both change: util.py written, the notebook edited in main and saved (it had no unsaved changes).
  await expect.poll(() => workspace.read('src/util.py')).toBe('def twice(v):\n    return v\n');
  await expect.poll(() => workspace.read('analysis.ipynb')).toContain('twice(x)');
  expect(await workspace.read('analysis.ipynb')).not.toContain('helper');
  await expect(page.getByText(/Could not apply the edits/)).toHaveCount(0);
});
