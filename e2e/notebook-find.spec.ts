import type { Locator } from '@playwright/test';
import { expectAccessible } from './support/axe';
import { DEFAULT_FIXTURE, expect, test, type TempWorkspace } from './support/fixtures';
import { mod, openFindInFiles } from './support/ui';
import { judgeWithNbformat } from '../test-support/nbformat';
import { cell, cellOf, notebook, notebookOf, openNotebook } from './support/notebook';

/**
 * Find, outline and collapse in a notebook, against the real Jupyter (Debian's jupyter-server + ipykernel).
 * Kernel start-up takes 10-20 s on this machine, hence the timeouts.
 */

const KERNEL_START = 60_000;
const RUN = 30_000;

async function savedCells(workspace: TempWorkspace, rel: string) {
  return (
    JSON.parse(await workspace.read(rel)) as {
      cells: { source: string | string[]; metadata: Record<string, unknown> }[];
    }
  ).cells.map((c) => ({ source: [c.source].flat().join(''), metadata: c.metadata }));
}

/** Whether an element's box is inside the notebook's scrolled list. */
async function inView(list: Locator, target: Locator): Promise<boolean> {
  const outer = await list.boundingBox();
  const inner = await target.boundingBox();
  return Boolean(outer && inner && inner.y >= outer.y - 1 && inner.y < outer.y + outer.height);
}

test.describe('notebook find, outline and collapse', () => {
  test.describe.configure({ timeout: 240_000 });

  test.describe('find and replace', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'find.ipynb': notebook(
          cell('markdown', '# Setup'),
          cell('code', "word = 'alpha'\nprint(word, 'alpha')"),
          cell('markdown', '## Folded', { heading_collapsed: true }),
          cell('code', "folded = ['alpha', 'Alpha']"),
          cell('markdown', '# After'),
          cell('code', 'alphabet = 1'),
        ),
      },
    });

    test('finds across cells including a folded one, replaces all as one undoable edit, and saves valid nbformat', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'find.ipynb');
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
      // The folded section shows as one line under its heading; its cell is not shown.
      await expect(nb.getByRole('button', { name: '1 cell hidden' })).toBeVisible();
      await expect(nb.getByRole('group')).toHaveCount(5);

      // A real run, so there is text output to search.
      await cellOf(nb, 2).getByRole('button', { name: 'Run cell' }).click();
      await expect(cellOf(nb, 2).getByRole('region', { name: 'Output' })).toHaveText('alpha alpha', { timeout: RUN });

      await cellOf(nb, 1).click();
      await page.keyboard.press(`${mod}+f`);
      const bar = nb.getByRole('search', { name: 'Find in notebook' });
      const field = bar.getByRole('textbox', { name: 'Find' });
      await expect(field).toBeFocused();
      await field.fill('alpha');
      // Sources only: 2 in cell 2, 2 in the folded cell, 1 in "alphabet".
      await expect(bar.locator('.nb-find-count')).toHaveText('1 of 5');
      await expect(nb.getByRole('button', { name: '1 cell hidden, 2 matches' })).toBeVisible();
      await expect(cellOf(nb, 2).locator('.nb-find-current, .nb-find-match')).toHaveCount(2);
      await bar.getByRole('button', { name: 'Whole Word' }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText('1 of 4');
      await bar.getByRole('button', { name: 'Match Case' }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText('1 of 3');
      await bar.getByRole('button', { name: 'Search outputs' }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText('1 of 5');
      await bar.getByRole('button', { name: 'Search outputs' }).click();
      await page.keyboard.press('F3');
      await expect(bar.locator('.nb-find-count')).toHaveText('2 of 3');
      await page.keyboard.press('Shift+F3');
      await page.keyboard.press('Shift+F3');
      await expect(bar.locator('.nb-find-count')).toHaveText('3 of 3');
      // Going to a match in a folded section opens it (as JupyterLab writes it: heading_collapsed goes).
      await expect(nb.getByRole('group')).toHaveCount(6);
      await expect(cellOf(nb, 4).locator('.nb-find-current')).toHaveCount(1);
      await page.screenshot({ path: test.info().outputPath('nbfind-find.png') });

      await page.keyboard.press(`${mod}+h`);
      const replace = bar.getByRole('textbox', { name: 'Replace' });
      await expect(replace).toBeVisible();
      await replace.fill('omega');
      await bar.getByRole('button', { name: 'Replace All' }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText('No results');
      await expect(cellOf(nb, 2).locator('.view-lines, .nb-editor-static').first()).toContainText("word = 'omega'");
      // One Undo puts every cell back.
      await bar.getByRole('button', { name: /Undo Replace All/ }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText(/of 3$/);
      await bar.getByRole('button', { name: 'Replace All' }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText('No results');
      await field.press('Escape');
      await expect(bar).toBeHidden();
      // Replace All is one step of the notebook's undo stack: Z in command mode (and Ctrl/Cmd+Z) takes it back
      // whole, Shift+Z does it again.
      const cell2Text = cellOf(nb, 2).locator('.view-lines, .nb-editor-static').first();
      const cell4Text = cellOf(nb, 4).locator('.view-lines, .nb-editor-static').first();
      await cellOf(nb, 1).click();
      await page.keyboard.press('z');
      await expect(cell2Text).toContainText("word = 'alpha'");
      await expect(cell4Text).toContainText("folded = ['alpha', 'Alpha']");
      await page.keyboard.press('Shift+Z');
      await expect(cell2Text).toContainText("word = 'omega'");
      await page.keyboard.press(`${mod}+z`);
      await expect(cell2Text).toContainText("word = 'alpha'");
      await expect(cell4Text).toContainText("folded = ['alpha', 'Alpha']");
      await page.keyboard.press(`${mod}+Shift+z`);
      await expect(cell2Text).toContainText("word = 'omega'");
      await expect(cell4Text).toContainText("folded = ['omega', 'Alpha']");

      await page.keyboard.press(`${mod}+s`);
      await expect
        .poll(async () => (await savedCells(workspace, 'find.ipynb')).map((c) => c.source))
        .toEqual([
          '# Setup',
          "word = 'omega'\nprint(word, 'omega')",
          '## Folded',
          "folded = ['omega', 'Alpha']",
          '# After',
          'alphabet = 1',
        ]);
      expect((await savedCells(workspace, 'find.ipynb'))[2].metadata).toEqual({});
      // Python's nbformat reads the file as valid (it throws otherwise) and writes exactly these bytes.
      expect(judgeWithNbformat(workspace.abs('find.ipynb')).sameBytes).toBe(true);
    });

    test('headings fold with ← and → in command mode, and the collapsers hide input and outputs, saved as JupyterLab does', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'find.ipynb');
      await nb.getByRole('button', { name: '1 cell hidden' }).click();
      await expect(nb.getByRole('group')).toHaveCount(6);
      await cellOf(nb, 1).click();
      await page.keyboard.press('ArrowLeft');
      await expect(nb.getByRole('button', { name: '3 cells hidden' })).toBeVisible();
      await page.keyboard.press('ArrowRight');
      await expect(nb.getByRole('group')).toHaveCount(6);
      await cellOf(nb, 2).getByRole('button', { name: 'Hide input' }).click();
      await expect(cellOf(nb, 2).getByRole('button', { name: '… Input hidden' })).toBeVisible();
      await page.keyboard.press(`${mod}+s`);
      await expect
        .poll(async () => (await savedCells(workspace, 'find.ipynb'))[1].metadata)
        .toEqual({ jupyter: { source_hidden: true } });
      // Python's nbformat reads the file as valid (it throws otherwise) and writes exactly these bytes.
      expect(judgeWithNbformat(workspace.abs('find.ipynb')).sameBytes).toBe(true);
    });
  });

  test.describe('Find in Files and the outline', () => {
    const many = Array.from({ length: 40 }, (_, i) => cell('code', `step_${i} = ${i}`));
    many[33] = cell('code', 'label = "say \\"when\\""\nnext_line = 2');
    many[5] = cell('markdown', '# Loading\n\nSome text.');
    many[20] = cell('markdown', '## Results');
    many[30] = cell('markdown', '## Discussion');
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'long.ipynb': notebook(...many) } });

    test('a Find in Files hit in a notebook names its cell and lands on it with the match selected', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const { view, box } = await openFindInFiles(page);
      // Across escaped quotes: what the cell says, not what the JSON holds.
      await box.fill('"say \\"when\\""');
      await box.press('Enter');
      const hit = view.getByRole('treeitem', { name: 'label = "say \\"when\\"" (cell 34, line 1)' });
      await expect(hit).toBeVisible();
      await hit.click();
      const nb = notebookOf(page, 'long.ipynb');
      const target = cellOf(nb, 34);
      await expect(target.locator('.monaco-editor.focused')).toBeVisible();
      await expect.poll(() => inView(nb.locator('.nb-cells'), target)).toBe(true);
      await expect
        .poll(() =>
          target.evaluate((el) => {
            const sel = el.ownerDocument.getSelection();
            return el.querySelector('.selected-text') !== null || Boolean(sel?.toString());
          }),
        )
        .toBe(true);
    });

    test('the outline lists the headings, jumps to one, and marks the current section; axe stays clean', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'long.ipynb');
      await page.getByRole('tab', { name: 'Outline' }).click();
      const outline = page.getByRole('region', { name: 'Outline' });
      const items = outline.getByRole('treeitem');
      await expect(items).toHaveText(['Loading', 'Results', 'Discussion']);
      await outline.getByRole('treeitem', { name: 'Discussion' }).click();
      const heading = cellOf(nb, 31);
      await expect(heading).toHaveClass(/active/);
      await expect.poll(() => inView(nb.locator('.nb-cells'), heading)).toBe(true);
      await expect(outline.getByRole('treeitem', { name: 'Discussion' })).toHaveAttribute('aria-selected', 'true');
      await expect(outline.getByRole('treeitem', { name: 'Results' })).toHaveAttribute('aria-selected', 'false');
      await page.screenshot({ path: test.info().outputPath('nbfind-outline.png') });

      await heading.click();
      await page.keyboard.press(`${mod}+h`);
      const bar = nb.getByRole('search', { name: 'Find in notebook' });
      await bar.getByRole('textbox', { name: 'Find' }).fill('step_3');
      await expect(bar.locator('.nb-find-count')).toHaveText(/of 9$/);
      await expectAccessible(page, 'notebook-find');
    });
  });

  test.describe('the outline of a Markdown file', () => {
    const filler = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of the guide.`).join('\n\n');
    test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'guide.md': `# Guide\n\n${filler}\n\n## Later\n\nThe end.\n` } });

    test('lists its headings and jumps to one', async ({ page, kiln }) => {
      await kiln.open(page);
      await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name: 'guide.md', exact: true }).click();
      await page.getByRole('tab', { name: 'Outline' }).click();
      const outline = page.getByRole('tree', { name: 'Outline of guide.md' });
      await expect(outline.getByRole('treeitem')).toHaveText(['Guide', 'Later']);
      const later = page.locator('.monaco-editor .view-line', { hasText: 'Later' }).filter({ hasText: '##' });
      await expect(later).toHaveCount(0);
      await outline.getByRole('treeitem', { name: 'Later' }).click();
      await expect(later).toBeInViewport();
      await page.screenshot({ path: test.info().outputPath('outline-markdown.png') });
    });
  });

  test.describe('find in outputs', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'json.ipynb': notebook({
          ...cell('code', 'JSON(data)'),
          execution_count: 1,
          outputs: [
            {
              output_type: 'display_data',
              metadata: {},
              data: {
                'application/json': { fruits: { basket: { apple: 1, pear: 2 } }, total: 3 },
                'text/plain': '<IPython.core.display.JSON object>',
              },
            },
          ],
        }),
      },
    });

    test("finds in a JSON output's tree, opening the folded branch that holds the match", async ({ page, kiln }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'json.ipynb');
      const tree = cellOf(nb, 1).getByRole('group', { name: 'JSON output' });
      await expect(tree.getByText('fruits')).toBeVisible();
      await expect(tree.getByText('apple')).toBeHidden();
      await cellOf(nb, 1).click();
      await page.keyboard.press(`${mod}+f`);
      const bar = nb.getByRole('search', { name: 'Find in notebook' });
      await bar.getByRole('textbox', { name: 'Find' }).fill('apple');
      await expect(bar.locator('.nb-find-count')).toHaveText('No results');
      await bar.getByRole('button', { name: 'Search outputs' }).click();
      await expect(bar.locator('.nb-find-count')).toHaveText('1 of 1');
      await expect(tree.getByText('apple')).toBeVisible();
      // What the tree shows is searched, not its text/plain stand-in.
      await bar.getByRole('textbox', { name: 'Find' }).fill('IPython');
      await expect(bar.locator('.nb-find-count')).toHaveText('No results');
      await page.screenshot({ path: test.info().outputPath('notebook-find-json.png') });
    });
  });
});
