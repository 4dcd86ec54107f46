import path from 'node:path';
import { expect, test } from './support/fixtures';
import { mod } from './support/ui';

test('"Open Log" in the palette shows the log read-only, newest records last, and Refresh reads it again', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await page.keyboard.press(`${mod}+Shift+p`);
  const palette = page.getByRole('dialog', { name: 'Command Palette' });
  const input = palette.getByRole('combobox', { name: 'Command Palette' });
  await input.fill('open log');
  await expect(palette.getByRole('option').first()).toHaveAccessibleName('Open Log');
  await input.press('Enter');

  const file = path.join(kiln.dataDir, 'logs', 'kiln.log');
  const note = page.getByRole('note', { name: "Kiln's log" });
  await expect(note).toContainText(`Read-only: Kiln's log at ${file}`);
  await expect(page.getByRole('tab', { name: /kiln\.log/ })).toBeVisible();
  const editor = page.locator('.log-document .monaco-editor');
  await expect(editor).toContainText('web host starting');

  // Read-only: typing changes nothing, and the tab never turns dirty.
  await editor.locator('.view-lines').click();
  await page.keyboard.type('typed');
  await expect(editor).not.toContainText('typed');
  await page.screenshot({ path: test.info().outputPath('kiln-open-log.png') });

  await note.getByRole('button', { name: 'Refresh' }).click();
  await expect(editor).toContainText('web host starting');
});
