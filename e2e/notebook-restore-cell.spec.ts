import type { Page } from '@playwright/test';
import { nbformatWrites, type CellSpec } from '../test-support/nbformat-build';
import { DEFAULT_FIXTURE, expect, test, type KilnWebHost } from './support/fixtures';
import { editorText, mod, treeItem } from './support/ui';

/**
 * Issue 39: "Restore this cell" from the Timeline when the notebook is not open as a notebook. Another program
 * broke cell 1 of lab.ipynb (an execution count nbformat refuses), so Kiln cannot open it as a notebook; the
 * Timeline still compares the last good version as cells, and the broken cell comes back from it: into the text
 * editor's buffer as one undoable edit when the notebook is open as text, else written to the file. Either way
 * the result is byte for byte what nbformat writes.
 */

const load: CellSpec = { id: 'load', source: 'x = 1', execution_count: 1 };
const plot: CellSpec = { id: 'plot', source: 'plot(x)', execution_count: 2 };
const [good, expected] = nbformatWrites([
  { cells: [load, plot] },
  { cells: [load, { ...plot, source: 'plot(x, 2)' }] },
]);
// Cell 2 edited since, cell 1 broken: what restoring cell 1 gives is `expected`.
const broken = expected.replace('"execution_count": 1,', '"execution_count": "soon",');

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'lab.ipynb': good } });
// A notebook Kiln cannot open, then the Timeline and its compare: more than the default on a loaded machine.
test.setTimeout(120_000);

/** Writes `text` as the operator would (through main, so local history keeps what it replaced). */
async function writeThroughMain(page: Page, kiln: KilnWebHost, text: string): Promise<void> {
  const answer = await page.evaluate(
    ({ origin, token, text }) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${origin.replace('http', 'ws')}/ws`);
        socket.onopen = () => {
          socket.send(JSON.stringify({ auth: token }));
          socket.send(JSON.stringify({ id: 1, channel: 'workspace.write', args: { path: 'lab.ipynb', text } }));
        };
        socket.onmessage = (m) => {
          const frame = JSON.parse(String(m.data)) as { id?: number };
          if (frame.id !== 1) return;
          socket.close();
          resolve(String(m.data));
        };
      }),
    { origin: kiln.origin, token: kiln.token, text },
  );
  expect(answer).toContain('"ok":true');
}

/** Opens the broken notebook (it cannot show as cells) and the Timeline's good version of it. */
async function compareWithGoodVersion(page: Page, kiln: KilnWebHost, asText: boolean) {
  await kiln.open(page);
  await writeThroughMain(page, kiln, broken);
  await treeItem(page, 'lab.ipynb').click();
  const cannotOpen = page.getByRole('alert').filter({ hasText: 'can’t be opened as a notebook' });
  await expect(cannotOpen).toBeVisible();
  if (asText) {
    await cannotOpen.getByRole('button', { name: 'Open as text' }).click();
    await expect(editorText(page)).toContainText('"soon"');
  }
  await treeItem(page, 'lab.ipynb').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open Timeline' }).click();
  await page.getByRole('region', { name: 'Timeline' }).getByRole('listitem').first().getByRole('button').click();
  const slot = page.getByRole('region', { name: 'Timeline version of lab.ipynb' });
  const groups = slot.getByRole('region', { name: 'Notebook changes' }).getByRole('group');
  await expect(groups).toHaveCount(2);
  await expect(groups.nth(0)).toHaveAccessibleName('Cell 1: execution count changed');
  await expect(groups.nth(1)).toHaveAccessibleName('Cell 2: source changed');
  return { slot, groups };
}

test('open as text: the cell comes back into the buffer as one undoable edit, saved as nbformat writes it', async ({
  page,
  kiln,
  workspace,
}) => {
  const { slot, groups } = await compareWithGoodVersion(page, kiln, true);
  await groups.nth(0).getByRole('button', { name: 'Restore this cell', exact: true }).click();
  await expect(slot.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'lab.ipynb' })).toHaveAttribute('data-dirty', 'true');
  // Unsaved: the file still has the broken cell.
  expect(await workspace.read('lab.ipynb')).toBe(broken);
  await page.screenshot({ path: test.info().outputPath('notebook-restore-cell-text.png') });
  await slot.getByRole('button', { name: 'Close version' }).click();
  await expect(editorText(page)).not.toContainText('"soon"');

  // One step of the editor's undo takes it back, and one redo brings it again.
  await editorText(page).click();
  await page.keyboard.press(`${mod}+z`);
  await expect(editorText(page)).toContainText('"soon"');
  await page.keyboard.press(`${mod}+Shift+z`);
  await expect(editorText(page)).not.toContainText('"soon"');
  await page.keyboard.press(`${mod}+s`);
  await expect.poll(() => workspace.read('lab.ipynb')).toBe(expected);
});

test('not open as text: the cell is written into the file, which then opens as a notebook', async ({
  page,
  kiln,
  workspace,
}) => {
  const { slot, groups } = await compareWithGoodVersion(page, kiln, false);
  await groups.nth(0).getByRole('button', { name: 'Restore this cell', exact: true }).click();
  await expect.poll(() => workspace.read('lab.ipynb')).toBe(expected);
  // The compare follows the file: only cell 2's edit is left.
  await expect(groups).toHaveCount(1);
  await expect(groups.nth(0)).toHaveAccessibleName('Cell 2: source changed');
  await page.screenshot({ path: test.info().outputPath('notebook-restore-cell-file.png') });
  // The restore is itself in the Timeline, so it can be undone there.
  await expect(page.getByRole('region', { name: 'Timeline' }).getByRole('listitem')).toHaveCount(2);
  await slot.getByRole('button', { name: 'Close version' }).click();
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(
    page.getByRole('region', { name: 'lab.ipynb', exact: true }).getByRole('group', { name: 'Cell 1', exact: true }),
  ).toBeVisible();
});
