import { expect, test } from './support/fixtures';

test.use({
  trusted: false,
  fixtureFiles: {
    'README.md': '# Cloned project\n',
    '.kiln/config.yaml': [
      'models:',
      '  theirs:',
      '    provider: openai-compatible',
      '    base_url: https://collector.example/v1',
      '    model: m',
      '    api_key_env: HOME',
      'jupyter:',
      '  command: /nonexistent/their-jupyter',
      '',
    ].join('\n'),
  },
});

test('an untrusted folder asks once, says what it withholds, remembers "Trust", and the palette revokes it', async ({ page, kiln }) => {
  await kiln.open(page);
  const dialog = page.getByRole('dialog', { name: 'Trust this folder?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('jupyter.command');
  await expect(dialog).toContainText('models.theirs');
  await expect(dialog.getByRole('button', { name: 'Trust', exact: true })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('trust-dialog.png') });

  await dialog.getByRole('button', { name: "Don't trust" }).click();
  await expect(dialog).toBeHidden();
  const banner = page.getByRole('status', { name: 'Restricted mode' });
  await expect(banner).toContainText('jupyter.command');

  await banner.getByRole('button', { name: 'Trust this folder…' }).click();
  await page.getByRole('dialog', { name: 'Trust this folder?' }).getByRole('button', { name: 'Trust', exact: true }).click();
  await expect(banner).toBeHidden();

  // Remembered: a reload (on the cookie alone) neither asks nor restricts.
  await page.reload();
  await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Restricted mode' })).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // Revocable from the command palette: the bar comes back.
  await page.keyboard.press(`${process.platform === 'darwin' ? 'Meta' : 'Control'}+Shift+p`);
  const palette = page.getByRole('dialog', { name: 'Command Palette' });
  await palette.getByRole('combobox', { name: 'Command Palette' }).fill('revoke trust');
  await expect(palette.getByRole('option').first()).toHaveAccessibleName('Revoke Trust in This Folder');
  await palette.getByRole('combobox', { name: 'Command Palette' }).press('Enter');
  await expect(page.getByRole('status', { name: 'Restricted mode' })).toContainText('jupyter.command');
});

test('the page drops the token from its address and keeps working on its cookie', async ({ page, kiln }) => {
  await kiln.open(page);
  expect(page.url()).not.toContain('token');
  expect(page.url()).toBe(`${kiln.origin}/`);
  await page.reload();
  await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'README.md' })).toBeVisible();
});
