import type { Page } from '@playwright/test';
import { expectAccessible } from './support/axe';
import { expect, test } from './support/fixtures';
import { editorText, mod, openFile, treeItem } from './support/ui';

// The real pyright server, started by main when the first Python file opens; no kernel runs in these tests.
const UTIL = 'def helper(x):\n    return x * 2\n';
const MAIN = 'from util import helper\n\n\ndef compute(v):\n    total = helper(v)\n    return total + missing_name\n';

test.use({
  fixtureFiles: { 'src/util.py': UTIL, 'main.py': MAIN, 'notes.txt': 'notes\n' },
  languageServer: 'on',
});

/** The server's first answer can take a while on a loaded machine (it starts with the first Python file). */
const SERVER_START = { timeout: 60_000 };

/** Puts the cursor at a 1-based line and column of the open editor, by keyboard (as an operator would). */
async function cursorTo(page: Page, line: number, column: number): Promise<void> {
  await editorText(page).click();
  await page.keyboard.press(`${mod}+Home`);
  for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
  // Home in Monaco goes to the first non-blank; twice goes to column 1.
  await page.keyboard.press('End');
  await page.keyboard.press('Home');
  await page.keyboard.press('Home');
  for (let i = 1; i < column; i++) await page.keyboard.press('ArrowRight');
}

const symbols = (page: Page) =>
  page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('list', { name: 'Symbols' }).getByRole('button');

test('an undefined name gets a squiggle and a Problems entry that opens its line', async ({ page, kiln }) => {
  await kiln.open(page);
  await treeItem(page, 'main.py').click();
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await expect(page.getByRole('button', { name: 'Problems 1 0' })).toHaveAccessibleDescription(
    /^Problems: 1 error, 0 warnings/,
  );

  await page.keyboard.press(`${mod}+Shift+M`);
  const problems = page.getByRole('region', { name: 'Problems' });
  const entry = problems.getByRole('treeitem', { name: /"missing_name" is not defined, main\.py line 6/ });
  await expect(entry).toBeVisible();
  // The place is drawn as CSS content (the row's name says it in words).
  await expect(entry.locator('.problems-place')).toHaveAttribute('data-text', '[Ln 6, Col 20]');
  await page.screenshot({ path: test.info().outputPath('problems.png') });
  await expectAccessible(page, 'problems');

  // From another file, the entry opens main.py with the cursor on the name (the breadcrumb follows the cursor).
  await openFile(page, 'notes.txt');
  await expect(page.getByRole('tab', { name: 'notes.txt' })).toHaveAttribute('aria-selected', 'true');
  await entry.click();
  await expect(page.getByRole('tab', { name: 'main.py' })).toHaveAttribute('aria-selected', 'true');
  await expect(symbols(page)).toHaveText(['compute']);
  // The name is selected: the cursor goes to its start.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('x');
  await expect(editorText(page)).toContainText('return total + xmissing_name');

  // Ctrl/Cmd+Shift+M hides it again.
  await page.keyboard.press(`${mod}+Shift+M`);
  await expect(problems).toHaveCount(0);
});

test('typed keys reach the server in batches, not a request each, and the diagnostics follow them', async ({
  page,
  kiln,
}) => {
  // The texts of every language.didChange the page sends over the contract's WebSocket, frame by frame.
  await page.addInitScript(() => {
    const frames: string[][] = [];
    (window as unknown as { didChangeFrames: string[][] }).didChangeFrames = frames;
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data) {
      if (typeof data === 'string' && data.includes('"channel":"language.didChange"')) {
        const { args } = JSON.parse(data) as { args: { changes: { text: string }[] } };
        frames.push(args.changes.map((c) => c.text));
      }
      return send.call(this, data);
    };
  });
  await kiln.open(page);
  await treeItem(page, 'main.py').click();
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await cursorTo(page, 6, 1);
  await page.keyboard.press('End');
  const typed = ' + other_name';
  await page.keyboard.type(typed);
  const frames = () => page.evaluate(() => (window as unknown as { didChangeFrames: string[][] }).didChangeFrames);
  // Every key reaches the server, in order (insertions at the end of the line)...
  await expect.poll(async () => (await frames()).flat().join('')).toBe(typed);
  // ...in fewer messages than keys.
  expect((await frames()).length).toBeLessThanOrEqual(typed.length / 2);
  // The server judged the whole name: its own problem, besides the one already there.
  await page.keyboard.press(`${mod}+Shift+M`);
  await expect(
    page.getByRole('region', { name: 'Problems' }).getByRole('treeitem', { name: /"other_name" is not defined/ }),
  ).toBeVisible(SERVER_START);
});

test('completion after os.path.jo offers join, with no kernel running', async ({ page, kiln, workspace }) => {
  await workspace.write('paths.py', 'import os\n');
  await kiln.open(page);
  await treeItem(page, 'paths.py').click();
  await expect(editorText(page)).toContainText('import os');
  await editorText(page).click();
  await page.keyboard.press(`${mod}+End`);
  await page.keyboard.type('os.path.jo');
  // Word-based suggestions do not know `join`: this comes from the language server.
  const suggest = page.locator('.suggest-widget');
  await expect(suggest.getByRole('option', { name: /^join/ })).toBeVisible(SERVER_START);
  await expect(suggest.locator('.monaco-list-row').first()).toContainText('join');
  await page.screenshot({ path: test.info().outputPath('completion.png') });
  await page.keyboard.press('Enter');
  await expect(editorText(page)).toContainText('os.path.join');
});

test('hover shows the signature of a function from src/; typing its call shows the parameter hints', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await treeItem(page, 'main.py').click();
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await editorText(page).getByText('helper', { exact: true }).last().hover();
  const hover = page.locator('.monaco-hover:not(.hidden)');
  await expect(hover).toContainText('(function) def helper(x: Unknown)', SERVER_START);
  await page.screenshot({ path: test.info().outputPath('hover.png') });

  // A new line at the end of compute(): the hints name the parameter being typed.
  await cursorTo(page, 6, 1);
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('helper(');
  const hints = page.locator('.parameter-hints-widget.visible');
  // Pyright's label is the parameters and the return type.
  await expect(hints).toContainText('(x: Unknown) -> Unknown', SERVER_START);
  await expect(hints.locator('.parameter.active')).toHaveText('x: Unknown');
  await page.screenshot({ path: test.info().outputPath('signature-help.png') });
});

test('F12 on a function imported from src/util.py opens that file at its definition', async ({ page, kiln }) => {
  await kiln.open(page);
  await treeItem(page, 'main.py').click();
  // The server is up once the file's diagnostics show.
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await cursorTo(page, 5, 15); // inside `helper(v)`
  await page.keyboard.press('F12');
  await expect(page.getByRole('tab', { name: 'util.py' })).toHaveAttribute('aria-selected', 'true');
  await expect(editorText(page)).toContainText('def helper(x):');
  // The cursor is on the definition: the breadcrumb names it.
  await expect(symbols(page)).toHaveText(['helper']);
  await page.screenshot({ path: test.info().outputPath('definition.png') });
});

test('F12 on os.path.join opens the standard library file in a read-only tab', async ({ page, kiln, workspace }) => {
  await workspace.write('paths.py', 'import os\n\nos.path.join("a", "b")\nprint(never_set)\n');
  await kiln.open(page);
  await treeItem(page, 'paths.py').click();
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await cursorTo(page, 3, 10); // on `join`
  await page.keyboard.press('F12');
  // Outside the workspace: the interpreter's posixpath.py (or typeshed's stub), marked read-only.
  const tab = page.getByRole('tab', { name: /^posixpath\.pyi? \(read-only\)$/ });
  await expect(tab).toHaveAttribute('aria-selected', 'true', SERVER_START);
  await expect(tab).toHaveAttribute('title', /^\/.*posixpath\.pyi? \(read-only\)$/);
  const note = page.getByRole('note', { name: 'Read-only library file' });
  await expect(note).toContainText('outside the workspace');
  const library = page.locator('.library-document');
  // The definition of join is scrolled into view (the file's first lines are not).
  await expect(library.locator('.view-line').filter({ hasText: /def\sjoin\(/ })).toBeVisible();
  await expect(library.locator('.view-line').filter({ hasText: /Common operations on Posix/ })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('definition-library.png') });
  // Nothing else takes the absolute path for a workspace one (the tree, the breadcrumb).
  await expect(page.getByText(/absolute paths are not accepted/)).toHaveCount(0);
  // Typing changes nothing, and the tab never becomes dirty.
  const before = await library.locator('.view-lines').innerText();
  await page.keyboard.type('zzz');
  await expect(library.locator('.view-lines')).not.toContainText('zzz');
  expect(await library.locator('.view-lines').innerText()).toBe(before);
  await expect(tab).not.toHaveAttribute('data-dirty', 'true');
  // Kiln never writes it, so it has no local history: the palette's one "Open Timeline" is the tree's, for paths.py.
  await page.keyboard.press(`${mod}+Shift+p`);
  const palette = page.getByRole('dialog', { name: 'Command Palette' });
  await palette.getByRole('combobox').fill('timeline');
  await expect(palette.getByRole('option', { name: 'Open Timeline' })).toHaveCount(1);
  await page.keyboard.press('Escape');
  // Closing it asks nothing; the workspace's tab is back.
  await page.getByRole('button', { name: /^Close posixpath\.pyi?$/ }).click();
  await expect(tab).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'paths.py' })).toHaveAttribute('aria-selected', 'true');
});

test('F2 renames across files after a preview, and the tabs show the change the feed reported', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  await openFile(page, 'src', 'util.py');
  await treeItem(page, 'main.py').click();
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await cursorTo(page, 5, 15);
  await page.keyboard.press('F2');
  const input = page.locator('.rename-box input');
  await expect(input).toBeFocused();
  await page.keyboard.press(`${mod}+a`);
  await page.keyboard.type('double');
  await page.keyboard.press('Enter');

  const dialog = page.getByRole('dialog', { name: "Rename to 'double': 2 files" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('listitem')).toHaveText([/^main\.py/, /^src\/util\.py/]);
  await expect(dialog.getByRole('listitem', { name: 'src/util.py' })).toContainText('+ def double(x):');
  await page.screenshot({ path: test.info().outputPath('rename-preview.png') });
  // Nothing is written before the operator applies.
  expect(await workspace.read('src/util.py')).toBe(UTIL);
  await dialog.getByRole('button', { name: 'Apply' }).click();

  await expect.poll(() => workspace.read('src/util.py')).toBe(UTIL.replace('helper', 'double'));
  await expect.poll(() => workspace.read('main.py')).toBe(MAIN.replaceAll('helper', 'double'));
  // Both tabs follow the change feed: clean buffers reload, nothing is left dirty.
  await expect(editorText(page)).toContainText('total = double(v)');
  await page.getByRole('tab', { name: 'util.py' }).click();
  await expect(editorText(page)).toContainText('def double(x):');
  await expect(page.locator('[role="tab"][data-dirty="true"]')).toHaveCount(0);
});

test('the breadcrumb shows the enclosing function, and its dropdown lists the siblings', async ({
  page,
  kiln,
  workspace,
}) => {
  await workspace.write(
    'shapes.py',
    'class Shape:\n    def area(self):\n        return 0\n\n    def name(self):\n        return "s"\n\n\ndef make():\n    return Shape()\n',
  );
  await kiln.open(page);
  await treeItem(page, 'shapes.py').click();
  await expect(editorText(page)).toContainText('class Shape');
  await cursorTo(page, 3, 12); // inside Shape.area
  await expect(symbols(page)).toHaveText(['Shape', 'area'], SERVER_START);
  await symbols(page).last().click();
  const list = page.getByRole('listbox', { name: 'Symbols' });
  await expect(list.getByRole('option')).toHaveText(['area', 'name']);
  await page.screenshot({ path: test.info().outputPath('breadcrumb-symbols.png') });
  await list.getByRole('option', { name: 'name' }).click();
  await expect(symbols(page)).toHaveText(['Shape', 'name']);
  await cursorTo(page, 10, 8);
  await expect(symbols(page)).toHaveText(['make']);
});

test('Shift+F12 peeks the references in every file; Ctrl/Cmd+T finds a symbol in the workspace', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await treeItem(page, 'main.py').click();
  await expect(page.locator('.code-editor .squiggly-error')).toHaveCount(1, SERVER_START);
  await cursorTo(page, 5, 15);
  await page.keyboard.press('Shift+F12');
  // The peek lists both files (Monaco orders them by URI), util.py read from disk though it has no tab.
  const peek = page.locator('.peekview-widget');
  await expect(peek.locator('.reference-file .label-name')).toHaveText(['util.py', 'main.py'], { useInnerText: true });
  const preview = peek.locator('.monaco-editor .view-lines');
  await expect(preview).toBeVisible();
  // util.py has no tab: its preview is a copy no save would write, so it takes no typing and says how to edit.
  await peek.locator('.reference-file', { hasText: 'util.py' }).click();
  await peek.getByRole('treeitem', { name: /^def helper\(x\): in util.py/ }).click();
  await expect(preview).toContainText('def helper');
  const before = await preview.innerText();
  await preview.click();
  await page.keyboard.type('lost?');
  await expect(peek.locator('.monaco-editor-overlaymessage')).toContainText('This file has no tab here');
  expect(await preview.innerText()).toBe(before);
  await page.screenshot({ path: test.info().outputPath('references.png') });
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');

  await page.keyboard.press(`${mod}+t`);
  const picker = page.getByRole('dialog', { name: 'Go to Symbol in Workspace' });
  await picker.getByRole('combobox').fill('helper');
  await picker.getByRole('option', { name: /^helper src\/util\.py:1/ }).click();
  await expect(page.getByRole('tab', { name: 'util.py' })).toHaveAttribute('aria-selected', 'true');
  await expect(symbols(page)).toHaveText(['helper']);
});

test('the Outline of a Python file is the server’s symbols, the file’s own reading while the server has none', async ({
  page,
  kiln,
  workspace,
}) => {
  await workspace.write(
    'shapes.py',
    'LIMIT = 3\n\n\nclass Shape:\n    def area(self):\n        inner = 0\n        return inner\n',
  );
  await kiln.open(page);
  await treeItem(page, 'shapes.py').click();
  await expect(editorText(page)).toContainText('class Shape');
  await page.getByRole('tab', { name: 'Outline' }).click();
  const outline = page.getByRole('tree', { name: 'Outline of shapes.py' });
  // The module's constant is a symbol the text reading does not list; a method's locals are left out.
  await expect(outline.getByRole('treeitem')).toHaveText(['LIMIT', 'Shape', 'area'], SERVER_START);
  await page.screenshot({ path: test.info().outputPath('outline-symbols.png') });
  await outline.getByRole('treeitem', { name: 'area' }).click();
  await expect(symbols(page)).toHaveText(['Shape', 'area']);

  // Turned off, the outline reads the file again.
  await page.keyboard.press(`${mod}+Shift+P`);
  await page.keyboard.type('Python Language Server: Turn Off');
  await page.keyboard.press('Enter');
  await expect(outline.getByRole('treeitem')).toHaveText(['Shape', 'area']);
});
