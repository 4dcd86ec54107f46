import { expect, test } from './support/fixtures';
import { mod, openFile, treeItem } from './support/ui';

test.use({
  fixtureFiles: {
    'README.md': '# Fixture\n',
    'src/app.py': 'print(1)\n',
    'src/kiln/analysis/quarterly_report.py': 'REPORT = "q3"\n',
    'src/kiln/analysis/question.py': 'Q = 1\n',
    'docs/guide.md': '# Guide\n',
    'node_modules/quarterly_report/index.js': '// excluded from Quick Open like the watcher\n',
    '.hidden-config': 'secret=1\n',
  },
});

test('Quick Open finds a nested file by a fuzzy query and opens it; Escape closes; recent files come first', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await page.keyboard.press(`${mod}+p`);
  const dialog = page.getByRole('dialog', { name: 'Quick Open' });
  await expect(dialog).toBeVisible();
  const input = dialog.getByRole('combobox', { name: 'Quick Open' });
  await expect(input).toBeFocused();
  await input.fill('qrtrpy');
  const options = dialog.getByRole('option');
  await expect(options.first()).toHaveAccessibleName('quarterly_report.py src/kiln/analysis');
  // The watcher's excludes hold here too.
  await expect(dialog.getByRole('option', { name: 'index.js node_modules/quarterly_report' })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('kiln-quick-open.png') });
  await input.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'quarterly_report.py' })).toBeVisible();
  await expect(page.locator('.code-editor[data-path="src/kiln/analysis/quarterly_report.py"]')).toContainText('REPORT');

  // Arrows move, Escape closes without opening anything.
  await openFile(page, 'README.md');
  await page.keyboard.press(`${mod}+p`);
  await expect(dialog).toBeVisible();
  // Nothing typed: what was opened last comes first.
  await expect(options.first()).toHaveAccessibleName('README.md recently opened');
  await expect(options.nth(1)).toHaveAccessibleName('quarterly_report.py src/kiln/analysis recently opened');
  await input.fill('q');
  await expect(options.first()).toHaveAccessibleName(/^quarterly_report\.py src\/kiln\/analysis\b/);
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await input.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await input.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveCount(2);
});

test('a key pressed the moment the window shows is not lost', async ({ page, kiln }) => {
  // Ctrl/Cmd+P is sent from a mutation observer as the file tree enters the page: after React's commit,
  // before any passive effect has run, as a fast operator (or a loaded machine) can deliver it.
  await page.addInitScript((isMac: boolean) => {
    const observer = new MutationObserver(() => {
      if (!document.querySelector('[role="tree"]')) return;
      observer.disconnect();
      const init = { key: 'p', code: 'KeyP', ctrlKey: !isMac, metaKey: isMac, bubbles: true, cancelable: true };
      document.body.dispatchEvent(new KeyboardEvent('keydown', init));
    });
    observer.observe(document, { childList: true, subtree: true });
  }, process.platform === 'darwin');
  await kiln.open(page);
  await expect(page.getByRole('dialog', { name: 'Quick Open' })).toBeVisible();
});

test('Quick Open sees a file created after start-up', async ({ page, kiln, workspace }) => {
  await kiln.open(page);
  await workspace.write('late/arrival_notes.txt', 'hello\n');
  await expect(treeItem(page, 'late')).toBeVisible();
  await page.keyboard.press(`${mod}+p`);
  const dialog = page.getByRole('dialog', { name: 'Quick Open' });
  await dialog.getByRole('combobox').fill('arrnotes');
  await expect(dialog.getByRole('option').first()).toHaveAccessibleName('arrival_notes.txt late');
});

test('the command palette lists commands with their keys and runs "Show hidden files"', async ({ page, kiln }) => {
  await kiln.open(page);
  await expect(treeItem(page, '.hidden-config')).toHaveCount(0);
  await page.keyboard.press(`${mod}+Shift+p`);
  const palette = page.getByRole('dialog', { name: 'Command Palette' });
  await expect(palette).toBeVisible();
  // Every command with its binding, from the one registry.
  // The key is drawn as CSS content (the option's visible text is its name): its hint carries it.
  await expect(palette.getByRole('option', { name: 'Go to File…' }).locator('.picker-hint')).toHaveAttribute(
    'data-hint',
    process.platform === 'darwin' ? '⌘P' : 'Ctrl+P',
  );
  await expect(palette.getByRole('option', { name: 'Save', exact: true }).locator('.picker-hint')).toHaveAttribute(
    'data-hint',
    process.platform === 'darwin' ? '⌘S' : 'Ctrl+S',
  );
  const input = palette.getByRole('combobox', { name: 'Command Palette' });
  await input.fill('hidden');
  await expect(palette.getByRole('option').first()).toHaveAccessibleName('Show hidden files');
  await page.screenshot({ path: test.info().outputPath('kiln-command-palette.png') });
  await input.press('Enter');
  await expect(palette).toHaveCount(0);
  await expect(treeItem(page, '.hidden-config')).toBeVisible();

  // The same registry runs key bindings: Rename (F2) applies where the tree has focus, and the palette offers it there.
  await treeItem(page, 'README.md').click();
  await page.keyboard.press(`${mod}+Shift+p`);
  await palette.getByRole('combobox').fill('rename');
  await expect(palette.getByRole('option', { name: 'Rename' }).locator('.picker-hint')).toHaveAttribute(
    'data-hint',
    'F2',
  );
  await palette.getByRole('combobox').press('Enter');
  await expect(page.getByRole('textbox', { name: 'New name' })).toBeFocused();
});
