import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { mod } from './support/ui';
import { judgeWithNbformat } from '../test-support/nbformat';
import { expectAccessible } from './support/axe';
import { cell, cellOf, notebook, notebookOf, openNotebook } from './support/notebook';

/**
 * Cells edit like JupyterLab's (issue 23): multi-select, the cell clipboard between notebooks, merge and split,
 * drag to reorder, undo/redo, against the real Jupyter kernel; the files saved are checked by Python's nbformat.
 */

const KERNEL_START = 60_000;
const RUN = 30_000;

/** A notebook of these sources: markdown where a source starts with `#`, code otherwise. */
function notebookOfSources(...sources: string[]): string {
  return notebook(...sources.map((source) => cell(source.startsWith('#') ? 'markdown' : 'code', source)));
}

/** A notebook of `count` code cells, `value_1 = 1` and on. */
function numberedNotebook(count: number): string {
  return notebookOfSources(...Array.from({ length: count }, (_, i) => `value_${i + 1} = ${i + 1}`));
}

function rowOf(nb: Locator, n: number): Locator {
  return nb.getByRole('grid', { name: 'Cells' }).getByRole('row', { name: `Cell ${n}`, exact: true });
}

/** Each cell's source as its editor shows it, in order (a rendered markdown cell: `md:` and its text). */
async function sources(nb: Locator): Promise<string[]> {
  return nb.locator('.nb-cell').evaluateAll((cells) =>
    cells.map((cell) => {
      const rendered = cell.querySelector('.nb-input.rendered') && cell.querySelector('.nb-markdown');
      if (rendered) return `md:${rendered.textContent?.trim()}`;
      const lines = cell.querySelectorAll('.view-lines .view-line');
      const text = lines.length
        ? [...lines].map((l) => l.textContent ?? '').join('\n')
        : (cell.querySelector('.nb-editor-static')?.textContent ?? '');
      return text.replace(/\u00a0/g, ' ').trimEnd();
    }),
  );
}

/** Clicks a cell's prompt area (its chrome, not its editor): command mode on that cell, with the modifiers held. */
async function clickCell(nb: Locator, n: number, modifiers: ('Shift' | 'Control' | 'Meta')[] = []): Promise<void> {
  await cellOf(nb, n).locator('.nb-prompt').click({ modifiers });
}

async function save(page: Page, nb: Locator): Promise<void> {
  await nb.getByRole('grid', { name: 'Cells' }).focus();
  await clickCell(nb, 1);
  await page.keyboard.press(`${mod}+s`);
  await expect(nb.getByTestId('notebook-dirty')).toHaveCount(0);
}

test.describe('notebook cells', () => {
  test.describe.configure({ timeout: 240_000 });

  test.describe('the cell clipboard', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'first.ipynb': notebookOfSources('x = 1', 'y = 2', '# Sum', 'print(x + y)'),
        'second.ipynb': notebookOfSources('z = 0'),
      },
    });

    test('select three cells, copy, paste into a second notebook; both saved files are exact nbformat', async ({
      page,
      context,
      kiln,
      workspace,
    }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: kiln.origin });
      await kiln.open(page);
      const first = await openNotebook(page, 'first.ipynb');
      await expect(first.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });

      // Shift+J three times selects every cell; Shift+Enter runs them all against the kernel.
      await clickCell(first, 1);
      for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+J');
      for (const n of [1, 2, 3, 4]) await expect(rowOf(first, n)).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press('Shift+Enter');
      await expect(cellOf(first, 4).getByRole('region', { name: 'Output' })).toHaveText(/^\s*3\s*$/, {
        timeout: RUN,
      });
      // Past the last cell, as in JupyterLab, a new one to type in.
      await expect(first.locator('.nb-cell')).toHaveCount(5);

      // Cell 2, then Shift+click cell 4: three cells selected, announced on each row.
      await clickCell(first, 2);
      await expect(rowOf(first, 4)).toHaveAttribute('aria-selected', 'false');
      await clickCell(first, 4, ['Shift']);
      await expect(rowOf(first, 1)).toHaveAttribute('aria-selected', 'false');
      for (const n of [2, 3, 4]) await expect(rowOf(first, n)).toHaveAttribute('aria-selected', 'true');
      // The cell menu speaks of the selection, and copies it (C does the same in command mode).
      await cellOf(first, 3).getByRole('button', { name: 'Cell menu' }).click();
      const menu = page.getByRole('menu', { name: 'Cell 3 menu' });
      await expect(menu.getByRole('menuitem', { name: /Merge selected cells/ })).toBeVisible();
      await page.screenshot({ path: test.info().outputPath('notebook-cells-menu.png') });
      await menu.getByRole('menuitem', { name: /Copy selected cells/ }).click();
      await expect(menu).toHaveCount(0);
      // The system clipboard has the code as text, and the cells under JupyterLab's MIME.
      await expect
        .poll(() => page.evaluate(() => navigator.clipboard.readText()))
        .toBe('y = 2\n\n# Sum\n\nprint(x + y)');
      const types = await page.evaluate(async () => (await navigator.clipboard.read()).flatMap((i) => i.types));
      expect(types).toContain('web application/vnd.jupyter.cells');

      const second = await openNotebook(page, 'second.ipynb');
      await clickCell(second, 1);
      await page.keyboard.press('v');
      await expect(second.locator('.nb-cell')).toHaveCount(4);
      expect(await sources(second)).toEqual(['z = 0', 'y = 2', 'md:Sum', 'print(x + y)']);
      // The pasted cells are the selection; outputs came along, as JupyterLab keeps them.
      for (const n of [2, 3, 4]) await expect(rowOf(second, n)).toHaveAttribute('aria-selected', 'true');
      await expect(cellOf(second, 4).getByRole('region', { name: 'Output' })).toHaveText(/^\s*3\s*$/);

      // Drag cell 1 of the first notebook onto the second's tab, then into its view below its last cell: a copy.
      await page.getByRole('tab', { name: 'first.ipynb' }).click();
      const handle = cellOf(notebookOf(page, 'first.ipynb'), 1).locator('.nb-handle');
      const from = await handle.boundingBox();
      const tab = await page.getByRole('tab', { name: 'second.ipynb' }).boundingBox();
      if (!from || !tab) throw new Error('not laid out');
      await page.mouse.move(from.x + from.width / 2, from.y + 8);
      await page.mouse.down();
      await page.mouse.move(from.x + 40, from.y + 40, { steps: 5 });
      await page.mouse.move(tab.x + tab.width / 2, tab.y + tab.height / 2, { steps: 10 });
      await expect(second).toBeVisible();
      const last = await cellOf(second, 4).boundingBox();
      if (!last) throw new Error('not laid out');
      await page.mouse.move(last.x + 120, last.y + last.height * 0.8, { steps: 10 });
      await page.mouse.up();
      await expect(second.locator('.nb-cell')).toHaveCount(5);
      await expect.poll(async () => (await sources(second))[4]).toBe('x = 1');
      await page.getByRole('tab', { name: 'first.ipynb' }).click();
      await expect(notebookOf(page, 'first.ipynb').locator('.nb-cell')).toHaveCount(5);

      // Dropped on the second notebook's tab itself, cell 2 is copied to that notebook's end.
      const handle2 = await cellOf(notebookOf(page, 'first.ipynb'), 2).locator('.nb-handle').boundingBox();
      if (!handle2) throw new Error('not laid out');
      await page.mouse.move(handle2.x + handle2.width / 2, handle2.y + 8);
      await page.mouse.down();
      await page.mouse.move(handle2.x + 40, handle2.y + 40, { steps: 5 });
      await page.mouse.move(tab.x + tab.width / 2, tab.y + tab.height / 2, { steps: 10 });
      await page.mouse.up();
      await expect(second).toBeVisible();
      await expect(second.locator('.nb-cell')).toHaveCount(6);
      // The new cell's editor may still be mounting when the count changes: its text is polled, not read once.
      await expect.poll(async () => (await sources(second))[5]).toBe('y = 2');
      await expect(rowOf(second, 6)).toHaveAttribute('aria-selected', 'true');
      await page.screenshot({ path: test.info().outputPath('notebook-cells-tab-drop.png') });
      await page.getByRole('tab', { name: 'first.ipynb' }).click();
      await expect(notebookOf(page, 'first.ipynb').locator('.nb-cell')).toHaveCount(5);

      await save(page, notebookOf(page, 'first.ipynb'));
      await page.getByRole('tab', { name: 'second.ipynb' }).click();
      await save(page, second);

      const a = judgeWithNbformat(path.join(workspace.root, 'first.ipynb'));
      const b = judgeWithNbformat(path.join(workspace.root, 'second.ipynb'));
      expect(a.sameBytes).toBe(true);
      expect(b.sameBytes).toBe(true);
      expect(b.sources).toEqual(['z = 0', 'y = 2', '# Sum', 'print(x + y)', 'x = 1', 'y = 2']);
      // New ids for the pasted cells; the outputs are the ones the kernel gave.
      expect(b.ids.slice(1).some((id) => a.ids.includes(id))).toBe(false);
      expect(b.outputs[3]).toEqual(a.outputs[3]);
      expect(JSON.stringify(b.outputs[3])).toContain('3\\n');
    });
  });

  test.describe('rearranging', () => {
    test.use({
      fixtureFiles: { ...DEFAULT_FIXTURE, 'cells.ipynb': notebookOfSources('a = 1', 'b = 2', 'c = 3', 'd = 4') },
    });

    test('merge and split, drag a cell with the mouse, undo and redo; the selection passes axe', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'cells.ipynb');
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });

      // Shift+M merges the selection into one cell, sources a blank line apart.
      await clickCell(nb, 1);
      await page.keyboard.press('Shift+J');
      await expect(rowOf(nb, 2)).toHaveAttribute('aria-selected', 'true');
      await expectAccessible(page, 'notebook-cells-selection', { colorSchemes: ['light'] });
      await page.keyboard.press('Shift+M');
      await expect.poll(() => sources(nb)).toEqual(['a = 1\n\nb = 2', 'c = 3', 'd = 4']);

      // Z undoes the merge, Shift+Z does it again.
      await page.keyboard.press('z');
      await expect.poll(() => sources(nb)).toEqual(['a = 1', 'b = 2', 'c = 3', 'd = 4']);
      await page.keyboard.press('Shift+Z');
      await expect.poll(() => sources(nb)).toEqual(['a = 1\n\nb = 2', 'c = 3', 'd = 4']);

      // Ctrl+Shift+- splits at the cursor (start of the third line).
      await cellOf(nb, 1).locator('.nb-editor .view-lines').click();
      await page.keyboard.press(`${mod}+Home`);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Control+Shift+Minus');
      await expect.poll(() => sources(nb)).toEqual(['a = 1', 'b = 2', 'c = 3', 'd = 4']);

      // Drag cell 1 by its handle to below cell 3: a drop line shows where, and the cell moves there.
      const handle = cellOf(nb, 1).locator('.nb-handle');
      const target = await cellOf(nb, 3).boundingBox();
      const from = await handle.boundingBox();
      if (!target || !from) throw new Error('cells not laid out');
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + 40, from.y + 40, { steps: 5 });
      await page.mouse.move(target.x + 80, target.y + target.height * 0.8, { steps: 10 });
      await expect(nb.locator('.nb-drop-line')).toBeVisible();
      await page.screenshot({ path: test.info().outputPath('notebook-cells-drag.png') });
      await page.mouse.up();
      await expect.poll(() => sources(nb)).toEqual(['b = 2', 'c = 3', 'a = 1', 'd = 4']);
      await expect(nb.locator('.nb-drop-line')).toBeHidden();
      // Its editor, focused, is named by its new number (then Escape: back to command mode).
      await cellOf(nb, 3).locator('.nb-editor .view-lines').click();
      await expect(cellOf(nb, 3).getByLabel('Cell 3 code', { exact: true }).first()).toBeAttached();
      await page.keyboard.press('Escape');

      // Z puts it back; Shift+Z moves it again.
      await page.keyboard.press('z');
      await expect.poll(() => sources(nb)).toEqual(['a = 1', 'b = 2', 'c = 3', 'd = 4']);
      await page.keyboard.press('Shift+Z');
      await expect.poll(() => sources(nb)).toEqual(['b = 2', 'c = 3', 'a = 1', 'd = 4']);

      // Dropped on another cell's code (its upper half: before it), a cell moves and its text is not pasted there.
      const code = await cellOf(nb, 3).locator('.nb-editor').boundingBox();
      const first = await cellOf(nb, 1).locator('.nb-handle').boundingBox();
      if (!code || !first) throw new Error('cells not laid out');
      await page.mouse.move(first.x + first.width / 2, first.y + first.height / 2);
      await page.mouse.down();
      await page.mouse.move(first.x + 40, first.y + 40, { steps: 5 });
      await page.mouse.move(code.x + 30, code.y + 6, { steps: 10 });
      await page.mouse.up();
      await expect.poll(() => sources(nb)).toEqual(['c = 3', 'b = 2', 'a = 1', 'd = 4']);

      await save(page, nb);
      const judged = judgeWithNbformat(path.join(workspace.root, 'cells.ipynb'));
      expect(judged.sameBytes).toBe(true);
      expect(judged.sources).toEqual(['c = 3', 'b = 2', 'a = 1', 'd = 4']);
    });
  });

  test.describe('accessible names', () => {
    const LONG = 60;
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'long.ipynb': numberedNotebook(LONG),
      },
    });

    test('every cell and its editor are named by their number from the start, and renumbered on move, insert and delete', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'long.ipynb');
      const editorOf = (n: number) => cellOf(nb, n).getByRole('textbox', { name: `Cell ${n} code`, exact: true });
      await expect(nb.locator('.nb-editor[data-live="true"]').first()).toBeAttached();
      // Nothing focused yet: a made editor (cell 1) and one still waiting for Monaco (cell 60) have their names.
      await expect(nb.getByRole('textbox', { name: /^Cell \d+ code$/ })).toHaveCount(LONG);
      await expect(editorOf(1)).toHaveCount(1);
      await expect(
        cellOf(nb, 1)
          .locator('.nb-editor[data-live="true"] textarea, .nb-editor[data-live="true"] [role="textbox"]')
          .first(),
      ).toHaveAttribute('aria-label', 'Cell 1 code');
      await expect(editorOf(LONG)).toHaveCount(1);
      await expect(rowOf(nb, LONG)).toHaveCount(1);

      // Ctrl+Shift+Down moves cell 1 below cell 2: both editors take their new numbers.
      await clickCell(nb, 1);
      await page.keyboard.press('Control+Shift+ArrowDown');
      const firstFour = async () => (await sources(nb)).slice(0, 4);
      await expect.poll(firstFour).toEqual(['value_2 = 2', 'value_1 = 1', 'value_3 = 3', 'value_4 = 4']);
      for (const n of [1, 2, 3]) await expect(editorOf(n)).toHaveCount(1);
      // A change of the editor's options (L: line numbers) keeps its name.
      await page.keyboard.press('l');
      await expect(cellOf(nb, 2).locator('.line-numbers').first()).toHaveText('1');
      await expect(editorOf(2)).toHaveCount(1);

      // B inserts a cell below cell 2: the one after it is cell 4 now; D D deletes the new cell: cell 3 again.
      await page.keyboard.press('Escape');
      await page.keyboard.press('b');
      await expect.poll(firstFour).toEqual(['value_2 = 2', 'value_1 = 1', '', 'value_3 = 3']);
      for (const n of [3, 4]) await expect(editorOf(n)).toHaveCount(1);
      await page.keyboard.press('Escape');
      await page.keyboard.press('d');
      await page.keyboard.press('d');
      await expect.poll(firstFour).toEqual(['value_2 = 2', 'value_1 = 1', 'value_3 = 3', 'value_4 = 4']);
      await expect(nb.getByRole('textbox', { name: /^Cell \d+ code$/ })).toHaveCount(LONG);
      await expect(editorOf(LONG)).toHaveCount(1);
      await page.screenshot({ path: test.info().outputPath('notebook-cells-names.png') });
      await expectAccessible(page, 'notebook-cells-names', { colorSchemes: ['light'] });
    });
  });

  test.describe('cell editors in a long notebook', () => {
    const LONG = 80;
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'long.ipynb': numberedNotebook(LONG),
      },
    });

    test('a fast scroll to the end leaves the cells in view with editors, and making editors adds no style sheets', async ({
      page,
      kiln,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'long.ipynb');
      const live = nb.locator('.nb-editor[data-live="true"]');
      await expect(live.first()).toBeAttached();
      // A long notebook's later cells arrive after its first screen: the flick must reach the real end.
      await expect(cellOf(nb, LONG)).toBeAttached();
      // Settled: Monaco makes some of an editor's parts when the page is idle.
      const idle = () => page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 2000 })));
      await idle();
      const styleSheets = () => page.evaluate(() => document.querySelectorAll('style').length);
      const sheetsBefore = await styleSheets();
      const editorsBefore = await live.count();

      // A screen a frame down to the end, as a flick of the wheel does.
      await nb.locator('.nb-cells').evaluate(
        (list) =>
          new Promise<void>((resolve) => {
            const step = () => {
              const before = list.scrollTop;
              list.scrollTop += list.clientHeight;
              if (list.scrollTop === before) resolve();
              else requestAnimationFrame(step);
            };
            requestAnimationFrame(step);
          }),
      );
      // Once the scrolling stops, the last cells get their editors.
      await expect(cellOf(nb, LONG).locator('.nb-editor[data-live="true"]')).toBeAttached();
      await expect(cellOf(nb, LONG).getByRole('textbox', { name: `Cell ${LONG} code`, exact: true })).toBeVisible();
      await idle();
      expect(await live.count()).toBeGreaterThan(editorsBefore);
      // Monaco's inline-completions view added a <style> for every editor made (Kiln has no inline completions).
      expect(await styleSheets()).toBe(sheetsBefore);
    });
  });

  test.describe('command-mode keys', () => {
    test.use({
      fixtureFiles: {
        ...DEFAULT_FIXTURE,
        'keys.ipynb': notebookOfSources('print("one")', 'print("two")', 'three = 3', 'import time'),
      },
    });

    test('O, Shift+O, L, 1–6, X and Shift+V, Ctrl+Shift+Down, D D and I I act on the selection; the palette lists them', async ({
      page,
      kiln,
      workspace,
    }) => {
      await kiln.open(page);
      const nb = await openNotebook(page, 'keys.ipynb');
      await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
      await clickCell(nb, 1);
      await page.keyboard.press('Shift+J');
      await page.keyboard.press(`${mod}+Enter`);
      await expect(cellOf(nb, 2).getByRole('region', { name: 'Output' })).toHaveText(/two/, { timeout: RUN });

      // O hides both cells' outputs, and shows them again; Shift+O makes them scroll.
      await page.keyboard.press('o');
      for (const n of [1, 2]) await expect(cellOf(nb, n).getByRole('button', { name: /Outputs hidden/ })).toBeVisible();
      await page.screenshot({ path: test.info().outputPath('notebook-cells-outputs-hidden.png') });
      await page.keyboard.press('o');
      await expect(cellOf(nb, 1).getByRole('region', { name: 'Output' })).toHaveText(/one/);
      await page.keyboard.press('Shift+O');
      await expect(cellOf(nb, 2).locator('.nb-outputs.scrolled')).toHaveCount(1);

      // L shows line numbers in the selected cells' editors, Shift+L in every cell.
      await page.keyboard.press('l');
      await expect(cellOf(nb, 1).locator('.line-numbers').first()).toHaveText('1');
      await expect(cellOf(nb, 3).locator('.line-numbers')).toHaveCount(0);

      // Ctrl+Shift+Down moves the two cells down one; 2 makes cell 4 a level-2 heading.
      await page.keyboard.press('Control+Shift+ArrowDown');
      await expect.poll(() => sources(nb)).toEqual(['three = 3', 'print("one")', 'print("two")', 'import time']);
      await clickCell(nb, 4);
      await page.keyboard.press('2');
      await expect(cellOf(nb, 4).getByRole('heading', { level: 2, name: 'import time' })).toBeVisible();

      // X cuts cell 1, Shift+V pastes it above cell 3 (now cell 2): a copy with a new id.
      await clickCell(nb, 1);
      await page.keyboard.press('x');
      await expect.poll(() => sources(nb)).toEqual(['print("one")', 'print("two")', 'md:import time']);
      await clickCell(nb, 2);
      await page.keyboard.press('Shift+V');
      await expect.poll(() => sources(nb)).toEqual(['print("one")', 'three = 3', 'print("two")', 'md:import time']);

      // D D deletes a selection of two; Z brings both back.
      await clickCell(nb, 1);
      await clickCell(nb, 3, [mod === 'Meta' ? 'Meta' : 'Control']);
      await page.keyboard.press('d');
      await page.keyboard.press('d');
      await expect.poll(() => sources(nb)).toEqual(['three = 3', 'md:import time']);
      await page.keyboard.press('z');
      await expect.poll(() => sources(nb)).toEqual(['print("one")', 'three = 3', 'print("two")', 'md:import time']);

      // I I interrupts a running cell.
      await cellOf(nb, 2).locator('.nb-editor .view-lines').click();
      await page.keyboard.press(`${mod}+A`);
      await page.keyboard.type('import time; print("sleeping", flush=True); time.sleep(60)');
      await page.keyboard.press(`${mod}+Enter`);
      // The run's own output proves it is the request the kernel is executing (typing '.' and '(' asked the kernel
      // for completions and signatures, which also make it busy), so the interrupt reaches the sleep.
      await expect(cellOf(nb, 2).getByRole('region', { name: 'Output' })).toContainText('sleeping', { timeout: RUN });
      // A signature or "Kernel busy" widget still open takes the first Escape: command mode is the cell focused.
      await expect(async () => {
        await page.keyboard.press('Escape');
        await expect(cellOf(nb, 2)).toBeFocused({ timeout: 1000 });
      }).toPass();
      await page.keyboard.press('i');
      await page.keyboard.press('i');
      await expect(cellOf(nb, 2).getByRole('region', { name: 'Output' })).toContainText('KeyboardInterrupt', {
        timeout: RUN,
      });

      // The palette lists the notebook's keys.
      await page.keyboard.press(`${mod}+Shift+p`);
      const palette = page.getByRole('dialog', { name: 'Command Palette' });
      // A key is drawn as CSS content (an option's visible text is its name): its hint carries it.
      const hint = (option: ReturnType<typeof palette.getByRole>) => option.locator('.picker-hint');
      await expect(
        hint(palette.getByRole('option', { name: 'Merge Selected Cells (or With Cell Below)' })),
      ).toHaveAttribute('data-hint', /Shift\+M/);
      await palette.getByRole('combobox').fill('paste cells above');
      await expect(hint(palette.getByRole('option').first())).toHaveAttribute('data-hint', /Shift\+V/);
      await page.keyboard.press('Escape');

      await save(page, nb);
      const judged = judgeWithNbformat(path.join(workspace.root, 'keys.ipynb'));
      expect(judged.sameBytes).toBe(true);
      expect(judged.sources[3]).toBe('## import time');
    });
  });
});
