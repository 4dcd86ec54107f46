import { expect, test } from './support/fixtures';
import { openFindInFiles } from './support/ui';

test.describe('Find in Files', () => {
  test.use({
    fixtureFiles: {
      'README.md': '# Project\n\nThe flux_capacitor needs 1.21 gigawatts.\n',
      'src/engine.py': 'import math\n\n\ndef charge():\n    return FLUX_CAPACITOR_LOAD  # flux_capacitor\n',
      'src/deep/nested/config.yaml': 'parts:\n  - flux_capacitor\n  - wheels\n',
      'notes/unrelated.txt': 'nothing here\n',
      'node_modules/dep/index.js': 'flux_capacitor in a dependency\n',
    },
  });

  test('finds a string in three files, grouped by file, and opens a result at its line with the match selected', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    const { view, box } = await openFindInFiles(page);
    await expect(box).toBeFocused();
    for (const name of ['Match Case', 'Whole Word', 'Use Regular Expression']) {
      await expect(view.getByRole('button', { name })).toHaveAttribute('aria-pressed', 'false');
    }
    await expect(view.getByRole('textbox', { name: 'Files to include' })).toBeVisible();
    await expect(view.getByRole('textbox', { name: 'Files to exclude' })).toBeVisible();
    await box.fill('flux_capacitor');
    await box.press('Enter');
    const results = view.getByRole('tree', { name: 'Search results' });
    await expect(view.getByRole('status')).toHaveText('4 results in 3 files');
    const files = results.locator('[role="treeitem"][aria-level="1"]');
    await expect(files).toHaveCount(3);
    // Arrival order is the engine's; the set of files is what matters.
    expect((await files.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).sort()).toEqual([
      'README.md',
      'src/deep/nested/config.yaml',
      'src/engine.py',
    ]);
    // Each is named as it reads: the file's name, then its folder.
    await expect(results.getByRole('treeitem', { name: 'engine.py src', exact: true })).toBeVisible();
    // Case-insensitive by default: the upper-case identifier matches too.
    const engineMatches = results.locator('[role="treeitem"][aria-level="2"][data-path="src/engine.py"]');
    await expect(engineMatches).toHaveCount(2);
    await expect(engineMatches.first().locator('mark')).toHaveText('FLUX_CAPACITOR');
    await page.screenshot({ path: test.info().outputPath('kiln-search.png') });

    // Match Case narrows it; from the box, Down enters the tree, arrows reach the match and Enter opens it.
    await view.getByRole('button', { name: 'Match Case' }).click();
    await expect(view.getByRole('status')).toHaveText('3 results in 3 files');
    const labels = await results
      .getByRole('treeitem')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    const target = labels.findIndex((l) => l === '- flux_capacitor (line 2)');
    expect(target).toBeGreaterThan(0);
    await box.press('ArrowDown');
    await expect(results).toBeFocused();
    for (let i = 0; i < target; i++) await results.press('ArrowDown');
    await expect(results.getByRole('treeitem', { name: '- flux_capacitor (line 2)' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    await results.press('Enter');
    await expect(page.getByRole('tab', { name: 'config.yaml' })).toBeVisible();
    const editor = page.locator('.code-editor[data-path="src/deep/nested/config.yaml"]');
    // The match is selected and the editor has focus: typing replaces exactly it.
    await expect(editor.locator('.monaco-editor.focused')).toHaveCount(1);
    await page.keyboard.type('flux_condenser');
    await expect(editor).toContainText('- flux_condenser');
    await expect(editor).not.toContainText('flux_capacitor');
  });
});

test.describe('Find in Files: cancelling a ripgrep search', () => {
  // The host stops reading ripgrep's output after 300 files until a search is cancelled (a test seam): ripgrep
  // itself is then still running, blocked on a full pipe, however loaded the machine, when Cancel reaches it.
  test.use({
    hostArgs: ['--test-hold-search-after', '300'],
    fixtureFiles: { 'README.md': 'hello\n' },
  });

  test('streams results, and a long search can be cancelled', async ({ page, kiln, workspace }) => {
    // Long lines: more output than the pipe and the stream buffer hold, so ripgrep cannot finish while held.
    const padding = 'x'.repeat(400);
    for (let d = 0; d < 10; d++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, f) =>
          workspace.write(`bulk/d${d}/f${f}.txt`, `line one\nhaystack needle ${d}-${f} ${padding}\n`),
        ),
      );
    }
    await kiln.open(page);
    const { view, box } = await openFindInFiles(page);
    await box.fill('needle');
    await box.press('Enter');
    const status = view.getByRole('status');
    // Results show while the search is still running.
    await expect(status).toHaveText('Searching… 300 results in 300 files');
    await expect(view.getByRole('tree', { name: 'Search results' }).getByRole('treeitem').first()).toBeVisible();
    await view.getByRole('button', { name: 'Cancel search' }).click();
    // The engine stopped where it was: a Cancel that did nothing would end at 1,000 and not cancelled.
    await expect(status).toHaveText('300 results in 300 files (cancelled)');
    await expect(view.getByRole('button', { name: 'Cancel search' })).toHaveCount(0);

    // A finished search over the same tree finds every file.
    await box.press('Enter');
    await expect(status).toHaveText('1,000 results in 1,000 files');
  });
});
